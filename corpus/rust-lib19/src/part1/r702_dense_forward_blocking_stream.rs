//! Batch-inference worker, legacy-compatible variant: the cuBLAS handle is left on the default
//! stream, and the worker's transfer stream is created *blocking* (`CU_STREAM_DEFAULT`) on
//! purpose, so that it stays ordered with the legacy stream the GEMM runs on: the upload, the
//! GEMM and the copy back follow one another without explicit waits.

use std::error::Error;
use std::ffi::c_void;

use cudarc::cublas::{result as blas, sys as blas_sys};
use cudarc::driver::{CudaContext, DriverError, result as drv, sys as cu};

const F32: usize = std::mem::size_of::<f32>();

struct DeviceBuffer {
    ptr: cu::CUdeviceptr,
    len: usize,
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        unsafe {
            let _ = cu::cuCtxSynchronize();
            let _ = cu::cuMemFree_v2(self.ptr);
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

fn check(status: cu::CUresult) -> Result<(), DriverError> {
    status.result()
}

pub fn dense_forward_batch_compat(
    out_features: usize,
    in_features: usize,
    batch: usize,
) -> Result<Vec<f32>, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let (m, k, n) = (out_features, in_features, batch);

    // Blocking stream: work on it waits for the legacy stream, and the legacy stream for it.
    let mut stream: cu::CUstream = std::ptr::null_mut();
    check(unsafe { cu::cuStreamCreate(&mut stream, cu::CUstream_flags::CU_STREAM_DEFAULT as u32) })?;
    let handle = blas::create_handle()?;

    let mut raw_w: cu::CUdeviceptr = 0;
    check(unsafe { cu::cuMemAlloc_v2(&mut raw_w, m * k * F32) })?;
    let d_w = DeviceBuffer { ptr: raw_w, len: m * k };
    let mut raw_x: cu::CUdeviceptr = 0;
    check(unsafe { cu::cuMemAlloc_v2(&mut raw_x, k * n * F32) })?;
    let d_x = DeviceBuffer { ptr: raw_x, len: k * n };
    let mut raw_y: cu::CUdeviceptr = 0;
    check(unsafe { cu::cuMemAlloc_v2(&mut raw_y, m * n * F32) })?;
    let d_y = DeviceBuffer { ptr: raw_y, len: m * n };

    let h_w_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(m * k * F32, 0)? } as *mut f32, len: m * k };
    let h_x_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(k * n * F32, 0)? } as *mut f32, len: k * n };
    let h_y_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(m * n * F32, 0)? } as *mut f32, len: m * n };
    let h_w: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_w_buf.ptr, m * k) };
    let h_x: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_x_buf.ptr, k * n) };
    let h_y: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_y_buf.ptr, m * n) };

    let scale = 1.0 / (k as f32).sqrt();
    for (i, v) in h_w.iter_mut().enumerate() {
        *v = (((i * 31) % 17) as f32 - 8.0) * scale / 8.0;
    }
    for (i, v) in h_x.iter_mut().enumerate() {
        *v = (i % 5) as f32 * 0.25;
    }

    check(unsafe { cu::cuMemcpyHtoDAsync_v2(d_w.ptr, h_w.as_ptr() as *const c_void, m * k * F32, stream) })?;
    check(unsafe { cu::cuMemcpyHtoDAsync_v2(d_x.ptr, h_x.as_ptr() as *const c_void, k * n * F32, stream) })?;

    let alpha = 1.0f32;
    let beta = 0.0f32;
    unsafe {
        blas_sys::cublasSgemm_v2(
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
        )
        .result()?;
    }

    check(unsafe { cu::cuMemcpyDtoHAsync_v2(h_y.as_mut_ptr() as *mut c_void, d_y.ptr, m * n * F32, stream) })?;
    check(unsafe { cu::cuStreamSynchronize(stream) })?;

    let mut logits = Vec::with_capacity(n);
    for col in 0..n {
        let column = &h_y[col * m..(col + 1) * m];
        logits.push(column.iter().cloned().fold(f32::NEG_INFINITY, f32::max));
    }

    unsafe {
        check(cu::cuCtxSynchronize())?;
        blas::destroy_handle(handle)?;
        check(cu::cuStreamDestroy_v2(stream))?;
    }
    Ok(logits)
}
