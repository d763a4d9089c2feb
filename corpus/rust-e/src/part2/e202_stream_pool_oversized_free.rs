//! case: a stream-ordered caching pool hands oversized blocks back to the driver with cuMemFree as soon as the caller releases them; the blocks come from cuMemAllocAsync, so the free does not wait for the kernel still using the scratch block
//! expect: missing_sync=1

use std::ffi::{c_void, CString};

use cudarc::driver::{result, sys, DriverError};
use cudarc::nvrtc::compile_ptx;

const SOFTMAX_SRC: &str = r#"
extern "C" __global__ void row_max(const float* x, float* scratch, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float m = -3.4e38f;
    for (int c = 0; c < cols; ++c) m = fmaxf(m, x[r * cols + c]);
    scratch[r] = m;
}
extern "C" __global__ void row_softmax(const float* x, const float* scratch, float* y, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float s = 0.f;
    for (int c = 0; c < cols; ++c) s += __expf(x[r * cols + c] - scratch[r]);
    for (int c = 0; c < cols; ++c) y[r * cols + c] = __expf(x[r * cols + c] - scratch[r]) / s;
}
"#;

pub struct StreamPool {
    stream: sys::CUstream,
    cached: Vec<(sys::CUdeviceptr, usize)>,
    max_cached_block: usize,
}

impl StreamPool {
    pub fn new(stream: sys::CUstream, max_cached_block: usize) -> Self {
        Self { stream, cached: Vec::new(), max_cached_block }
    }

    pub unsafe fn alloc(&mut self, bytes: usize) -> Result<sys::CUdeviceptr, DriverError> {
        if let Some(pos) = self.cached.iter().position(|&(_, b)| b >= bytes) {
            return Ok(self.cached.swap_remove(pos).0);
        }
        let mut ptr: sys::CUdeviceptr = 0;
        unsafe { sys::cuMemAllocAsync(&mut ptr, bytes, self.stream) }.result()?;
        Ok(ptr)
    }

    pub unsafe fn release(&mut self, ptr: sys::CUdeviceptr, bytes: usize) -> Result<(), DriverError> {
        if bytes > self.max_cached_block {
            // too big to keep around: give it back right away
            unsafe { sys::cuMemFree_v2(ptr) }.result() // EXPECT: missing_sync
        } else {
            self.cached.push((ptr, bytes));
            Ok(())
        }
    }
}

pub struct Softmax {
    row_max: sys::CUfunction,
    row_softmax: sys::CUfunction,
    _module: sys::CUmodule,
}

impl Softmax {
    pub fn load() -> Result<Self, Box<dyn std::error::Error>> {
        let ptx = CString::new(compile_ptx(SOFTMAX_SRC)?.to_src())?;
        let module = unsafe { result::module::load_data(ptx.as_ptr() as *const c_void)? };
        let row_max = unsafe { result::module::get_function(module, CString::new("row_max")?)? };
        let row_softmax = unsafe { result::module::get_function(module, CString::new("row_softmax")?)? };
        Ok(Self { row_max, row_softmax, _module: module })
    }

    /// y = softmax(x) row-wise; `scratch` holds one max per row.
    pub unsafe fn forward(&self, pool: &mut StreamPool, x: sys::CUdeviceptr, y: sys::CUdeviceptr, rows: i32, cols: i32) -> Result<(), DriverError> {
        let scratch_bytes = rows as usize * std::mem::size_of::<f32>();
        let mut scratch = unsafe { pool.alloc(scratch_bytes)? };
        let (mut x, mut y, mut rows_v, mut cols_v) = (x, y, rows, cols);
        let grid = ((rows as u32).div_ceil(128), 1, 1);
        let mut args1: [*mut c_void; 4] = [
            &mut x as *mut _ as *mut c_void,
            &mut scratch as *mut _ as *mut c_void,
            &mut rows_v as *mut _ as *mut c_void,
            &mut cols_v as *mut _ as *mut c_void,
        ];
        unsafe { result::launch_kernel(self.row_max, grid, (128, 1, 1), 0, pool.stream, &mut args1)? };
        let mut args2: [*mut c_void; 5] = [
            &mut x as *mut _ as *mut c_void,
            &mut scratch as *mut _ as *mut c_void,
            &mut y as *mut _ as *mut c_void,
            &mut rows_v as *mut _ as *mut c_void,
            &mut cols_v as *mut _ as *mut c_void,
        ];
        unsafe { result::launch_kernel(self.row_softmax, grid, (128, 1, 1), 0, pool.stream, &mut args2)? };
        unsafe { pool.release(scratch, scratch_bytes) }
    }
}
