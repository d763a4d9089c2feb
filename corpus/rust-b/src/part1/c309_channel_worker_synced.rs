//! case: a loader thread owns an `Arc`'d stream, synchronizes it, then sends the filled pinned buffer over a sync_channel to the consumer
//! expect: none
use std::sync::mpsc::{Receiver, sync_channel};
use std::sync::Arc;
use std::thread::{self, JoinHandle};

use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

pub struct Loader {
    rx: Option<Receiver<PinnedBuffer<f32>>>,
    worker: Option<JoinHandle<Result<()>>>,
}

impl Loader {
    pub fn spawn(ctx: Context, stream: Arc<Stream>, batches: Vec<DeviceBuffer<f32>>) -> Self {
        let (tx, rx) = sync_channel::<PinnedBuffer<f32>>(2);
        let worker = thread::spawn(move || -> Result<()> {
            for dev in &batches {
                let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
                // SAFETY: `host` is not touched before the synchronize below.
                unsafe { stream.copy_dtoh_async(&mut host, dev)? };
                stream.synchronize()?;
                if tx.send(host).is_err() {
                    break;
                }
            }
            Ok(())
        });
        Self { rx: Some(rx), worker: Some(worker) }
    }

    pub fn mean_of_next(&self) -> Option<f32> {
        let batch = self.rx.as_ref()?.recv().ok()?;
        Some(batch.iter().sum::<f32>() / batch.len().max(1) as f32)
    }
}

impl Drop for Loader {
    fn drop(&mut self) {
        // Hang up first so a worker blocked in `send` ends.
        self.rx.take();
        if let Some(h) = self.worker.take() {
            let _ = h.join();
        }
    }
}
