//! case: gradient-bucket uploader for a parameter server refills one pinned staging buffer (runtime layer) for every bucket in a loop, while the `copy_htod_async` of the previous bucket from that same staging buffer may still be reading it; the stream is only synchronized after the loop
//! expect: missing_sync=1

use std::collections::HashMap;

use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

pub struct BucketSpec {
    pub name: String,
    pub offset: usize,
    pub len: usize,
}

pub struct ParamServerShard {
    stream: Stream,
    staging: PinnedBuffer<f32>,
    buckets: HashMap<String, DeviceBuffer<f32>>,
}

impl ParamServerShard {
    pub fn new(ctx: &Context, specs: &[BucketSpec]) -> Result<Self> {
        let largest = specs.iter().map(|s| s.len).max().unwrap_or(0);
        let mut buckets = HashMap::new();
        for s in specs {
            buckets.insert(s.name.clone(), ctx.alloc_zeroed::<f32>(largest)?);
        }
        Ok(Self { stream: ctx.new_stream()?, staging: ctx.alloc_pinned::<f32>(largest)?, buckets })
    }

    /// Pushes the averaged gradients received from the network into the device buckets.
    pub fn push(&mut self, specs: &[BucketSpec], flat_grads: &[f32], scale: f32) -> Result<()> {
        for spec in specs {
            let Some(dev) = self.buckets.get_mut(&spec.name) else { continue };
            let src = &flat_grads[spec.offset..spec.offset + spec.len];
            self.staging.iter_mut().zip(src).for_each(|(dst, g)| *dst = g * scale); // EXPECT: missing_sync
            // SAFETY: (intended) staging stays untouched until the copy is done
            unsafe { self.stream.copy_htod_async(dev, &self.staging)? };
        }
        self.stream.synchronize()
    }
}
