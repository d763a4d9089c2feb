//! case: 2-D Jacobi/CFD pressure solver with a compute stream and a communication stream: the halo-pack kernel on the comm stream waits on an event recorded after the sweep, the packed halo goes to cuMemAllocHost memory, and the host reads it only after cuEventSynchronize on an event recorded behind the copy
//! expect: none

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr, CUevent, CUstream};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const JACOBI_SRC: &str = r#"
extern "C" __global__ void jacobi_sweep(const float* p, const float* rhs, float* p_new,
                                        unsigned nx, unsigned ny, float h2) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i == 0 || j == 0 || i >= nx - 1 || j >= ny - 1) return;
    unsigned c = j * nx + i;
    p_new[c] = 0.25f * (p[c - 1] + p[c + 1] + p[c - nx] + p[c + nx] - h2 * rhs[c]);
}

// Rows 1 and ny-2 are sent to the neighbours below and above.
extern "C" __global__ void pack_halo(const float* p, float* halo, unsigned nx, unsigned ny) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nx) return;
    halo[i] = p[nx + i];
    halo[nx + i] = p[(ny - 2) * nx + i];
}
"#;

struct Streams {
    compute: CUstream,
    comm: CUstream,
    swept: CUevent,
    halo_ready: CUevent,
}

impl Streams {
    fn new() -> Result<Self> {
        let (mut compute, mut comm) = (null_mut(), null_mut());
        let (mut swept, mut halo_ready) = (null_mut(), null_mut());
        let flags = sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32;
        unsafe {
            sys::cuStreamCreate(&mut compute, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuStreamCreate(&mut comm, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuEventCreate(&mut swept, flags).result()?;
            sys::cuEventCreate(&mut halo_ready, flags).result()?;
        }
        Ok(Self { compute, comm, swept, halo_ready })
    }
}

impl Drop for Streams {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.compute);
            let _ = sys::cuStreamSynchronize(self.comm);
            let _ = sys::cuEventDestroy_v2(self.swept);
            let _ = sys::cuEventDestroy_v2(self.halo_ready);
            let _ = sys::cuStreamDestroy_v2(self.compute);
            let _ = sys::cuStreamDestroy_v2(self.comm);
        }
    }
}

pub struct PressureSolver {
    nx: u32,
    ny: u32,
    h2: f32,
    streams: Streams,
    module: sys::CUmodule,
    sweep: sys::CUfunction,
    pack: sys::CUfunction,
    p: [CUdeviceptr; 2],
    rhs: CUdeviceptr,
    d_halo: CUdeviceptr,
    h_halo: *mut f32,
    cur: usize,
}

impl PressureSolver {
    pub fn new(nx: u32, ny: u32, h: f32, rhs_pinned: *const f32) -> Result<Self> {
        let mut dev = 0;
        let mut ctx = null_mut();
        unsafe {
            sys::cuInit(0).result()?;
            sys::cuDeviceGet(&mut dev, 0).result()?;
            sys::cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
            sys::cuCtxSetCurrent(ctx).result()?;
        }
        let streams = Streams::new()?;
        let ptx = cudarc::nvrtc::compile_ptx(JACOBI_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let (mut module, mut sweep, mut pack) = (null_mut(), null_mut(), null_mut());
        let cells = (nx * ny) as usize;
        let (mut p0, mut p1, mut rhs, mut d_halo) = (0, 0, 0, 0);
        let mut h_halo: *mut c_void = null_mut();
        unsafe {
            sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
            sys::cuModuleGetFunction(&mut sweep, module, c"jacobi_sweep".as_ptr()).result()?;
            sys::cuModuleGetFunction(&mut pack, module, c"pack_halo".as_ptr()).result()?;
            for d in [&mut p0, &mut p1, &mut rhs] {
                sys::cuMemAlloc_v2(d, cells * 4).result()?;
            }
            sys::cuMemAlloc_v2(&mut d_halo, 2 * nx as usize * 4).result()?;
            sys::cuMemAllocHost_v2(&mut h_halo, 2 * nx as usize * 4).result()?;
            sys::cuMemsetD32Async(p0, 0, cells, streams.compute).result()?;
            sys::cuMemsetD32Async(p1, 0, cells, streams.compute).result()?;
            sys::cuMemcpyHtoDAsync_v2(rhs, rhs_pinned.cast(), cells * 4, streams.compute).result()?;
        }
        Ok(Self { nx, ny, h2: h * h, streams, module, sweep, pack, p: [p0, p1], rhs, d_halo, h_halo: h_halo.cast(), cur: 0 })
    }

    /// One sweep; returns the two boundary rows to exchange with the neighbouring ranks.
    pub fn sweep_and_pack(&mut self) -> Result<(Vec<f32>, Vec<f32>)> {
        let (mut src, mut dst, mut rhs) = (self.p[self.cur], self.p[1 - self.cur], self.rhs);
        let (mut nx, mut ny, mut h2) = (self.nx, self.ny, self.h2);
        let mut sweep_args: [*mut c_void; 6] = [
            (&mut src as *mut u64).cast(),
            (&mut rhs as *mut u64).cast(),
            (&mut dst as *mut u64).cast(),
            (&mut nx as *mut u32).cast(),
            (&mut ny as *mut u32).cast(),
            (&mut h2 as *mut f32).cast(),
        ];
        let mut halo = self.d_halo;
        let mut pack_args: [*mut c_void; 4] = [
            (&mut dst as *mut u64).cast(),
            (&mut halo as *mut u64).cast(),
            (&mut nx as *mut u32).cast(),
            (&mut ny as *mut u32).cast(),
        ];
        let s = &self.streams;
        unsafe {
            sys::cuLaunchKernel(self.sweep, nx.div_ceil(32), ny.div_ceil(8), 1, 32, 8, 1, 0, s.compute, sweep_args.as_mut_ptr(), null_mut())
                .result()?;
            sys::cuEventRecord(s.swept, s.compute).result()?;
            sys::cuStreamWaitEvent(s.comm, s.swept, 0).result()?;
            sys::cuLaunchKernel(self.pack, nx.div_ceil(128), 1, 1, 128, 1, 1, 0, s.comm, pack_args.as_mut_ptr(), null_mut())
                .result()?;
            sys::cuMemcpyDtoHAsync_v2(self.h_halo.cast(), self.d_halo, 2 * nx as usize * 4, s.comm).result()?;
            sys::cuEventRecord(s.halo_ready, s.comm).result()?;
        }
        self.cur = 1 - self.cur;
        // The next sweep may already run on the compute stream; the halo only needs its event.
        unsafe { sys::cuEventSynchronize(s.halo_ready).result()? };
        let rows = unsafe { std::slice::from_raw_parts(self.h_halo, 2 * nx as usize) };
        let (below, above) = rows.split_at(nx as usize);
        Ok((below.to_vec(), above.to_vec()))
    }
}

impl Drop for PressureSolver {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.streams.compute);
            let _ = sys::cuStreamSynchronize(self.streams.comm);
            for d in [self.p[0], self.p[1], self.rhs, self.d_halo] {
                let _ = sys::cuMemFree_v2(d);
            }
            let _ = sys::cuMemFreeHost(self.h_halo.cast());
            let _ = sys::cuModuleUnload(self.module);
        }
    }
}
