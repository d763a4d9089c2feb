//! case: a transpose kernel on the legacy (null) stream; the blocking cuMemcpyDtoH_v2 of the result, which waits for the legacy stream, comes before both cuMemFree_v2 calls
//! expect: none

use std::error::Error;
use std::ffi::{CString, c_void};
use std::ptr;

use cudarc::driver::result;
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

const TILE: usize = 16;

const SRC: &str = r#"
#define TILE 16
extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (x < rows && y < cols) out[y * rows + x] = tile[threadIdx.x][threadIdx.y];
}
"#;

/// Transposes a row-major `rows` x `cols` matrix.
pub fn transpose(m: &[f32], rows: usize, cols: usize) -> Result<Vec<f32>, Box<dyn Error>> {
    assert_eq!(m.len(), rows * cols);
    let bytes = std::mem::size_of_val(m);
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let module = unsafe { result::module::load_data(image.as_ptr().cast())? };
    let f = unsafe { result::module::get_function(module, CString::new("transpose")?)? };

    let mut t = vec![0.0f32; m.len()];
    unsafe {
        let mut d_in: CUdeviceptr = 0;
        let mut d_out: CUdeviceptr = 0;
        let a1 = sys::cuMemAlloc_v2(&mut d_in, bytes);
        let a2 = sys::cuMemAlloc_v2(&mut d_out, bytes);
        if let Err(e) = a1.result().and(a2.result()) {
            let _ = sys::cuMemFree_v2(d_in);
            let _ = sys::cuMemFree_v2(d_out);
            return Err(e.into());
        }
        let mut status = sys::cuMemcpyHtoD_v2(d_in, m.as_ptr().cast(), bytes).result();
        if status.is_ok() {
            let (mut p_in, mut p_out, mut r, mut c) = (d_in, d_out, rows as i32, cols as i32);
            let mut args: [*mut c_void; 4] =
                [(&raw mut p_in).cast(), (&raw mut p_out).cast(), (&raw mut r).cast(), (&raw mut c).cast()];
            let grid = (cols.div_ceil(TILE) as u32, rows.div_ceil(TILE) as u32, 1);
            status = result::launch_kernel(f, grid, (TILE as u32, TILE as u32, 1), 0, result::stream::null(), &mut args);
        }
        if status.is_ok() {
            // Blocking copy on the legacy stream: returns once the transpose and the copy are done.
            status = sys::cuMemcpyDtoH_v2(t.as_mut_ptr().cast(), d_out, bytes).result();
        }
        let _ = sys::cuMemFree_v2(d_in);
        let _ = sys::cuMemFree_v2(d_out);
        let _ = result::module::unload(module);
        status?;
    }
    Ok(t)
}
