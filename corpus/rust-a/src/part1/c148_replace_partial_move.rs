//! case: a recorder swaps in a fresh batch with std::mem::replace while the readback into the old batch's pinned buffer is in flight, destructures the old batch (partial move) and sums its samples without waiting
//! expect: missing_sync=1
use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

pub struct Batch {
    pub label: String,
    pub samples: PinnedBuffer<f32>,
}

pub struct Recorder {
    ctx: Context,
    stream: Stream,
    current: Batch,
    pub totals: Vec<(String, f32)>,
}

impl Recorder {
    fn fresh(ctx: &Context, label: String, n: usize) -> Result<Batch> {
        Ok(Batch { label, samples: ctx.alloc_pinned(n)? })
    }

    pub fn new(ctx: &Context, n: usize) -> Result<Self> {
        Ok(Self { ctx: ctx.clone(), stream: ctx.new_stream()?, current: Self::fresh(ctx, "batch-0".into(), n)?, totals: Vec::new() })
    }

    pub fn capture(&mut self, dev: &DeviceBuffer<f32>, next_label: String) -> Result<()> {
        let next = Self::fresh(&self.ctx, next_label, dev.len())?;
        // SAFETY: `samples` is pinned; see below for when it is read.
        unsafe { self.stream.copy_dtoh_async(&mut self.current.samples, dev)? };
        let old = std::mem::replace(&mut self.current, next);
        let Batch { label, samples } = old;
        let total = samples.iter().sum(); // EXPECT: missing_sync
        self.totals.push((label, total));
        self.stream.synchronize()?;
        drop(samples);
        Ok(())
    }
}
