//! case: row normalization with a scratch vector from cuMemAllocAsync, written by one kernel and read by the next on the same stream, then released with cuMemFreeAsync on that stream (stream-ordered, documented); the pinned result is read after cuStreamSynchronize
//! expect: none

use std::error::Error;
use std::ffi::{CString, c_void};
use std::ptr;

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUstream};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void row_sums(const float* m, float* sums, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float s = 0.0f;
        for (int c = 0; c < cols; ++c) s += m[r * cols + c];
        sums[r] = s;
    }
}

extern "C" __global__ void divide_rows(const float* m, const float* sums, float* out, int rows, int cols) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows * cols) {
        float s = sums[i / cols];
        out[i] = s != 0.0f ? m[i] / s : 0.0f;
    }
}
"#;

fn launch(f: CUfunction, stream: CUstream, threads: usize, args: &mut [*mut c_void]) -> Result<(), DriverError> {
    unsafe { result::launch_kernel(f, (threads.div_ceil(256) as u32, 1, 1), (256, 1, 1), 0, stream, args) }
}

/// Makes every row of a row-major `rows` x `cols` matrix sum to one.
pub fn normalize_rows(m: &[f32], rows: usize, cols: usize) -> Result<Vec<f32>, Box<dyn Error>> {
    assert_eq!(m.len(), rows * cols);
    let bytes = std::mem::size_of_val(m);
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let module = unsafe { result::module::load_data(image.as_ptr().cast())? };
    let row_sums = unsafe { result::module::get_function(module, CString::new("row_sums")?)? };
    let divide_rows = unsafe { result::module::get_function(module, CString::new("divide_rows")?)? };
    let stream = result::stream::create(result::stream::StreamKind::Default)?;

    let mut out = Vec::new();
    unsafe {
        let mut d_m: CUdeviceptr = 0;
        let mut d_out: CUdeviceptr = 0;
        let mut h_out: *mut c_void = ptr::null_mut();
        let a1 = sys::cuMemAlloc_v2(&mut d_m, bytes);
        let a2 = sys::cuMemAlloc_v2(&mut d_out, bytes);
        let a3 = sys::cuMemAllocHost_v2(&mut h_out, bytes);
        if let Err(e) = a1.result().and(a2.result()).and(a3.result()) {
            let _ = sys::cuMemFree_v2(d_m);
            let _ = sys::cuMemFree_v2(d_out);
            let _ = sys::cuMemFreeHost(h_out);
            return Err(e.into());
        }
        let mut status = result::memcpy_htod_sync(d_m, m);

        let mut d_sums: CUdeviceptr = 0;
        if status.is_ok() {
            status = sys::cuMemAllocAsync(&mut d_sums, rows * 4, stream).result();
        }
        if status.is_ok() {
            let (mut p_m, mut p_s, mut r, mut c) = (d_m, d_sums, rows as i32, cols as i32);
            let mut args: [*mut c_void; 4] = [(&raw mut p_m).cast(), (&raw mut p_s).cast(), (&raw mut r).cast(), (&raw mut c).cast()];
            status = launch(row_sums, stream, rows, &mut args);
            if status.is_ok() {
                let mut p_o = d_out;
                let mut args: [*mut c_void; 5] = [
                    (&raw mut p_m).cast(),
                    (&raw mut p_s).cast(),
                    (&raw mut p_o).cast(),
                    (&raw mut r).cast(),
                    (&raw mut c).cast(),
                ];
                status = launch(divide_rows, stream, rows * cols, &mut args);
            }
            // Stream-ordered: runs after both kernels.
            let freed = sys::cuMemFreeAsync(d_sums, stream).result();
            status = status.and(freed);
        }
        if status.is_ok() {
            status = sys::cuMemcpyDtoHAsync_v2(h_out, d_out, bytes, stream).result();
        }
        let synced = sys::cuStreamSynchronize(stream).result();
        if status.is_ok() && synced.is_ok() {
            out = std::slice::from_raw_parts(h_out as *const f32, m.len()).to_vec();
        }
        let _ = sys::cuMemFree_v2(d_m);
        let _ = sys::cuMemFree_v2(d_out);
        let _ = sys::cuMemFreeHost(h_out);
        let _ = result::stream::destroy(stream);
        let _ = result::module::unload(module);
        status?;
        synced?;
    }
    Ok(out)
}
