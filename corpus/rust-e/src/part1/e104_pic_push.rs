//! case: particle-in-cell push through cudarc's driver::result layer: the initial state goes up with blocking copies followed by a context synchronize, each step reduces kinetic energy per block into cuMemHostAlloc'd memory (flags 0) that is summed after the stream is synchronized
//! expect: none

use std::ffi::{c_void, CString};
use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext, DriverError};
use cudarc::nvrtc::compile_ptx;

const PUSH_SRC: &str = r#"
extern "C" __global__ void leapfrog_push(float* x, float* v, const float* efield, int n, int ncell,
                                         float dx, float qm_dt, float* block_ke) {
    extern __shared__ float ke[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float e = 0.0f;
    if (i < n) {
        float len = ncell * dx;
        int c = min(max((int)(x[i] / dx), 0), ncell - 1);
        v[i] += qm_dt * efield[c];
        x[i] += v[i];
        if (x[i] < 0.0f) x[i] += len;
        if (x[i] >= len) x[i] -= len;
        e = 0.5f * v[i] * v[i];
    }
    ke[threadIdx.x] = e;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) ke[threadIdx.x] += ke[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) block_ke[blockIdx.x] = ke[0];
}
"#;

const BLOCK: u32 = 256;

pub struct PicStepper {
    _ctx: Arc<CudaContext>,
    module: sys::CUmodule,
    push: sys::CUfunction,
    stream: sys::CUstream,
    x: sys::CUdeviceptr,
    v: sys::CUdeviceptr,
    efield: sys::CUdeviceptr,
    block_ke: sys::CUdeviceptr,
    host_ke: *mut f32,
    n: usize,
    ncell: usize,
    blocks: usize,
}

impl PicStepper {
    pub fn new(x0: &[f32], v0: &[f32], e0: &[f32]) -> Result<Self, Box<dyn std::error::Error>> {
        let ctx = CudaContext::new(0)?;
        let image = CString::new(compile_ptx(PUSH_SRC)?.to_src())?;
        let (n, ncell) = (x0.len(), e0.len());
        let blocks = n.div_ceil(BLOCK as usize);
        unsafe {
            let module = result::module::load_data(image.as_ptr() as *const c_void)?;
            let push = result::module::get_function(module, CString::new("leapfrog_push")?)?;
            let stream = result::stream::create(result::stream::StreamKind::NonBlocking)?;
            let x = result::malloc_sync(n * 4)?;
            let v = result::malloc_sync(n * 4)?;
            let efield = result::malloc_sync(ncell * 4)?;
            let block_ke = result::malloc_sync(blocks * 4)?;
            let host_ke = result::malloc_host(blocks * 4, 0)? as *mut f32;
            result::memcpy_htod_sync(x, x0)?;
            result::memcpy_htod_sync(v, v0)?;
            result::memcpy_htod_sync(efield, e0)?;
            // Blocking copies from pageable memory return once staged and run on the legacy
            // stream, which our non-blocking stream does not wait for: let them land first.
            result::ctx::synchronize()?;
            Ok(PicStepper { _ctx: ctx, module, push, stream, x, v, efield, block_ke, host_ke, n, ncell, blocks })
        }
    }

    /// One leapfrog step; returns the total kinetic energy after it.
    pub fn step(&mut self, qm_dt: f32, dx: f32) -> Result<f64, DriverError> {
        let (mut n, mut ncell, mut dx, mut qm_dt) = (self.n as i32, self.ncell as i32, dx, qm_dt);
        let mut args: [*mut c_void; 8] = [
            &mut self.x as *mut sys::CUdeviceptr as *mut c_void,
            &mut self.v as *mut sys::CUdeviceptr as *mut c_void,
            &mut self.efield as *mut sys::CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
            &mut ncell as *mut i32 as *mut c_void,
            &mut dx as *mut f32 as *mut c_void,
            &mut qm_dt as *mut f32 as *mut c_void,
            &mut self.block_ke as *mut sys::CUdeviceptr as *mut c_void,
        ];
        unsafe {
            result::launch_kernel(self.push, (self.blocks as u32, 1, 1), (BLOCK, 1, 1), BLOCK * 4, self.stream, &mut args)?;
            let host = std::slice::from_raw_parts_mut(self.host_ke, self.blocks);
            result::memcpy_dtoh_async(host, self.block_ke, self.stream)?;
            result::stream::synchronize(self.stream)?;
            Ok(host.iter().map(|&e| e as f64).sum())
        }
    }
}

impl Drop for PicStepper {
    fn drop(&mut self) {
        unsafe {
            let _ = result::stream::synchronize(self.stream);
            for p in [self.x, self.v, self.efield, self.block_ke] {
                let _ = result::free_sync(p);
            }
            let _ = result::free_host(self.host_ke as *mut c_void);
            let _ = result::stream::destroy(self.stream);
            let _ = result::module::unload(self.module);
        }
    }
}
