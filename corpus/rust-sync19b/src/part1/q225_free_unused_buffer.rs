//! case: min/max calibration runs and is read back first; its two-float result buffer is freed while the rescale kernel, which never touches it, is still queued
//! expect: none

use std::error::Error;
use std::ffi::c_void;

use cudarc::driver::{result, sys, CudaContext, DriverError};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void min_max(const float* x, float* minmax, int n) {
    __shared__ float lo[256];
    __shared__ float hi[256];
    float l = 3.4e38f, h = -3.4e38f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) { l = fminf(l, x[i]); h = fmaxf(h, x[i]); }
    lo[threadIdx.x] = l;
    hi[threadIdx.x] = h;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            lo[threadIdx.x] = fminf(lo[threadIdx.x], lo[threadIdx.x + s]);
            hi[threadIdx.x] = fmaxf(hi[threadIdx.x], hi[threadIdx.x + s]);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) { minmax[0] = lo[0]; minmax[1] = hi[0]; }
}

extern "C" __global__ void rescale(const float* x, float* y, float lo, float inv_range, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = (x[i] - lo) * inv_range;
}
"#;

struct Dev(sys::CUdeviceptr);

impl Dev {
    fn alloc(bytes: usize) -> Result<Self, DriverError> {
        Ok(Self(unsafe { result::malloc_sync(bytes)? }))
    }
}

impl Drop for Dev {
    fn drop(&mut self) {
        unsafe {
            let _ = result::free_sync(self.0);
        }
    }
}

pub fn min_max_scale(x: &[f32]) -> Result<Vec<f32>, Box<dyn Error>> {
    assert!(!x.is_empty());
    let n = x.len();
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let cs = stream.cu_stream();
    let module = ctx.load_module(compile_ptx(SRC)?)?;
    let min_max = module.load_function("min_max")?;
    let rescale = module.load_function("rescale")?;

    let d_x = Dev::alloc(n * 4)?;
    let d_y = Dev::alloc(n * 4)?;
    let d_minmax = Dev::alloc(2 * 4)?;
    unsafe { result::memcpy_htod_sync(d_x.0, x)? };

    // calibration: one block, read back with a blocking copy
    let (mut xp, mut mm, mut n_i) = (d_x.0, d_minmax.0, n as i32);
    let mut a1: [*mut c_void; 3] = [
        &mut xp as *mut _ as *mut c_void,
        &mut mm as *mut _ as *mut c_void,
        &mut n_i as *mut _ as *mut c_void,
    ];
    unsafe { result::launch_kernel(min_max.cu_function(), (1, 1, 1), (256, 1, 1), 0, cs, &mut a1)? };
    let mut bounds = [0.0f32; 2];
    unsafe { result::memcpy_dtoh_sync(&mut bounds, d_minmax.0)? };
    let range = bounds[1] - bounds[0];
    let (mut lo, mut inv) = (bounds[0], if range > 0.0 { 1.0 / range } else { 0.0 });

    let mut yp = d_y.0;
    let mut a2: [*mut c_void; 5] = [
        &mut xp as *mut _ as *mut c_void,
        &mut yp as *mut _ as *mut c_void,
        &mut lo as *mut _ as *mut c_void,
        &mut inv as *mut _ as *mut c_void,
        &mut n_i as *mut _ as *mut c_void,
    ];
    unsafe { result::launch_kernel(rescale.cu_function(), ((n as u32).div_ceil(256), 1, 1), (256, 1, 1), 0, cs, &mut a2)? };
    drop(d_minmax); // no queued work uses it

    stream.synchronize()?;
    let mut y = vec![0.0f32; n];
    unsafe { result::memcpy_dtoh_sync(&mut y, d_y.0)? };
    Ok(y)
}
