//! case: audio FIR filter bank with a pool of page-locked blocks (`result::malloc_host`, i.e. `cuMemHostAlloc`); the block's `Drop` releases it with `result::free_sync` (`cuMemFree`), the device allocator's free, instead of `cuMemFreeHost`; the filter's own device buffers are correctly released with `free_sync`
//! expect: mismatched_free=1

pub mod fir;
pub mod pool;

use std::sync::Arc;

use cudarc::driver::CudaContext;

pub use fir::FirFilter;
pub use pool::{BlockPool, PinnedBlock};

/// Filters a whole track, block by block, through the pool.
pub fn filter_track(track: &[f32], taps: &[f32; fir::MAX_TAPS], block_len: usize) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx: Arc<CudaContext> = CudaContext::new(0)?;
    let mut filter = FirFilter::new(&ctx, taps, block_len)?;
    let mut pool = BlockPool::with_capacity(4, block_len)?;
    let mut out = Vec::with_capacity(track.len());
    for chunk in track.chunks(block_len) {
        let mut block = pool.acquire()?;
        block.as_mut_slice()[..chunk.len()].copy_from_slice(chunk);
        filter.process(&mut block)?;
        out.extend_from_slice(&block.as_slice()[..chunk.len()]);
        pool.release(block);
    }
    Ok(out)
}
