//! case: a softmax kernel's workspace comes from cuMemAllocAsync on the kernel's stream but is released with cuMemFree_v2 right after the launch; cuMemFree is documented not to wait for such memory, so this is missing_sync, not a reliance on an implicit wait
//! expect: missing_sync=1

use std::error::Error;
use std::ffi::{CString, c_void};
use std::ptr;

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
// One thread per row; the row maximum is kept in the caller's workspace.
extern "C" __global__ void softmax_rows(const float* x, float* y, float* row_max, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float* yr = y + (size_t)r * cols;
    row_max[r] = xr[0];
    for (int c = 1; c < cols; ++c) row_max[r] = fmaxf(row_max[r], xr[c]);
    float sum = 0.0f;
    for (int c = 0; c < cols; ++c) {
        yr[c] = expf(xr[c] - row_max[r]);
        sum += yr[c];
    }
    for (int c = 0; c < cols; ++c) yr[c] /= sum;
}
"#;

pub fn softmax(x: &[f32], rows: usize, cols: usize) -> Result<Vec<f32>, Box<dyn Error>> {
    assert!(cols > 0 && x.len() == rows * cols);
    let bytes = std::mem::size_of_val(x);
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let module = unsafe { result::module::load_data(image.as_ptr().cast())? };
    let f = unsafe { result::module::get_function(module, CString::new("softmax_rows")?)? };
    let stream = result::stream::create(result::stream::StreamKind::Default)?;

    let mut y = vec![0.0f32; x.len()];
    unsafe {
        let mut d_x: CUdeviceptr = 0;
        let mut d_y: CUdeviceptr = 0;
        let a1 = sys::cuMemAlloc_v2(&mut d_x, bytes);
        let a2 = sys::cuMemAlloc_v2(&mut d_y, bytes);
        if let Err(e) = a1.result().and(a2.result()) {
            let _ = sys::cuMemFree_v2(d_x);
            let _ = sys::cuMemFree_v2(d_y);
            return Err(e.into());
        }
        let mut status: Result<(), DriverError> = result::memcpy_htod_sync(d_x, x);
        if status.is_ok() {
            let mut d_ws: CUdeviceptr = 0;
            status = sys::cuMemAllocAsync(&mut d_ws, rows * 4, stream).result();
            if status.is_ok() {
                let (mut p_x, mut p_y, mut p_ws, mut r, mut c) = (d_x, d_y, d_ws, rows as i32, cols as i32);
                let mut args: [*mut c_void; 5] = [
                    (&raw mut p_x).cast(),
                    (&raw mut p_y).cast(),
                    (&raw mut p_ws).cast(),
                    (&raw mut r).cast(),
                    (&raw mut c).cast(),
                ];
                status = result::launch_kernel(f, (rows.div_ceil(128) as u32, 1, 1), (128, 1, 1), 0, stream, &mut args);
                let _ = sys::cuMemFree_v2(d_ws); // EXPECT: missing_sync
            }
        }
        let synced = sys::cuStreamSynchronize(stream).result();
        if status.is_ok() && synced.is_ok() {
            status = result::memcpy_dtoh_sync(&mut y, d_y);
        }
        let _ = sys::cuMemFree_v2(d_x);
        let _ = sys::cuMemFree_v2(d_y);
        let _ = result::stream::destroy(stream);
        let _ = result::module::unload(module);
        status?;
        synced?;
    }
    Ok(y)
}
