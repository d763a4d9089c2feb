//! Dense layer forward pass, `y = relu(W x + b)`, with cuBLAS for the product and a small
//! NVRTC kernel for the bias and activation. Column-major throughout: `W` is
//! `out_features x in_features`, `x` is `in_features x batch`, `y` is `out_features x batch`.

use std::error::Error;
use std::ffi::c_void;
use std::ptr;

use cudarc::cublas::sys as blas;
use cudarc::driver::{result, sys, CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const BIAS_RELU_SRC: &str = r#"
extern "C" __global__ void bias_relu(float* y, const float* bias, int rows, int cols) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows * cols) {
        float v = y[i] + bias[i % rows];
        y[i] = v > 0.0f ? v : 0.0f;
    }
}
"#;

/// Releases a device allocation when it goes out of scope, after the context is idle.
struct DeviceAlloc(sys::CUdeviceptr);

impl Drop for DeviceAlloc {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            let _ = result::free_sync(self.0);
        }
    }
}

/// Releases page-locked host memory when it goes out of scope, after the context is idle.
struct PinnedAlloc(*mut c_void);

impl Drop for PinnedAlloc {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            let _ = result::free_host(self.0);
        }
    }
}

pub fn linear_relu_forward(
    weights: &[f32],
    inputs: &[f32],
    bias: &[f32],
    out_features: usize,
    in_features: usize,
    batch: usize,
) -> Result<Vec<f32>> {
    assert_eq!(weights.len(), out_features * in_features);
    assert_eq!(inputs.len(), in_features * batch);
    assert_eq!(bias.len(), out_features);

    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(BIAS_RELU_SRC)?)?;
    let bias_relu = module.load_function("bias_relu")?;

    let f = std::mem::size_of::<f32>();
    let w_bytes = weights.len() * f;
    let x_bytes = inputs.len() * f;
    let b_bytes = bias.len() * f;
    let y_bytes = out_features * batch * f;

    let d_w = unsafe { result::malloc_sync(w_bytes)? };
    let _free_w = DeviceAlloc(d_w);
    let d_x = unsafe { result::malloc_sync(x_bytes)? };
    let _free_x = DeviceAlloc(d_x);
    let d_b = unsafe { result::malloc_sync(b_bytes)? };
    let _free_b = DeviceAlloc(d_b);
    let d_y = unsafe { result::malloc_sync(y_bytes)? };
    let _free_y = DeviceAlloc(d_y);

    let h_b = unsafe { result::malloc_host(b_bytes, 0)? } as *mut f32;
    let _free_hb = PinnedAlloc(h_b as *mut c_void);
    let h_y = unsafe { result::malloc_host(y_bytes, 0)? } as *mut f32;
    let _free_hy = PinnedAlloc(h_y as *mut c_void);

    let mut handle: blas::cublasHandle_t = ptr::null_mut();
    unsafe { blas::cublasCreate_v2(&mut handle) }.result()?;

    unsafe {
        // Parameters go up once; the bias is staged through pinned memory for the kernel.
        sys::cuMemcpyHtoD_v2(d_w, weights.as_ptr() as *const c_void, w_bytes).result()?;
        sys::cuMemcpyHtoD_v2(d_x, inputs.as_ptr() as *const c_void, x_bytes).result()?;
        std::slice::from_raw_parts_mut(h_b, bias.len()).copy_from_slice(bias);
        sys::cuMemcpyHtoDAsync_v2(d_b, h_b as *const c_void, b_bytes, stream.cu_stream())
            .result()?;
    }

    let (m, n, k) = (out_features as i32, batch as i32, in_features as i32);
    let alpha = 1.0f32;
    let beta = 0.0f32;
    unsafe {
        blas::cublasSgemm_v2(
            handle,
            blas::cublasOperation_t::CUBLAS_OP_N,
            blas::cublasOperation_t::CUBLAS_OP_N,
            m,
            n,
            k,
            &alpha,
            d_w as *const f32,
            m,
            d_x as *const f32,
            k,
            &beta,
            d_y as *mut f32,
            m,
        )
    }
    .result()?;

    let rows = m;
    let cols = n;
    let cfg = LaunchConfig::for_num_elems((out_features * batch) as u32);
    let mut launch = stream.launch_builder(&bias_relu);
    launch.arg(&d_y).arg(&d_b).arg(&rows).arg(&cols);
    unsafe { launch.launch(cfg) }?; // EXPECT: missing_sync

    unsafe {
        sys::cuMemcpyDtoHAsync_v2(h_y as *mut c_void, d_y, y_bytes, stream.cu_stream()).result()?;
    }
    stream.synchronize()?;

    let activations = unsafe { std::slice::from_raw_parts(h_y, out_features * batch) }.to_vec();

    ctx.synchronize()?;
    unsafe { blas::cublasDestroy_v2(handle) }.result()?;
    Ok(activations)
}
