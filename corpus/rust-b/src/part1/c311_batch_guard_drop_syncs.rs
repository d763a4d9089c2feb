//! case: a batch guard with a trait default `finish` that synchronizes, and an `impl Drop` that synchronizes before its pinned buffer is freed
//! expect: none
use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

pub trait Waitable {
    fn stream(&self) -> &Stream;
    fn finish(&self) -> Result<()> {
        self.stream().synchronize()
    }
}

pub struct Batch<'s> {
    stream: &'s Stream,
    host: PinnedBuffer<i32>,
}

impl Waitable for Batch<'_> {
    fn stream(&self) -> &Stream {
        self.stream
    }
}

impl Drop for Batch<'_> {
    fn drop(&mut self) {
        // The pinned buffer is freed after this body: make sure no copy still uses it.
        let _ = self.stream.synchronize();
    }
}

impl<'s> Batch<'s> {
    pub fn fetch(ctx: &Context, stream: &'s Stream, labels: &DeviceBuffer<i32>) -> Result<Self> {
        let mut host = ctx.alloc_pinned::<i32>(labels.len())?;
        // SAFETY: `host` moves into the returned batch, whose Drop synchronizes.
        unsafe { stream.copy_dtoh_async(&mut host, labels)? };
        Ok(Batch { stream, host })
    }

    pub fn histogram(&self) -> Result<[usize; 10]> {
        self.finish()?;
        let mut h = [0usize; 10];
        for &l in self.host.iter() {
            h[(l.clamp(0, 9)) as usize] += 1;
        }
        Ok(h)
    }
}

pub fn class_counts(ctx: &Context, stream: &Stream, labels: &DeviceBuffer<i32>, want: bool) -> Result<Option<[usize; 10]>> {
    let batch = Batch::fetch(ctx, stream, labels)?;
    if !want {
        // Dropped unread: Drop waits for the copy.
        return Ok(None);
    }
    batch.histogram().map(Some)
}
