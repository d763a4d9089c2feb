//! case: near-miss. Log-analytics aggregation fans out over scoped worker threads, each with its own cudarc stream and pinned (flags 0) buffers; a worker refills its input buffer only after synchronizing, and reads its output only after `stream.synchronize()`, then sends partial counts over a channel to the aggregator
//! expect: none

pub mod aggregate;
pub mod worker;

use std::sync::mpsc;
use std::sync::Arc;

use cudarc::driver::CudaContext;

pub use aggregate::Totals;
pub use worker::{Partial, ShardWorker};

pub fn count_status_codes(ctx: &Arc<CudaContext>, shards: Vec<Vec<u16>>, chunk: usize) -> Result<Totals, String> {
    let (tx, rx) = mpsc::channel::<Partial>();
    let errors: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = shards
            .iter()
            .enumerate()
            .map(|(id, codes)| {
                let tx = tx.clone();
                let ctx = Arc::clone(ctx);
                s.spawn(move || -> Result<(), String> {
                    let mut w = ShardWorker::new(&ctx, id, chunk).map_err(|e| e.to_string())?;
                    w.run(codes, &tx).map_err(|e| e.to_string())
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok().and_then(|r| r.err())).collect()
    });
    drop(tx);
    if let Some(e) = errors.into_iter().next() {
        return Err(e);
    }
    Ok(aggregate::fold(rx.into_iter()))
}
