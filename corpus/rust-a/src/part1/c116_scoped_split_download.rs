//! case: std::thread::scope with two workers, each on its own stream, downloading into the two halves of one pinned buffer (split_at_mut); each worker synchronizes its stream before the scope ends
//! expect: none
use std::thread;

use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result};

fn download_half(ctx: &Context, dev: &DeviceBuffer<f32>, dst: &mut [f32]) -> Result<()> {
    let stream = ctx.new_stream()?;
    // SAFETY: `dst` is pinned (a part of a PinnedBuffer) and read after the synchronize.
    unsafe { stream.copy_dtoh_async(dst, dev)? };
    stream.synchronize()
}

pub fn split_download(ctx: &Context, left: &DeviceBuffer<f32>, right: &DeviceBuffer<f32>, host: &mut PinnedBuffer<f32>) -> Result<f32> {
    let (lo, hi) = host.split_at_mut(left.len());
    thread::scope(|s| {
        let a = s.spawn(|| download_half(ctx, left, lo));
        let b = s.spawn(|| download_half(ctx, right, hi));
        a.join().expect("left worker panicked")?;
        b.join().expect("right worker panicked")
    })?;
    Ok(host.iter().sum())
}
