//! case: a sparse matrix-vector product takes its per-call scratch from the stream-ordered pool (cuMemAllocAsync) and releases it with cuMemFree right after enqueuing the kernels; cuMemFree does no implicit synchronization for pool allocations, so the reduction kernel may still be using the scratch
//! expect: missing_sync=1

use std::ffi::c_void;
use std::mem::size_of;
use std::sync::Arc;

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{self, CUdeviceptr, CUstream};
use cudarc::driver::{CudaContext, CudaFunction};
use cudarc::nvrtc::compile_ptx;

const SPMV_CU: &str = r#"
extern "C" __global__ void csr_products(const int* row_ptr, const int* cols, const float* vals,
                                        const float* x, float* partial, int rows) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0.f;
    for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) acc += vals[k] * x[cols[k]];
    partial[r] = acc;
}
extern "C" __global__ void scale_add(const float* partial, float alpha, float beta, float* y, int rows) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) y[r] = alpha * partial[r] + beta * y[r];
}
"#;

pub struct Csr {
    pub row_ptr: CUdeviceptr,
    pub cols: CUdeviceptr,
    pub vals: CUdeviceptr,
    pub rows: i32,
}

pub struct SpMv {
    _ctx: Arc<CudaContext>,
    products: CudaFunction,
    scale_add: CudaFunction,
    stream: CUstream,
}

impl SpMv {
    pub fn new(ctx: Arc<CudaContext>, stream: CUstream) -> Result<Self, Box<dyn std::error::Error>> {
        let module = ctx.load_module(compile_ptx(SPMV_CU)?)?;
        Ok(Self { _ctx: ctx, products: module.load_function("csr_products")?, scale_add: module.load_function("scale_add")?, stream })
    }

    /// y = alpha * A x + beta * y, enqueued on the solver's stream.
    pub fn apply(&self, a: &Csr, mut x: CUdeviceptr, mut y: CUdeviceptr, mut alpha: f32, mut beta: f32) -> Result<(), DriverError> {
        let mut rows = a.rows;
        let grid = ((rows as u32).div_ceil(256), 1, 1);
        let mut partial: CUdeviceptr = 0;
        let (mut rp, mut cols, mut vals) = (a.row_ptr, a.cols, a.vals);
        unsafe {
            sys::cuMemAllocAsync(&mut partial, rows as usize * size_of::<f32>(), self.stream).result()?;
            let mut p1: [*mut c_void; 6] = [
                (&mut rp as *mut CUdeviceptr).cast(),
                (&mut cols as *mut CUdeviceptr).cast(),
                (&mut vals as *mut CUdeviceptr).cast(),
                (&mut x as *mut CUdeviceptr).cast(),
                (&mut partial as *mut CUdeviceptr).cast(),
                (&mut rows as *mut i32).cast(),
            ];
            result::launch_kernel(self.products.cu_function(), grid, (256, 1, 1), 0, self.stream, &mut p1)?;
            let mut p2: [*mut c_void; 5] = [
                (&mut partial as *mut CUdeviceptr).cast(),
                (&mut alpha as *mut f32).cast(),
                (&mut beta as *mut f32).cast(),
                (&mut y as *mut CUdeviceptr).cast(),
                (&mut rows as *mut i32).cast(),
            ];
            result::launch_kernel(self.scale_add.cu_function(), grid, (256, 1, 1), 0, self.stream, &mut p2)?;
            sys::cuMemFree_v2(partial).result()?; // EXPECT: missing_sync
        }
        Ok(())
    }
}
