//! case: scoped worker threads each enqueue a readback into their pinned chunk; the main thread joins the threads (not the streams) and reads
//! expect: missing_sync=1
use std::thread;

use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

pub struct Shard {
    stream: Stream,
    dev: DeviceBuffer<f32>,
}

/// Enqueues the shard's readback into `out` and returns without waiting.
fn enqueue_readback(shard: &Shard, out: &mut [f32]) -> Result<()> {
    // SAFETY: `out` outlives the copy: the caller keeps the pinned buffer alive.
    unsafe { shard.stream.copy_dtoh_async(out, &shard.dev) }
}

pub fn gather(ctx: &Context, shards: &[Shard]) -> Result<f64> {
    let per = shards.first().map_or(0, |s| s.dev.len());
    let mut host: PinnedBuffer<f32> = ctx.alloc_pinned(per * shards.len())?;
    thread::scope(|scope| {
        let handles: Vec<_> = host
            .chunks_mut(per)
            .zip(shards)
            .map(|(chunk, shard)| scope.spawn(move || enqueue_readback(shard, chunk)))
            .collect();
        handles.into_iter().try_for_each(|h| h.join().expect("worker panicked"))
    })?;
    // Joining a thread does not wait for the GPU work it enqueued.
    let total = host.iter().map(|&x| x as f64).sum(); // EXPECT: missing_sync
    // Only now wait, before `host` is freed.
    shards.iter().try_for_each(|s| s.stream.synchronize())?;
    Ok(total)
}
