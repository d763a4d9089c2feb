//! case: an uploader struct refills its pinned staging buffer for the next batch while the previous async upload from it may still be reading it
//! expect: missing_sync=1
use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

pub struct Uploader {
    stream: Stream,
    staging: PinnedBuffer<f32>,
    dev: DeviceBuffer<f32>,
    batches_sent: usize,
}

impl Uploader {
    pub fn new(ctx: &Context, capacity: usize) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            staging: ctx.alloc_pinned(capacity)?,
            dev: ctx.alloc(capacity)?,
            batches_sent: 0,
        })
    }

    fn fill(&mut self, batch: &[f32]) {
        let n = batch.len().min(self.staging.len());
        // the upload of the previous batch reads this memory until the stream gets to it
        self.staging[..n].copy_from_slice(&batch[..n]); // EXPECT: missing_sync
    }

    /// Stages `batch` and starts its upload; returns at once.
    pub fn push(&mut self, batch: &[f32]) -> Result<()> {
        self.fill(batch);
        // SAFETY: `staging` and `dev` live as long as `self`, and have the same length.
        unsafe { self.stream.copy_htod_async(&mut self.dev, &self.staging)? };
        self.batches_sent += 1;
        Ok(())
    }

    pub fn flush(&self) -> Result<()> {
        self.stream.synchronize()
    }
}

pub fn upload_all(ctx: &Context, batches: &[Vec<f32>]) -> Result<usize> {
    let mut up = Uploader::new(ctx, 1 << 20)?;
    for batch in batches {
        up.push(batch)?;
    }
    up.flush()?;
    Ok(up.batches_sent)
}
