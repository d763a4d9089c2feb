//! case: a runtime-layer readback pool built with configurable pinned flags: the write-combined variant is read back on the host, the cached one too
//! expect: write_combined_host_read=1
use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, PinnedFlags, Result, Stream};

pub struct ReadbackPool {
    stream: Stream,
    fast_upload: PinnedBuffer<f32>,
    cached: PinnedBuffer<f32>,
}

impl ReadbackPool {
    pub fn new(ctx: &Context, n: usize) -> Result<Self> {
        let wc = PinnedFlags { write_combined: true, ..PinnedFlags::default() };
        Ok(Self {
            stream: ctx.new_stream()?,
            fast_upload: ctx.alloc_pinned_with_flags(n, wc)?,
            cached: ctx.alloc_pinned(n)?,
        })
    }

    /// Reuses the write-combined upload buffer as a readback target to save memory.
    pub fn max_via_upload_buffer(&mut self, d: &DeviceBuffer<f32>) -> Result<f32> {
        // SAFETY: synchronized before the host reads.
        unsafe { self.stream.copy_dtoh_async(&mut self.fast_upload, d)? };
        self.stream.synchronize()?;
        Ok(self.fast_upload.iter().copied().fold(f32::MIN, f32::max)) // EXPECT: write_combined_host_read
    }

    pub fn max_via_cached(&mut self, d: &DeviceBuffer<f32>) -> Result<f32> {
        // SAFETY: synchronized before the host reads.
        unsafe { self.stream.copy_dtoh_async(&mut self.cached, d)? };
        self.stream.synchronize()?;
        Ok(self.cached.iter().copied().fold(f32::MIN, f32::max))
    }
}
