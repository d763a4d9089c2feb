//! Batch-inference worker: one dense layer, Y = W * X (column-major), computed with raw cuBLAS
//! and copied back to pinned memory for the post-processing thread. The worker owns a
//! non-blocking transfer stream; the cuBLAS handle is created with `cublasCreate` and used as is.

use std::error::Error;
use std::ffi::c_void;

use cudarc::cublas::{result as blas, sys as blas_sys};
use cudarc::driver::{CudaContext, result as drv, sys as cu};

const F32: usize = std::mem::size_of::<f32>();

/// Device memory from `cuMemAlloc`, released when dropped (after the context is idle, so that
/// an early error return never frees memory that queued work still uses).
struct DeviceBuffer {
    ptr: cu::CUdeviceptr,
    len: usize,
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        unsafe {
            let _ = cu::cuCtxSynchronize();
            let _ = drv::free_sync(self.ptr);
        }
    }
}

/// Page-locked host memory from `cuMemHostAlloc`, released when dropped.
struct PinnedBuffer {
    ptr: *mut f32,
    len: usize,
}

impl Drop for PinnedBuffer {
    fn drop(&mut self) {
        unsafe {
            let _ = cu::cuCtxSynchronize();
            let _ = drv::free_host(self.ptr as *mut c_void);
        }
    }
}

pub struct DenseShape {
    pub out_features: usize,
    pub in_features: usize,
    pub batch: usize,
}

fn init_weights(w: &mut [f32], fan_in: usize) {
    let scale = 1.0 / (fan_in as f32).sqrt();
    for (i, v) in w.iter_mut().enumerate() {
        *v = (((i * 7919) % 97) as f32 / 97.0 - 0.5) * scale;
    }
}

fn init_batch(x: &mut [f32], batch: usize) {
    for (i, v) in x.iter_mut().enumerate() {
        *v = ((i % batch) as f32 + 1.0) / batch as f32;
    }
}

pub fn dense_forward_batch(shape: DenseShape) -> Result<f32, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let (m, k, n) = (shape.out_features, shape.in_features, shape.batch);

    let mut stream: cu::CUstream = std::ptr::null_mut();
    unsafe { cu::cuStreamCreate(&mut stream, cu::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }
        .result()?;
    let handle = blas::create_handle()?;

    let d_w = DeviceBuffer { ptr: unsafe { drv::malloc_sync(m * k * F32)? }, len: m * k };
    let d_x = DeviceBuffer { ptr: unsafe { drv::malloc_sync(k * n * F32)? }, len: k * n };
    let d_y = DeviceBuffer { ptr: unsafe { drv::malloc_sync(m * n * F32)? }, len: m * n };

    let h_w_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(m * k * F32, 0)? } as *mut f32, len: m * k };
    let h_x_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(k * n * F32, 0)? } as *mut f32, len: k * n };
    let h_y_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(m * n * F32, 0)? } as *mut f32, len: m * n };
    let h_w: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_w_buf.ptr, m * k) };
    let h_x: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_x_buf.ptr, k * n) };
    let h_y: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_y_buf.ptr, m * n) };

    init_weights(h_w, k);
    init_batch(h_x, n);

    // Stage the weights and the batch, and wait for them before the GEMM.
    unsafe {
        cu::cuMemcpyHtoDAsync_v2(d_w.ptr, h_w.as_ptr() as *const c_void, m * k * F32, stream).result()?;
        cu::cuMemcpyHtoDAsync_v2(d_x.ptr, h_x.as_ptr() as *const c_void, k * n * F32, stream).result()?;
        cu::cuStreamSynchronize(stream).result()?;
    }

    let alpha = 1.0f32;
    let beta = 0.0f32;
    unsafe {
        blas::sgemm(
            handle,
            blas_sys::cublasOperation_t::CUBLAS_OP_N,
            blas_sys::cublasOperation_t::CUBLAS_OP_N,
            m as i32,
            n as i32,
            k as i32,
            &alpha,
            d_w.ptr as *const f32,
            m as i32,
            d_x.ptr as *const f32,
            k as i32,
            &beta,
            d_y.ptr as *mut f32,
            m as i32,
        )?;
    }

    unsafe {
        cu::cuMemcpyDtoHAsync_v2(h_y.as_mut_ptr() as *mut c_void, d_y.ptr, m * n * F32, stream).result()?; // EXPECT: missing_sync
        cu::cuStreamSynchronize(stream).result()?;
    }

    let mean_abs = h_y.iter().map(|v| v.abs()).sum::<f32>() / (m * n) as f32;

    unsafe {
        cu::cuCtxSynchronize().result()?;
        blas::destroy_handle(handle)?;
        cu::cuStreamDestroy_v2(stream).result()?;
    }
    Ok(mean_abs)
}
