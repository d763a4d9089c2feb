//! case: an `async fn` enqueues an upload from a pinned staging buffer and returns; its caller refills the staging buffer for the next batch without waiting
//! expect: missing_sync=1
use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

pub struct Feeder {
    stream: Stream,
    staging: PinnedBuffer<f32>,
    dev: DeviceBuffer<f32>,
}

impl Feeder {
    pub fn new(ctx: &Context, n: usize) -> Result<Self> {
        Ok(Self { stream: ctx.new_stream()?, staging: ctx.alloc_pinned(n)?, dev: ctx.alloc(n)? })
    }

    /// Enqueues the upload of the staging buffer; resolves as soon as it is enqueued.
    pub async fn submit(&mut self) -> Result<()> {
        // SAFETY: `staging` lives as long as `self`.
        unsafe { self.stream.copy_htod_async(&mut self.dev, &self.staging) }
    }

    pub async fn feed_all(&mut self, batches: &[Vec<f32>]) -> Result<()> {
        for b in batches {
            // The upload submitted in the previous iteration may still be reading `staging`.
            self.staging[..b.len()].copy_from_slice(b); // EXPECT: missing_sync
            self.submit().await?;
        }
        self.stream.synchronize()
    }
}
