//! A two-layer projection head (`out = W2 (W1 x)`) that owns its cuBLAS handle, its stream
//! and all of its device and pinned buffers, and releases them in `Drop`. Used to project a
//! sequence of embedding batches.

use std::error::Error;
use std::ffi::c_void;
use std::ptr;
use std::sync::Arc;

use cudarc::cublas::sys as blas;
use cudarc::driver::{result, sys, CudaContext};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

pub struct ProjectionHead {
    _ctx: Arc<CudaContext>,
    handle: blas::cublasHandle_t,
    stream: sys::CUstream,
    w1: sys::CUdeviceptr,
    w2: sys::CUdeviceptr,
    x: sys::CUdeviceptr,
    hidden: sys::CUdeviceptr,
    out: sys::CUdeviceptr,
    out_host: *mut f32,
    d_in: usize,
    d_hidden: usize,
    d_out: usize,
    batch: usize,
}

impl ProjectionHead {
    /// `w1` is `d_hidden x d_in`, `w2` is `d_out x d_hidden`, both column-major.
    pub fn new(
        ctx: Arc<CudaContext>,
        w1: &[f32],
        w2: &[f32],
        d_in: usize,
        d_hidden: usize,
        d_out: usize,
        batch: usize,
    ) -> Result<Self> {
        assert_eq!(w1.len(), d_hidden * d_in);
        assert_eq!(w2.len(), d_out * d_hidden);
        let mut head = ProjectionHead {
            _ctx: ctx,
            handle: ptr::null_mut(),
            stream: ptr::null_mut(),
            w1: 0,
            w2: 0,
            x: 0,
            hidden: 0,
            out: 0,
            out_host: ptr::null_mut(),
            d_in,
            d_hidden,
            d_out,
            batch,
        };
        let f = std::mem::size_of::<f32>();
        unsafe {
            sys::cuStreamCreate(&mut head.stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32)
                .result()?;
            blas::cublasCreate_v2(&mut head.handle).result()?;

            head.w1 = result::malloc_sync(w1.len() * f)?;
            head.w2 = result::malloc_sync(w2.len() * f)?;
            head.x = result::malloc_sync(d_in * batch * f)?;
            head.hidden = result::malloc_sync(d_hidden * batch * f)?;
            head.out = result::malloc_sync(d_out * batch * f)?;
            head.out_host = result::malloc_host(d_out * batch * f, 0)? as *mut f32;

            sys::cuMemcpyHtoD_v2(head.w1, w1.as_ptr() as *const c_void, w1.len() * f).result()?;
            sys::cuMemcpyHtoD_v2(head.w2, w2.as_ptr() as *const c_void, w2.len() * f).result()?;
        }
        Ok(head)
    }

    /// Projects one batch, `d_in x batch` column-major, to `d_out x batch`.
    pub fn forward(&mut self, input: &[f32]) -> Result<Vec<f32>> {
        assert_eq!(input.len(), self.d_in * self.batch);
        let f = std::mem::size_of::<f32>();
        let out_len = self.d_out * self.batch;
        let one = 1.0f32;
        let zero = 0.0f32;
        unsafe {
            sys::cuMemcpyHtoD_v2(self.x, input.as_ptr() as *const c_void, input.len() * f)
                .result()?;

            blas::cublasSgemm_v2(
                self.handle,
                blas::cublasOperation_t::CUBLAS_OP_N,
                blas::cublasOperation_t::CUBLAS_OP_N,
                self.d_hidden as i32,
                self.batch as i32,
                self.d_in as i32,
                &one,
                self.w1 as *const f32,
                self.d_hidden as i32,
                self.x as *const f32,
                self.d_in as i32,
                &zero,
                self.hidden as *mut f32,
                self.d_hidden as i32,
            )
            .result()?;
            blas::cublasSgemm_v2(
                self.handle,
                blas::cublasOperation_t::CUBLAS_OP_N,
                blas::cublasOperation_t::CUBLAS_OP_N,
                self.d_out as i32,
                self.batch as i32,
                self.d_hidden as i32,
                &one,
                self.w2 as *const f32,
                self.d_out as i32,
                self.hidden as *const f32,
                self.d_hidden as i32,
                &zero,
                self.out as *mut f32,
                self.d_out as i32,
            )
            .result()?;

            sys::cuMemcpyDtoHAsync_v2(self.out_host as *mut c_void, self.out, out_len * f, self.stream) // EXPECT: missing_sync
                .result()?;
            sys::cuStreamSynchronize(self.stream).result()?;
            Ok(std::slice::from_raw_parts(self.out_host, out_len).to_vec())
        }
    }
}

impl Drop for ProjectionHead {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            if self.w1 != 0 {
                let _ = result::free_sync(self.w1);
            }
            if self.w2 != 0 {
                let _ = result::free_sync(self.w2);
            }
            if self.x != 0 {
                let _ = result::free_sync(self.x);
            }
            if self.hidden != 0 {
                let _ = result::free_sync(self.hidden);
            }
            if self.out != 0 {
                let _ = result::free_sync(self.out);
            }
            if !self.out_host.is_null() {
                let _ = result::free_host(self.out_host as *mut c_void);
            }
            if !self.handle.is_null() {
                let _ = blas::cublasDestroy_v2(self.handle);
            }
            if !self.stream.is_null() {
                let _ = sys::cuStreamDestroy_v2(self.stream);
            }
        }
    }
}

/// Projects every batch in `batches` with one head.
pub fn project_embeddings(
    w1: &[f32],
    w2: &[f32],
    d_in: usize,
    d_hidden: usize,
    d_out: usize,
    batch: usize,
    batches: &[Vec<f32>],
) -> Result<Vec<Vec<f32>>> {
    let ctx = CudaContext::new(0)?;
    let mut head = ProjectionHead::new(ctx, w1, w2, d_in, d_hidden, d_out, batch)?;
    let mut projected = Vec::with_capacity(batches.len());
    for input in batches {
        projected.push(head.forward(input)?);
    }
    Ok(projected)
}
