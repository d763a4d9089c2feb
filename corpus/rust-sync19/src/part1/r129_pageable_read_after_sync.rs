//! case: a clamp kernel's output is copied with driver::result::memcpy_dtoh_async into a Vec (pageable, so pageable_async_copy), and the host reads the Vec only after driver::result::stream::synchronize
//! expect: pageable_async_copy=1

use std::error::Error;
use std::ffi::{CString, c_void};

use cudarc::driver::result;
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void clamp_values(const float* x, float* y, float lo, float hi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fminf(fmaxf(x[i], lo), hi);
}
"#;

/// Clamps `x` to [lo, hi] and counts how many values changed.
pub fn clamp_count(x: &[f32], lo: f32, hi: f32) -> Result<(Vec<f32>, usize), Box<dyn Error>> {
    let n = x.len();
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let module = unsafe { result::module::load_data(image.as_ptr().cast())? };
    let f = unsafe { result::module::get_function(module, CString::new("clamp_values")?)? };
    let stream = result::stream::create(result::stream::StreamKind::Default)?;

    let mut y = vec![0.0f32; n];
    let mut changed = 0;
    unsafe {
        let mut d_x: CUdeviceptr = 0;
        let mut d_y: CUdeviceptr = 0;
        let a1 = sys::cuMemAlloc_v2(&mut d_x, n * 4);
        let a2 = sys::cuMemAlloc_v2(&mut d_y, n * 4);
        if let Err(e) = a1.result().and(a2.result()) {
            let _ = result::free_sync(d_x);
            let _ = result::free_sync(d_y);
            return Err(e.into());
        }
        let mut status = result::memcpy_htod_sync(d_x, x);
        if status.is_ok() {
            let (mut p_x, mut p_y, mut l, mut h, mut n_i) = (d_x, d_y, lo, hi, n as i32);
            let mut args: [*mut c_void; 5] = [
                (&raw mut p_x).cast(),
                (&raw mut p_y).cast(),
                (&raw mut l).cast(),
                (&raw mut h).cast(),
                (&raw mut n_i).cast(),
            ];
            status = result::launch_kernel(f, (n.div_ceil(256) as u32, 1, 1), (256, 1, 1), 0, stream, &mut args);
        }
        if status.is_ok() {
            status = result::memcpy_dtoh_async(&mut y, d_y, stream); // EXPECT: pageable_async_copy
        }
        let synced = result::stream::synchronize(stream);
        if status.is_ok() && synced.is_ok() {
            changed = x.iter().zip(&y).filter(|(a, b)| a != b).count();
        }
        let _ = result::free_sync(d_x);
        let _ = result::free_sync(d_y);
        let _ = result::stream::destroy(stream);
        let _ = result::module::unload(module);
        status?;
        synced?;
    }
    Ok((y, changed))
}
