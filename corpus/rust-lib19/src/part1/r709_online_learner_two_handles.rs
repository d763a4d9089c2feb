//! Online linear learner. The update path applies w -= lr * g with its own cuBLAS handle on
//! the update stream; the serving path scores the next batch (s = X w) with a second handle on
//! the serving stream, so that serving is never queued behind a long optimizer step. Both
//! streams are non-blocking.

use std::error::Error;
use std::ffi::c_void;

use cudarc::cublas::{result as blas, sys as blas_sys};
use cudarc::driver::{CudaContext, result as drv, sys as cu};

const F32: usize = std::mem::size_of::<f32>();

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

pub struct StepOutcome {
    pub best_row: usize,
    pub best_score: f32,
}

pub fn update_then_serve(
    features: usize,
    batch: usize,
    learning_rate: f32,
) -> Result<StepOutcome, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;

    let mut update_stream: cu::CUstream = std::ptr::null_mut();
    unsafe { cu::cuStreamCreate(&mut update_stream, cu::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }
        .result()?;
    let mut serve_stream: cu::CUstream = std::ptr::null_mut();
    unsafe { cu::cuStreamCreate(&mut serve_stream, cu::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }
        .result()?;

    let update_blas = blas::create_handle()?;
    unsafe { blas_sys::cublasSetStream_v2(update_blas, update_stream as _) }.result()?;
    let serve_blas = blas::create_handle()?;
    unsafe { blas_sys::cublasSetStream_v2(serve_blas, serve_stream as _) }.result()?;

    let d_w = DeviceBuffer { ptr: unsafe { drv::malloc_sync(features * F32)? }, len: features };
    let d_grad = DeviceBuffer { ptr: unsafe { drv::malloc_sync(features * F32)? }, len: features };
    let d_batch = DeviceBuffer { ptr: unsafe { drv::malloc_sync(batch * features * F32)? }, len: batch * features };
    let d_scores = DeviceBuffer { ptr: unsafe { drv::malloc_sync(batch * F32)? }, len: batch };

    let h_w_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(features * F32, 0)? } as *mut f32, len: features };
    let h_grad_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(features * F32, 0)? } as *mut f32, len: features };
    let h_batch_buf = PinnedBuffer {
        ptr: unsafe { drv::malloc_host(batch * features * F32, 0)? } as *mut f32,
        len: batch * features,
    };
    let h_scores_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(batch * F32, 0)? } as *mut f32, len: batch };
    let h_w: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_w_buf.ptr, features) };
    let h_grad: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_grad_buf.ptr, features) };
    let h_batch: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_batch_buf.ptr, batch * features) };
    let h_scores: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_scores_buf.ptr, batch) };

    h_w.fill(0.01);
    for (j, g) in h_grad.iter_mut().enumerate() {
        *g = ((j % 7) as f32 - 3.0) * 0.1;
    }
    for (i, x) in h_batch.iter_mut().enumerate() {
        *x = ((i * 13) % 29) as f32 / 29.0;
    }

    unsafe {
        cu::cuMemcpyHtoDAsync_v2(d_w.ptr, h_w.as_ptr() as *const c_void, features * F32, update_stream).result()?;
        cu::cuMemcpyHtoDAsync_v2(d_grad.ptr, h_grad.as_ptr() as *const c_void, features * F32, update_stream)
            .result()?;
        cu::cuMemcpyHtoDAsync_v2(d_batch.ptr, h_batch.as_ptr() as *const c_void, batch * features * F32, serve_stream)
            .result()?;
        // Everything staged before the first step.
        cu::cuCtxSynchronize().result()?;
    }

    // Optimizer step on the update stream.
    let neg_lr = -learning_rate;
    unsafe {
        blas_sys::cublasSaxpy_v2(update_blas, features as i32, &neg_lr, d_grad.ptr as *const f32, 1, d_w.ptr as *mut f32, 1)
            .result()?;
    }

    // Serve the next batch with the updated weights.
    let (one, zero) = (1.0f32, 0.0f32);
    unsafe {
        blas_sys::cublasSgemv_v2( // EXPECT: missing_sync
            serve_blas,
            blas_sys::cublasOperation_t::CUBLAS_OP_N,
            batch as i32,
            features as i32,
            &one,
            d_batch.ptr as *const f32,
            batch as i32,
            d_w.ptr as *const f32,
            1,
            &zero,
            d_scores.ptr as *mut f32,
            1,
        )
        .result()?;
        cu::cuMemcpyDtoHAsync_v2(h_scores.as_mut_ptr() as *mut c_void, d_scores.ptr, batch * F32, serve_stream)
            .result()?;
        cu::cuStreamSynchronize(serve_stream).result()?;
    }

    let (best_row, best_score) = h_scores
        .iter()
        .copied()
        .enumerate()
        .fold((0, f32::NEG_INFINITY), |best, (i, s)| if s > best.1 { (i, s) } else { best });

    unsafe {
        cu::cuStreamSynchronize(update_stream).result()?;
        blas::destroy_handle(update_blas)?;
        blas::destroy_handle(serve_blas)?;
        cu::cuStreamDestroy_v2(update_stream).result()?;
        cu::cuStreamDestroy_v2(serve_stream).result()?;
    }
    Ok(StepOutcome { best_row, best_score })
}
