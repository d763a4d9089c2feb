//! case: sharded vector search runs one scoped thread per shard, each on its own cudarc stream (multi-stream mode, tracking on); each shard copies its top-k into its pinned buffer through `as_mut_slice()` (a plain `&mut [T]`, so cudarc records no event on the pinned slice) and then reads it with `as_slice()`, which therefore waits for nothing
//! expect: missing_sync=1

pub mod merge;
pub mod shard;

use std::sync::Arc;

use cudarc::driver::CudaContext;

pub use merge::merge_topk;
pub use shard::{ShardHit, ShardSearcher};

pub fn search_all(ctx: &Arc<CudaContext>, shards: &mut [ShardSearcher], query: &[f32], k: usize) -> Result<Vec<ShardHit>, String> {
    let partials: Vec<Result<Vec<ShardHit>, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = shards
            .iter_mut()
            .map(|sh| s.spawn(move || sh.search(query, k).map_err(|e| e.to_string())))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err("shard panicked".into()))).collect()
    });
    let _ = ctx;
    let partials: Result<Vec<_>, _> = partials.into_iter().collect();
    Ok(merge_topk(partials?, k))
}
