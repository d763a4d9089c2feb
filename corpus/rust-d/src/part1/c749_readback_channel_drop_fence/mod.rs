//! case: a screenshot service's worker thread (runtime layer) reads frames back into pinned buffers inside a scope guarded by a `StreamFence`, whose Drop synchronizes the stream, and only then sends each buffer over a channel to the PNG writer thread that reads it
//! expect: none

mod fence;

use std::sync::mpsc;
use std::sync::Arc;
use std::thread;

use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result};

use fence::StreamFence;

pub struct Screenshot {
    pub id: u32,
    pub pixels: PinnedBuffer<u8>,
}

pub fn capture_all(ctx: &Context, targets: Arc<Vec<(u32, DeviceBuffer<u8>)>>) -> Result<Vec<(u32, u64)>> {
    let (tx, rx) = mpsc::sync_channel::<Screenshot>(2);
    let worker_ctx = ctx.clone();
    let worker_targets = Arc::clone(&targets);
    let worker = thread::spawn(move || -> Result<()> {
        worker_ctx.bind_to_thread()?;
        let stream = worker_ctx.new_stream()?;
        for (id, target) in worker_targets.iter() {
            let mut pixels = worker_ctx.alloc_pinned::<u8>(target.len())?;
            {
                let _fence = StreamFence::new(&stream);
                unsafe { stream.copy_dtoh_async(&mut pixels, target)? };
            } // synchronized here, on the error path too
            if tx.send(Screenshot { id: *id, pixels }).is_err() {
                break;
            }
        }
        Ok(())
    });

    let writer = thread::spawn(move || {
        rx.into_iter()
            .map(|shot| {
                let nonzero = shot.pixels.chunks_exact(4).filter(|px| px[3] != 0).count() as u64;
                (shot.id, nonzero)
            })
            .collect::<Vec<_>>()
    });

    worker.join().expect("capture worker panicked")?;
    Ok(writer.join().expect("png writer panicked"))
}
