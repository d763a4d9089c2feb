//! case: per-layer statistics in a BTreeMap of pinned buffers: the report waits for the stream, the quick peek does not
//! expect: missing_sync=1
use std::collections::BTreeMap;

use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

pub struct LayerStats {
    stream: Stream,
    host: BTreeMap<u32, PinnedBuffer<f32>>,
}

impl LayerStats {
    pub fn new(ctx: &Context, layers: &BTreeMap<u32, DeviceBuffer<f32>>) -> Result<Self> {
        let mut host = BTreeMap::new();
        for (&id, d) in layers {
            host.insert(id, ctx.alloc_pinned::<f32>(d.len())?);
        }
        Ok(Self { stream: ctx.new_stream()?, host })
    }

    fn enqueue(&mut self, layers: &BTreeMap<u32, DeviceBuffer<f32>>) -> Result<()> {
        for (id, h) in self.host.iter_mut() {
            if let Some(d) = layers.get(id) {
                // SAFETY: the pinned buffers live in `self.host`.
                unsafe { self.stream.copy_dtoh_async(h, d)? };
            }
        }
        Ok(())
    }

    /// Mean absolute activation per layer, after the readback completed.
    pub fn report(&mut self, layers: &BTreeMap<u32, DeviceBuffer<f32>>) -> Result<Vec<(u32, f32)>> {
        self.enqueue(layers)?;
        self.stream.synchronize()?;
        Ok(self
            .host
            .iter()
            .map(|(&id, h)| (id, h.iter().map(|x| x.abs()).sum::<f32>() / h.len().max(1) as f32))
            .collect())
    }

    /// The first value of the deepest layer, for a progress bar.
    pub fn peek(&mut self, layers: &BTreeMap<u32, DeviceBuffer<f32>>) -> Result<Option<f32>> {
        self.enqueue(layers)?;
        let deepest = self.host.values().next_back().and_then(|h| h.first().copied()); // EXPECT: missing_sync
        Ok(deepest)
    }
}
