//! Linear scoring of a feature table: the raw features are standardized by a kernel on a
//! cudarc stream, then `scores = Z w` is one cuBLAS `Sgemv`, and the scores come back with a
//! plain synchronous copy.

use std::error::Error;
use std::ffi::c_void;
use std::ptr;

use cudarc::cublas::sys as blas;
use cudarc::driver::{result, sys, CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const STANDARDIZE_SRC: &str = r#"
// raw and z are rows x cols, column-major: one column per feature.
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

struct PinnedAlloc(*mut c_void);

impl Drop for PinnedAlloc {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            let _ = result::free_host(self.0);
        }
    }
}

/// `features` is `rows x cols` column-major; `mean`, `inv_std` and `weights` have `cols`
/// entries. Returns one score per row.
pub fn score_rows(
    features: &[f32],
    mean: &[f32],
    inv_std: &[f32],
    weights: &[f32],
    rows: usize,
    cols: usize,
) -> Result<Vec<f32>> {
    assert_eq!(features.len(), rows * cols);
    assert!(mean.len() == cols && inv_std.len() == cols && weights.len() == cols);

    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
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

    let h_raw = unsafe { result::malloc_host(table_bytes, 0)? } as *mut f32;
    let _free_hraw = PinnedAlloc(h_raw as *mut c_void);
    let h_stats = unsafe { result::malloc_host(2 * col_bytes, 0)? } as *mut f32;
    let _free_hstats = PinnedAlloc(h_stats as *mut c_void);

    unsafe {
        std::slice::from_raw_parts_mut(h_raw, rows * cols).copy_from_slice(features);
        let stats = std::slice::from_raw_parts_mut(h_stats, 2 * cols);
        stats[..cols].copy_from_slice(mean);
        stats[cols..].copy_from_slice(inv_std);

        let s = stream.cu_stream();
        sys::cuMemcpyHtoDAsync_v2(d_raw, h_raw as *const c_void, table_bytes, s).result()?;
        sys::cuMemcpyHtoDAsync_v2(d_mean, h_stats as *const c_void, col_bytes, s).result()?;
        sys::cuMemcpyHtoDAsync_v2(d_inv, h_stats.add(cols) as *const c_void, col_bytes, s)
            .result()?;
        sys::cuMemcpyHtoD_v2(d_w, weights.as_ptr() as *const c_void, col_bytes).result()?;
    }

    let (r, c) = (rows as i32, cols as i32);
    let mut launch = stream.launch_builder(&standardize);
    launch.arg(&d_raw).arg(&d_z).arg(&d_mean).arg(&d_inv).arg(&r).arg(&c);
    unsafe { launch.launch(LaunchConfig::for_num_elems((rows * cols) as u32)) }?;

    let mut handle: blas::cublasHandle_t = ptr::null_mut();
    unsafe { blas::cublasCreate_v2(&mut handle) }.result()?;

    let one = 1.0f32;
    let zero = 0.0f32;
    unsafe {
        blas::cublasSgemv_v2( // EXPECT: missing_sync
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
    }

    let mut scores = vec![0.0f32; rows];
    unsafe {
        sys::cuMemcpyDtoH_v2(scores.as_mut_ptr() as *mut c_void, d_scores, rows * f).result()?;
        blas::cublasDestroy_v2(handle).result()?;
    }
    stream.synchronize()?;
    Ok(scores)
}
