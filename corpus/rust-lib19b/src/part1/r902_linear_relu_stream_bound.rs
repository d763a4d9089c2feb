//! Dense layer `y = relu(W x + b)` applied to a stream of mini-batches. The cuBLAS handle,
//! the copies and the activation kernel share one stream; each batch's activations are read
//! once an event recorded after the download has completed.

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
        y[i] = fmaxf(v, 0.0f);
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

/// Runs the layer over `inputs`, `in_features x (batch * num_batches)` column-major, and
/// returns the activations in the same layout.
pub fn linear_relu_batches(
    weights: &[f32],
    bias: &[f32],
    inputs: &[f32],
    out_features: usize,
    in_features: usize,
    batch: usize,
) -> Result<Vec<f32>> {
    let per_batch_in = in_features * batch;
    let per_batch_out = out_features * batch;
    assert!(per_batch_in > 0 && inputs.len() % per_batch_in == 0);
    let num_batches = inputs.len() / per_batch_in;

    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(BIAS_RELU_SRC)?)?;
    let bias_relu = module.load_function("bias_relu")?;

    let f = std::mem::size_of::<f32>();
    let w_bytes = weights.len() * f;
    let b_bytes = bias.len() * f;
    let x_bytes = per_batch_in * f;
    let y_bytes = per_batch_out * f;

    let d_w = unsafe { result::malloc_sync(w_bytes)? };
    let _free_w = DeviceAlloc(d_w);
    let d_b = unsafe { result::malloc_sync(b_bytes)? };
    let _free_b = DeviceAlloc(d_b);
    let d_x = unsafe { result::malloc_sync(x_bytes)? };
    let _free_x = DeviceAlloc(d_x);
    let d_y = unsafe { result::malloc_sync(y_bytes)? };
    let _free_y = DeviceAlloc(d_y);

    let h_params = unsafe { result::malloc_host(w_bytes + b_bytes, 0)? } as *mut f32;
    let _free_params = PinnedAlloc(h_params as *mut c_void);
    let h_x = unsafe { result::malloc_host(x_bytes, 0)? } as *mut f32;
    let _free_hx = PinnedAlloc(h_x as *mut c_void);
    let h_y = unsafe { result::malloc_host(y_bytes, 0)? } as *mut f32;
    let _free_hy = PinnedAlloc(h_y as *mut c_void);

    let mut handle: blas::cublasHandle_t = ptr::null_mut();
    unsafe {
        blas::cublasCreate_v2(&mut handle).result()?;
        blas::cublasSetStream_v2(handle, stream.cu_stream() as blas::cudaStream_t).result()?;
    }

    unsafe {
        let params = std::slice::from_raw_parts_mut(h_params, weights.len() + bias.len());
        params[..weights.len()].copy_from_slice(weights);
        params[weights.len()..].copy_from_slice(bias);
        sys::cuMemcpyHtoDAsync_v2(d_w, h_params as *const c_void, w_bytes, stream.cu_stream())
            .result()?;
        sys::cuMemcpyHtoDAsync_v2(
            d_b,
            h_params.add(weights.len()) as *const c_void,
            b_bytes,
            stream.cu_stream(),
        )
        .result()?;
    }

    let (m, n, k) = (out_features as i32, batch as i32, in_features as i32);
    let alpha = 1.0f32;
    let beta = 0.0f32;
    let cfg = LaunchConfig::for_num_elems(per_batch_out as u32);
    let mut activations = Vec::with_capacity(num_batches * per_batch_out);

    for chunk in inputs.chunks_exact(per_batch_in) {
        unsafe {
            std::slice::from_raw_parts_mut(h_x, per_batch_in).copy_from_slice(chunk);
            sys::cuMemcpyHtoDAsync_v2(d_x, h_x as *const c_void, x_bytes, stream.cu_stream())
                .result()?;

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
            .result()?;
        }

        let mut launch = stream.launch_builder(&bias_relu);
        launch.arg(&d_y).arg(&d_b).arg(&m).arg(&n);
        unsafe { launch.launch(cfg) }?;

        unsafe {
            sys::cuMemcpyDtoHAsync_v2(h_y as *mut c_void, d_y, y_bytes, stream.cu_stream())
                .result()?;
        }
        let downloaded = stream.record_event(None)?;
        downloaded.synchronize()?;

        let out = unsafe { std::slice::from_raw_parts(h_y, per_batch_out) };
        activations.extend_from_slice(out);
    }

    unsafe { blas::cublasDestroy_v2(handle) }.result()?;
    Ok(activations)
}
