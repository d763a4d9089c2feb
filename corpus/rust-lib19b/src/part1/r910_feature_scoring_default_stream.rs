//! Linear scoring of several feature tables in turn. Each table goes up with a synchronous
//! copy, is standardized by a kernel on the context's default stream and scored with
//! cuBLAS `Sgemv` on a handle that keeps the default stream; the scores come back with a
//! synchronous copy.

use std::error::Error;
use std::ffi::c_void;
use std::ptr;

use cudarc::cublas::sys as blas;
use cudarc::driver::{result, sys, CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const STANDARDIZE_SRC: &str = r#"
extern "C" __global__ void standardize(const float* raw, float* z, const float* mean,
                                       const float* inv_std, int rows, int cols) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows * cols) {
        int c = i / rows;
        z[i] = (raw[i] - mean[c]) * inv_std[c];
    }
}
"#;

struct DeviceAlloc(sys::CUdeviceptr);

impl Drop for DeviceAlloc {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            let _ = result::free_sync(self.0);
        }
    }
}

/// Every table is `rows x cols` column-major. Returns the scores of each table.
pub fn score_tables(
    tables: &[Vec<f32>],
    mean: &[f32],
    inv_std: &[f32],
    weights: &[f32],
    rows: usize,
    cols: usize,
) -> Result<Vec<Vec<f32>>> {
    assert!(mean.len() == cols && inv_std.len() == cols && weights.len() == cols);

    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let standardize = ctx
        .load_module(compile_ptx(STANDARDIZE_SRC)?)?
        .load_function("standardize")?;

    let f = std::mem::size_of::<f32>();
    let table_bytes = rows * cols * f;
    let col_bytes = cols * f;

    let d_raw = unsafe { result::malloc_sync(table_bytes)? };
    let _free_raw = DeviceAlloc(d_raw);
    let d_z = unsafe { result::malloc_sync(table_bytes)? };
    let _free_z = DeviceAlloc(d_z);
    let d_mean = unsafe { result::malloc_sync(col_bytes)? };
    let _free_mean = DeviceAlloc(d_mean);
    let d_inv = unsafe { result::malloc_sync(col_bytes)? };
    let _free_inv = DeviceAlloc(d_inv);
    let d_w = unsafe { result::malloc_sync(col_bytes)? };
    let _free_w = DeviceAlloc(d_w);
    let d_scores = unsafe { result::malloc_sync(rows * f)? };
    let _free_scores = DeviceAlloc(d_scores);

    unsafe {
        sys::cuMemcpyHtoD_v2(d_mean, mean.as_ptr() as *const c_void, col_bytes).result()?;
        sys::cuMemcpyHtoD_v2(d_inv, inv_std.as_ptr() as *const c_void, col_bytes).result()?;
        sys::cuMemcpyHtoD_v2(d_w, weights.as_ptr() as *const c_void, col_bytes).result()?;
    }

    let mut handle: blas::cublasHandle_t = ptr::null_mut();
    unsafe { blas::cublasCreate_v2(&mut handle) }.result()?;

    let (r, c) = (rows as i32, cols as i32);
    let cfg = LaunchConfig::for_num_elems((rows * cols) as u32);
    let one = 1.0f32;
    let zero = 0.0f32;
    let mut all_scores = Vec::with_capacity(tables.len());

    for table in tables {
        assert_eq!(table.len(), rows * cols);
        unsafe {
            sys::cuMemcpyHtoD_v2(d_raw, table.as_ptr() as *const c_void, table_bytes).result()?;
        }

        let mut launch = stream.launch_builder(&standardize);
        launch.arg(&d_raw).arg(&d_z).arg(&d_mean).arg(&d_inv).arg(&r).arg(&c);
        unsafe { launch.launch(cfg) }?;

        let mut scores = vec![0.0f32; rows];
        unsafe {
            blas::cublasSgemv_v2(
                handle,
                blas::cublasOperation_t::CUBLAS_OP_N,
                r,
                c,
                &one,
                d_z as *const f32,
                r,
                d_w as *const f32,
                1,
                &zero,
                d_scores as *mut f32,
                1,
            )
            .result()?;
            sys::cuMemcpyDtoH_v2(scores.as_mut_ptr() as *mut c_void, d_scores, rows * f)
                .result()?;
        }
        all_scores.push(scores);
    }

    unsafe { blas::cublasDestroy_v2(handle) }.result()?;
    Ok(all_scores)
}
