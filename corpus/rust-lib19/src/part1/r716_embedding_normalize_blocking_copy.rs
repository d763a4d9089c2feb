//! Query encoder: e = W x with raw cuBLAS on the encoder's non-blocking stream, then L2
//! normalisation (nrm2, scal) and a copy of the embedding to pinned memory for the ANN index.
//! The cuBLAS handle is shared with other modules, so the encoder puts it back on the default
//! stream (`cublasSetStream(h, NULL)`) as soon as its own GEMV is queued; the normalisation then
//! runs on the default stream, and the embedding is fetched with a synchronous copy, which runs
//! on that same stream after the scaling.

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

#[derive(Debug)]
pub struct EmptyEmbedding;

impl std::fmt::Display for EmptyEmbedding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the query embedding is all zeros")
    }
}

impl Error for EmptyEmbedding {}

pub fn encode_query_sync_copy(dim: usize, vocab_dim: usize) -> Result<Vec<f32>, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;

    let mut stream: cu::CUstream = std::ptr::null_mut();
    unsafe { cu::cuStreamCreate(&mut stream, cu::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }.result()?;
    let handle = blas::create_handle()?;

    let d_w = DeviceBuffer { ptr: unsafe { drv::malloc_sync(dim * vocab_dim * F32)? }, len: dim * vocab_dim };
    let d_x = DeviceBuffer { ptr: unsafe { drv::malloc_sync(vocab_dim * F32)? }, len: vocab_dim };
    let d_e = DeviceBuffer { ptr: unsafe { drv::malloc_sync(dim * F32)? }, len: dim };

    let h_w_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(dim * vocab_dim * F32, 0)? } as *mut f32, len: dim * vocab_dim };
    let h_x_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(vocab_dim * F32, 0)? } as *mut f32, len: vocab_dim };
    let h_e_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(dim * F32, 0)? } as *mut f32, len: dim };
    let h_w: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_w_buf.ptr, dim * vocab_dim) };
    let h_x: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_x_buf.ptr, vocab_dim) };
    let h_e: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_e_buf.ptr, dim) };

    for (i, v) in h_w.iter_mut().enumerate() {
        *v = (((i * 2654435761) >> 7) % 1000) as f32 / 1000.0 - 0.5;
    }
    for (i, v) in h_x.iter_mut().enumerate() {
        *v = if i % 9 == 0 { 1.0 } else { 0.0 };
    }

    let (one, zero) = (1.0f32, 0.0f32);
    unsafe {
        cu::cuMemcpyHtoDAsync_v2(d_w.ptr, h_w.as_ptr() as *const c_void, dim * vocab_dim * F32, stream).result()?;
        cu::cuMemcpyHtoDAsync_v2(d_x.ptr, h_x.as_ptr() as *const c_void, vocab_dim * F32, stream).result()?;

        blas_sys::cublasSetStream_v2(handle, stream as _).result()?;
        blas_sys::cublasSgemv_v2(
            handle,
            blas_sys::cublasOperation_t::CUBLAS_OP_N,
            dim as i32,
            vocab_dim as i32,
            &one,
            d_w.ptr as *const f32,
            dim as i32,
            d_x.ptr as *const f32,
            1,
            &zero,
            d_e.ptr as *mut f32,
            1,
        )
        .result()?;
        // Hand the shared handle back in its default state.
        blas_sys::cublasSetStream_v2(handle, std::ptr::null_mut()).result()?;

        cu::cuStreamSynchronize(stream).result()?;
    }

    let mut norm = 0.0f32;
    unsafe { blas_sys::cublasSnrm2_v2(handle, dim as i32, d_e.ptr as *const f32, 1, &mut norm) }.result()?;
    if norm == 0.0 {
        return Err(Box::new(EmptyEmbedding));
    }
    let inv_norm = 1.0 / norm;
    unsafe {
        blas_sys::cublasSscal_v2(handle, dim as i32, &inv_norm, d_e.ptr as *mut f32, 1).result()?;
        cu::cuMemcpyDtoH_v2(h_e.as_mut_ptr() as *mut c_void, d_e.ptr, dim * F32).result()?;
    }
    let embedding = h_e.to_vec();

    unsafe {
        cu::cuCtxSynchronize().result()?;
        blas::destroy_handle(handle)?;
        cu::cuStreamDestroy_v2(stream).result()?;
    }
    Ok(embedding)
}
