//! case: candidate scoring of a recommender with cuBLAS: user vectors go up from non-write-combined pinned memory, one SGEMM on the service stream scores every item for every user, and the scores are copied into pinned memory and read for top-k only after `stream.synchronize()`
//! expect: none

use std::sync::Arc;

use cudarc::cublas::sys::cublasOperation_t;
use cudarc::cublas::{CudaBlas, Gemm, GemmConfig};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, PinnedHostSlice};

pub struct CandidateScorer {
    stream: Arc<CudaStream>,
    blas: CudaBlas,
    items: CudaSlice<f32>,
    n_items: usize,
    dim: usize,
    users_host: PinnedHostSlice<f32>,
    users_dev: CudaSlice<f32>,
    scores_dev: CudaSlice<f32>,
    scores_host: PinnedHostSlice<f32>,
    max_users: usize,
}

impl CandidateScorer {
    /// `items`: column-major `n_items x dim` embedding matrix, already on the device.
    pub fn new(ctx: &Arc<CudaContext>, items: CudaSlice<f32>, n_items: usize, dim: usize, max_users: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let blas = CudaBlas::new(stream.clone())?;
        Ok(Self {
            users_host: unsafe { ctx.alloc_pinned_with_flags::<f32>(dim * max_users, 0)? },
            users_dev: stream.alloc_zeros::<f32>(dim * max_users)?,
            scores_dev: stream.alloc_zeros::<f32>(n_items * max_users)?,
            scores_host: unsafe { ctx.alloc_pinned_with_flags::<f32>(n_items * max_users, 0)? },
            stream,
            blas,
            items,
            n_items,
            dim,
            max_users,
        })
    }

    /// Top-`k` item ids per user; `users` holds one `dim`-vector per user.
    pub fn top_k(&mut self, users: &[Vec<f32>], k: usize) -> Result<Vec<Vec<usize>>, Box<dyn std::error::Error>> {
        let n_users = users.len().min(self.max_users);
        {
            let host = self.users_host.as_mut_slice()?;
            host.chunks_mut(self.dim).zip(users).for_each(|(dst, u)| dst.copy_from_slice(&u[..self.dim]));
        }
        self.stream.memcpy_htod(&self.users_host, &mut self.users_dev)?;
        let cfg = GemmConfig {
            transa: cublasOperation_t::CUBLAS_OP_N,
            transb: cublasOperation_t::CUBLAS_OP_N,
            m: self.n_items as i32,
            n: n_users as i32,
            k: self.dim as i32,
            alpha: 1.0f32,
            lda: self.n_items as i32,
            ldb: self.dim as i32,
            beta: 0.0f32,
            ldc: self.n_items as i32,
        };
        unsafe { self.blas.gemm(cfg, &self.items, &self.users_dev, &mut self.scores_dev)? };
        self.stream.memcpy_dtoh(&self.scores_dev, &mut self.scores_host)?;
        self.stream.synchronize()?;

        let scores = self.scores_host.as_slice()?;
        Ok(scores
            .chunks(self.n_items)
            .take(n_users)
            .map(|col| {
                let mut ids: Vec<usize> = (0..col.len()).collect();
                ids.sort_unstable_by(|&a, &b| col[b].total_cmp(&col[a]));
                ids.truncate(k);
                ids
            })
            .collect())
    }
}
