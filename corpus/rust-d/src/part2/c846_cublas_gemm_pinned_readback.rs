//! case: a dense projection (cudarc + cuBLAS) fills the operands in pinned memory allocated with flags 0, runs `gemm` on the handle's stream, copies C into another flags-0 pinned buffer on that same stream and synchronizes it before reading: one stream, an explicit wait, no write-combined memory
//! expect: none

use std::sync::Arc;

use cudarc::cublas::sys::cublasOperation_t;
use cudarc::cublas::{CudaBlas, Gemm, GemmConfig};
use cudarc::driver::{CudaContext, CudaStream, PinnedHostSlice};

pub struct Projection {
    stream: Arc<CudaStream>,
    blas: CudaBlas,
    a_host: PinnedHostSlice<f32>,
    b_host: PinnedHostSlice<f32>,
    c_host: PinnedHostSlice<f32>,
    m: usize,
    n: usize,
    k: usize,
}

impl Projection {
    pub fn new(ctx: &Arc<CudaContext>, m: usize, n: usize, k: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.default_stream();
        Ok(Self {
            blas: CudaBlas::new(stream.clone())?,
            a_host: unsafe { ctx.alloc_pinned_with_flags::<f32>(m * k, 0)? },
            b_host: unsafe { ctx.alloc_pinned_with_flags::<f32>(k * n, 0)? },
            c_host: unsafe { ctx.alloc_pinned_with_flags::<f32>(m * n, 0)? },
            stream,
            m,
            n,
            k,
        })
    }

    /// C = A * B (column-major), returns the Frobenius norm of C.
    pub fn project(&mut self, fill_a: impl Fn(usize) -> f32, fill_b: impl Fn(usize) -> f32) -> Result<f32, Box<dyn std::error::Error>> {
        self.a_host.as_mut_slice()?.iter_mut().enumerate().for_each(|(i, v)| *v = fill_a(i));
        self.b_host.as_mut_slice()?.iter_mut().enumerate().for_each(|(i, v)| *v = fill_b(i));
        let a = self.stream.clone_htod(&self.a_host)?;
        let b = self.stream.clone_htod(&self.b_host)?;
        let mut c = self.stream.alloc_zeros::<f32>(self.m * self.n)?;

        let (m, n, k) = (self.m as i32, self.n as i32, self.k as i32);
        let cfg = GemmConfig {
            transa: cublasOperation_t::CUBLAS_OP_N,
            transb: cublasOperation_t::CUBLAS_OP_N,
            m,
            n,
            k,
            alpha: 1.0f32,
            lda: m,
            ldb: k,
            beta: 0.0f32,
            ldc: m,
        };
        unsafe { self.blas.gemm(cfg, &a, &b, &mut c)? };
        self.stream.memcpy_dtoh(&c, &mut self.c_host)?;
        self.stream.synchronize()?;

        let norm = self.c_host.as_slice()?.iter().map(|v| v * v).sum::<f32>().sqrt();
        Ok(norm)
    }
}
