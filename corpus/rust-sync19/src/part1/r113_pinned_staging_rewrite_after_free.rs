//! case: weights hot-swap through one pinned staging buffer (cuMemAllocHost_v2): the first half goes out with cuMemcpyHtoDAsync_v2, the retired weight matrix is freed with cuMemFree_v2, and the host overwrites the staging buffer with the second half, ordered after the pending copy only by that free of other memory
//! expect: relies_on_implicit_sync=1

use std::error::Error;
use std::ffi::{CString, c_void};
use std::ptr;

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUstream};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void matvec(const float* w, const float* x, float* y, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float acc = 0.0f;
        for (int c = 0; c < cols; ++c) acc += w[r * cols + c] * x[c];
        y[r] = acc;
    }
}
"#;

unsafe fn matvec(
    f: CUfunction,
    stream: CUstream,
    w: CUdeviceptr,
    x: CUdeviceptr,
    y: CUdeviceptr,
    rows: usize,
    cols: usize,
) -> Result<(), DriverError> {
    let (mut p_w, mut p_x, mut p_y, mut r, mut c) = (w, x, y, rows as i32, cols as i32);
    let mut args: [*mut c_void; 5] = [
        (&raw mut p_w).cast(),
        (&raw mut p_x).cast(),
        (&raw mut p_y).cast(),
        (&raw mut r).cast(),
        (&raw mut c).cast(),
    ];
    unsafe { result::launch_kernel(f, (rows.div_ceil(128) as u32, 1, 1), (128, 1, 1), 0, stream, &mut args) }
}

/// Evaluates `x` with the old weights, swaps in the new weights and evaluates again.
pub fn swap_and_compare(
    old_w: &[f32],
    new_w: &[f32],
    x: &[f32],
    rows: usize,
) -> Result<(Vec<f32>, Vec<f32>), Box<dyn Error>> {
    let cols = x.len();
    assert!(rows % 2 == 0 && old_w.len() == rows * cols && new_w.len() == rows * cols);
    let w_bytes = rows * cols * 4;
    let half = w_bytes / 2;
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let module = unsafe { result::module::load_data(image.as_ptr().cast())? };
    let f = unsafe { result::module::get_function(module, CString::new("matvec")?)? };
    let stream = result::stream::create(result::stream::StreamKind::Default)?;

    let mut before = vec![0.0f32; rows];
    let mut after = vec![0.0f32; rows];
    unsafe {
        let mut d_old: CUdeviceptr = 0;
        let mut d_new: CUdeviceptr = 0;
        let mut d_x: CUdeviceptr = 0;
        let mut d_y: CUdeviceptr = 0;
        let mut staging: *mut c_void = ptr::null_mut();
        let allocs = [
            sys::cuMemAlloc_v2(&mut d_old, w_bytes),
            sys::cuMemAlloc_v2(&mut d_new, w_bytes),
            sys::cuMemAlloc_v2(&mut d_x, cols * 4),
            sys::cuMemAlloc_v2(&mut d_y, rows * 4),
            sys::cuMemAllocHost_v2(&mut staging, half),
        ];
        if let Some(e) = allocs.iter().find_map(|s| s.result().err()) {
            let _ = sys::cuMemFree_v2(d_old);
            let _ = sys::cuMemFree_v2(d_new);
            let _ = sys::cuMemFree_v2(d_x);
            let _ = sys::cuMemFree_v2(d_y);
            let _ = sys::cuMemFreeHost(staging);
            return Err(e.into());
        }

        // Old weights: evaluate and wait.
        let mut status = result::memcpy_htod_sync(d_old, old_w).and(result::memcpy_htod_sync(d_x, x));
        if status.is_ok() {
            status = matvec(f, stream, d_old, d_x, d_y, rows, cols)
                .and(result::stream::synchronize(stream))
                .and(result::memcpy_dtoh_sync(&mut before, d_y));
        }

        // Hot swap through the staging buffer, half a matrix at a time.
        let stage = std::slice::from_raw_parts_mut(staging as *mut f32, half / 4);
        let (first, second) = new_w.split_at(new_w.len() / 2);
        if status.is_ok() {
            stage.copy_from_slice(first);
            status = sys::cuMemcpyHtoDAsync_v2(d_new, staging, half, stream).result();
        }
        // The old matrix is retired (its last use was synchronized above).
        let _ = sys::cuMemFree_v2(d_old);
        if status.is_ok() {
            stage.copy_from_slice(second); // EXPECT: relies_on_implicit_sync
            status = sys::cuMemcpyHtoDAsync_v2(d_new + half as u64, staging, half, stream).result();
        }
        if status.is_ok() {
            status = matvec(f, stream, d_new, d_x, d_y, rows, cols);
        }
        let synced = result::stream::synchronize(stream);
        if status.is_ok() && synced.is_ok() {
            status = result::memcpy_dtoh_sync(&mut after, d_y);
        }
        let _ = sys::cuMemFree_v2(d_new);
        let _ = sys::cuMemFree_v2(d_x);
        let _ = sys::cuMemFree_v2(d_y);
        let _ = sys::cuMemFreeHost(staging);
        let _ = result::stream::destroy(stream);
        let _ = result::module::unload(module);
        status?;
        synced?;
    }
    Ok((before, after))
}
