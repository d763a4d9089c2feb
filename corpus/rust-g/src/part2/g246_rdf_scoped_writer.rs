//! case: MD trajectory analysis computing a radial distribution histogram per frame into two pinned buffers used alternately; a scoped writer thread receives each buffer over a channel and serializes it, but the buffer is sent right after its device-to-host copy is enqueued and the main thread synchronizes the stream only afterwards
//! expect: missing_sync=1

use std::error::Error;
use std::ffi::{c_void, CString};
use std::io::Write;
use std::ptr::null_mut;
use std::sync::mpsc;
use std::thread;

use cudarc::driver::sys::{self, CUdeviceptr};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const RDF_SRC: &str = r#"
extern "C" __global__ void rdf_histogram(const float4* pos, unsigned n, float box_len, float r_max,
                                         unsigned bins, unsigned* hist) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 a = pos[i];
    for (unsigned j = i + 1; j < n; ++j) {
        float4 b = pos[j];
        float dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
        dx -= box_len * rintf(dx / box_len); dy -= box_len * rintf(dy / box_len); dz -= box_len * rintf(dz / box_len);
        float r = sqrtf(dx*dx + dy*dy + dz*dz);
        if (r < r_max) atomicAdd(&hist[(unsigned)(r / r_max * bins)], 2u);
    }
}
"#;

/// A pinned histogram handed to the writer thread.
struct HistView {
    frame: usize,
    ptr: *const u32,
    bins: usize,
}
unsafe impl Send for HistView {}

pub fn analyse_trajectory(frames_pinned: &[*const [f32; 4]], n: u32, box_len: f32, out: &mut (dyn Write + Send)) -> Result<()> {
    const BINS: usize = 1 << 14;
    let mut dev = 0;
    let mut ctx = null_mut();
    let (mut stream, mut module, mut kernel) = (null_mut(), null_mut(), null_mut());
    let ptx = cudarc::nvrtc::compile_ptx(RDF_SRC)?;
    let image = CString::new(ptx.to_src())?;
    let (mut d_pos, mut d_hist): (CUdeviceptr, CUdeviceptr) = (0, 0);
    let mut pinned: [*mut c_void; 2] = [null_mut(), null_mut()];
    unsafe {
        sys::cuInit(0).result()?;
        sys::cuDeviceGet(&mut dev, 0).result()?;
        sys::cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
        sys::cuCtxSetCurrent(ctx).result()?;
        sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
        sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
        sys::cuModuleGetFunction(&mut kernel, module, c"rdf_histogram".as_ptr()).result()?;
        sys::cuMemAlloc_v2(&mut d_pos, n as usize * 16).result()?;
        sys::cuMemAlloc_v2(&mut d_hist, BINS * 4).result()?;
        for p in pinned.iter_mut() {
            sys::cuMemAllocHost_v2(p, BINS * 4).result()?;
        }
    }

    let result: Result<()> = thread::scope(|s| {
        let (tx, rx) = mpsc::sync_channel::<HistView>(1);
        let writer = s.spawn(move || -> std::io::Result<()> {
            for h in rx {
                let hist = unsafe { std::slice::from_raw_parts(h.ptr, h.bins) };
                writeln!(out, "# frame {}", h.frame)?;
                for (b, count) in hist.iter().enumerate() {
                    if *count != 0 { // EXPECT: missing_sync
                        writeln!(out, "{b} {count}")?;
                    }
                }
            }
            Ok(())
        });
        for (f, &frame) in frames_pinned.iter().enumerate() {
            let slot = f % 2;
            let (mut p, mut h) = (d_pos, d_hist);
            let (mut n_, mut bl, mut rmax, mut bins) = (n, box_len, box_len / 2.0, BINS as u32);
            let mut params: [*mut c_void; 6] = [
                (&mut p as *mut u64).cast(),
                (&mut n_ as *mut u32).cast(),
                (&mut bl as *mut f32).cast(),
                (&mut rmax as *mut f32).cast(),
                (&mut bins as *mut u32).cast(),
                (&mut h as *mut u64).cast(),
            ];
            unsafe {
                sys::cuMemcpyHtoDAsync_v2(d_pos, frame.cast(), n as usize * 16, stream).result()?;
                sys::cuMemsetD32Async(d_hist, 0, BINS, stream).result()?;
                sys::cuLaunchKernel(kernel, n.div_ceil(128), 1, 1, 128, 1, 1, 0, stream, params.as_mut_ptr(), null_mut()).result()?;
                sys::cuMemcpyDtoHAsync_v2(pinned[slot], d_hist, BINS * 4, stream).result()?;
            }
            tx.send(HistView { frame: f, ptr: pinned[slot].cast(), bins: BINS }).map_err(|_| "writer exited")?;
            unsafe { sys::cuStreamSynchronize(stream).result()? };
        }
        drop(tx);
        writer.join().map_err(|_| "writer panicked")??;
        Ok(())
    });

    unsafe {
        sys::cuStreamSynchronize(stream).result()?;
        for p in pinned {
            sys::cuMemFreeHost(p).result()?;
        }
        sys::cuMemFree_v2(d_pos).result()?;
        sys::cuMemFree_v2(d_hist).result()?;
        sys::cuModuleUnload(module).result()?;
        sys::cuStreamDestroy_v2(stream).result()?;
    }
    result
}
