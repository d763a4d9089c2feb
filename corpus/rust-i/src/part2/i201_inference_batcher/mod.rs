//! case: inference request batcher (runtime crate): token ids are uploaded from the batch's Vec with copy_htod_async (pageable), and responses are built from the pinned logits buffer right after copy_dtoh_async, before the stream is synchronized
//! expect: pageable_async_copy=1, missing_sync=1

mod queue;
mod worker;

pub use queue::{BatchQueue, InferenceRequest, InferenceResponse};
pub use worker::BatchWorker;

use cuda_lint_runtime::{Context, Result};
use std::sync::mpsc;
use std::thread;

/// Runs a worker thread that drains the request channel in batches until it closes.
pub fn serve(ordinal: usize, max_batch: usize, vocab: usize) -> Result<mpsc::Sender<InferenceRequest>> {
    let (tx, rx) = mpsc::channel::<InferenceRequest>();
    let ctx = Context::new(ordinal)?;
    let mut worker = BatchWorker::new(&ctx, max_batch, vocab)?;
    thread::spawn(move || {
        let mut queue = BatchQueue::new(max_batch);
        while let Ok(first) = rx.recv() {
            queue.push(first);
            while let Ok(more) = rx.try_recv() {
                if !queue.push(more) {
                    break;
                }
            }
            let batch = queue.take_batch();
            if let Err(e) = worker.run_batch(batch) {
                eprintln!("batch failed: {e}");
            }
        }
    });
    Ok(tx)
}
