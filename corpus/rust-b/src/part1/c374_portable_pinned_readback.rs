//! case: a cudarc readback into pinned memory allocated with `alloc_pinned_with_flags(.., PORTABLE)` (no write-combining), read after synchronizing
//! expect: none
use std::sync::Arc;

use cudarc::driver::sys;
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, PinnedHostSlice};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

pub struct ScoreReader {
    stream: Arc<CudaStream>,
    host: PinnedHostSlice<f32>,
}

impl ScoreReader {
    pub fn new(ctx: &Arc<CudaContext>, n: usize) -> Res<Self> {
        let stream = ctx.default_stream();
        let host = unsafe { ctx.alloc_pinned_with_flags::<f32>(n, sys::CU_MEMHOSTALLOC_PORTABLE)? };
        Ok(Self { stream, host })
    }

    pub fn top_k(&mut self, scores: &CudaSlice<f32>, k: usize) -> Res<Vec<(usize, f32)>> {
        self.stream.memcpy_dtoh(scores, &mut self.host)?;
        self.stream.synchronize()?;
        let mut ranked: Vec<(usize, f32)> = self.host.as_slice()?.iter().copied().enumerate().collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        ranked.truncate(k);
        Ok(ranked)
    }
}
