//! case: CTR-prediction server (cudarc, only ctx.default_stream()): the assembled feature batch is uploaded from its Vec with memcpy_htod (pageable), and predictions are copied into non-write-combined pinned memory and read through as_slice, which with a single stream waits for no event
//! expect: pageable_async_copy=1, missing_sync=1

mod batch;
mod model;

use batch::{assemble, Request};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, PinnedHostSlice};
use model::Mlp;
use std::sync::Arc;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

pub struct CtrServer {
    stream: Arc<CudaStream>,
    mlp: Mlp,
    d_in: CudaSlice<f32>,
    d_out: CudaSlice<f32>,
    preds: PinnedHostSlice<f32>,
    max_batch: usize,
}

impl CtrServer {
    pub fn new(ctx: &Arc<CudaContext>, dim: usize, max_batch: usize) -> Res<Self> {
        let stream = ctx.default_stream();
        let mlp = Mlp::load(ctx, &stream, dim)?;
        Ok(CtrServer {
            d_in: stream.alloc_zeros(max_batch * dim)?,
            d_out: stream.alloc_zeros(max_batch)?,
            preds: unsafe { ctx.alloc_pinned_with_flags(max_batch, 0)? },
            mlp,
            max_batch,
            stream,
        })
    }

    pub fn predict(&mut self, requests: &[Request]) -> Res<Vec<(u64, f32)>> {
        let requests = &requests[..requests.len().min(self.max_batch)];
        let input = assemble(requests, self.mlp.dim, self.max_batch);
        self.stream.memcpy_htod(&input, &mut self.d_in)?; // EXPECT: pageable_async_copy
        self.mlp.forward(&self.stream, &self.d_in, &mut self.d_out, requests.len())?;
        self.stream.memcpy_dtoh(&self.d_out, &mut self.preds)?;
        let out = requests.iter().zip(self.preds.as_slice()?.iter()).map(|(r, &p)| (r.id, p)).collect(); // EXPECT: missing_sync
        Ok(out)
    }
}
