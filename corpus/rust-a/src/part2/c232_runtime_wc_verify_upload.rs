//! case: runtime-layer pinned buffer with write_combined: true, filled by the host and uploaded; a debug check then reads it back to verify the fill
//! expect: write_combined_host_read=1
use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, PinnedFlags, Result, Stream};

pub struct Feeder {
    stream: Stream,
    staging: PinnedBuffer<i32>,
}

impl Feeder {
    pub fn new(ctx: &Context, n: usize) -> Result<Feeder> {
        let flags = PinnedFlags { write_combined: true, ..PinnedFlags::default() };
        Ok(Feeder { stream: ctx.new_stream()?, staging: ctx.alloc_pinned_with_flags::<i32>(n, flags)? })
    }

    pub fn feed(&mut self, dst: &mut DeviceBuffer<i32>, labels: impl Iterator<Item = i32>) -> Result<()> {
        for (slot, l) in self.staging.iter_mut().zip(labels) {
            *slot = l;
        }
        if cfg!(debug_assertions) {
            let bad = self.staging.iter().filter(|&&l| l < 0).count(); // EXPECT: write_combined_host_read
            assert_eq!(bad, 0, "negative labels in batch");
        }
        unsafe { self.stream.copy_htod_async(dst, &self.staging) }?;
        Ok(())
    }
}

pub fn run() -> Result<()> {
    let ctx = Context::new(0)?;
    let mut feeder = Feeder::new(&ctx, 1024)?;
    let mut labels = ctx.alloc::<i32>(1024)?;
    feeder.feed(&mut labels, (0..1024).map(|i| i % 10))?;
    feeder.stream.synchronize()
}
