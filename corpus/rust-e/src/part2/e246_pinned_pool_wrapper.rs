//! case: near-miss of a pageable upload: the shard loader gets its host buffers from a process-wide pool that hands out page-locked `PinnedBuffer`s (the pool is a generic wrapper behind a `static`), so the async uploads read pinned memory, and the buffer returns to the pool only after the stream is synchronized
//! expect: none

use std::sync::{Arc, Mutex, OnceLock};

use cuda_lint_runtime::{Context, DeviceBuffer, DeviceRepr, PinnedBuffer, Result, Stream};

/// Recycles page-locked buffers: pinning is expensive, reusing is free.
pub struct StagingPool<T: DeviceRepr> {
    ctx: Context,
    free: Mutex<Vec<PinnedBuffer<T>>>,
}

impl<T: DeviceRepr> StagingPool<T> {
    pub fn new(ctx: Context) -> Self {
        Self { ctx, free: Mutex::new(Vec::new()) }
    }

    /// A pinned buffer of at least `len` elements.
    pub fn take(&self, len: usize) -> Result<PinnedBuffer<T>> {
        let mut free = self.free.lock().expect("staging pool poisoned");
        if let Some(pos) = free.iter().position(|b| b.len() >= len) {
            return Ok(free.swap_remove(pos));
        }
        drop(free);
        self.ctx.alloc_pinned::<T>(len)
    }

    pub fn give_back(&self, buf: PinnedBuffer<T>) {
        self.free.lock().expect("staging pool poisoned").push(buf);
    }
}

static SHARD_POOL: OnceLock<Arc<StagingPool<u8>>> = OnceLock::new();

pub fn shard_pool(ctx: &Context) -> Arc<StagingPool<u8>> {
    SHARD_POOL.get_or_init(|| Arc::new(StagingPool::new(ctx.clone()))).clone()
}

/// Streams a checkpoint shard to the device chunk by chunk; `read_chunk` fills a buffer and
/// returns the number of bytes read (0 at end of file).
pub fn load_shard<R>(ctx: &Context, stream: &Stream, chunk: usize, mut read_chunk: R) -> Result<Vec<DeviceBuffer<u8>>>
where
    R: FnMut(&mut [u8]) -> usize,
{
    let pool = shard_pool(ctx);
    let mut staging = pool.take(chunk)?;
    let mut parts = Vec::new();
    loop {
        let got = read_chunk(&mut staging[..chunk]);
        if got == 0 {
            break;
        }
        let mut part = ctx.alloc::<u8>(got)?;
        unsafe { stream.copy_htod_async(&mut part, &staging[..got])? };
        // the next read overwrites the staging buffer: wait for this chunk first
        stream.synchronize()?;
        parts.push(part);
    }
    pool.give_back(staging);
    Ok(parts)
}
