//! case: a skip mask from `malloc_async` (cuMemAllocAsync), zeroed with `memset_d8_async`, is released with `free_sync` (cuMemFree_v2) right after the kernel: that free waits for nothing at all (missing_sync, not an implicit wait)
//! expect: missing_sync=1

use std::error::Error;
use std::ffi::c_void;

use cudarc::driver::{result, sys, CudaContext, DriverError};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void nearest_dist(const float* pts, const unsigned char* skip, float* nearest, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float best = 3.4e38f;
    for (int j = 0; j < n; ++j) {
        if (j == i || skip[j]) continue;
        float dx = pts[2 * i] - pts[2 * j], dy = pts[2 * i + 1] - pts[2 * j + 1];
        best = fminf(best, dx * dx + dy * dy);
    }
    nearest[i] = sqrtf(best);
}
"#;

struct Dev(sys::CUdeviceptr);

impl Drop for Dev {
    fn drop(&mut self) {
        unsafe {
            let _ = result::free_sync(self.0);
        }
    }
}

/// Distance from each 2-D point to its nearest neighbour.
pub fn nearest_neighbour(points: &[[f32; 2]]) -> Result<Vec<f32>, Box<dyn Error>> {
    let n = points.len();
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let cs = stream.cu_stream();
    let func = ctx.load_module(compile_ptx(SRC)?)?.load_function("nearest_dist")?;

    let d_pts = Dev(unsafe { result::malloc_sync(n * 8)? });
    let d_near = Dev(unsafe { result::malloc_sync(n * 4)? });
    unsafe { result::memcpy_htod_sync(d_pts.0, points)? };

    // per-point skip mask from the stream-ordered pool, nothing skipped
    let ws = unsafe { result::malloc_async(cs, n)? };
    if let Err(e) = unsafe { result::memset_d8_async(ws, 0, n, cs) } {
        unsafe { result::free_async(ws, cs)? };
        return Err(e.into());
    }
    let (mut p, mut w, mut o, mut n_i) = (d_pts.0, ws, d_near.0, n as i32);
    let mut args: [*mut c_void; 4] = [
        &mut p as *mut _ as *mut c_void,
        &mut w as *mut _ as *mut c_void,
        &mut o as *mut _ as *mut c_void,
        &mut n_i as *mut _ as *mut c_void,
    ];
    let launched = unsafe { result::launch_kernel(func.cu_function(), ((n as u32).div_ceil(128), 1, 1), (128, 1, 1), 0, cs, &mut args) };
    let freed = unsafe { result::free_sync(ws) }; // EXPECT: missing_sync
    let waited = stream.synchronize();
    launched?;
    freed?;
    waited?;

    let mut out = vec![0.0f32; n];
    unsafe { result::memcpy_dtoh_sync(&mut out, d_near.0)? };
    Ok(out)
}
