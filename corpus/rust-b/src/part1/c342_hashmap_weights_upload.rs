//! case: a model loader uploads named weights from a HashMap<String, Vec<f32>> in try_for_each, synchronizing once at the end
//! expect: pageable_async_copy=1
use std::collections::HashMap;

use cuda_lint_runtime::{Context, DeviceBuffer, Result, Stream};

pub struct Model {
    pub weights: HashMap<String, DeviceBuffer<f32>>,
}

impl Model {
    pub fn load(ctx: &Context, stream: &Stream, host: &HashMap<String, Vec<f32>>) -> Result<Self> {
        let mut weights = HashMap::with_capacity(host.len());
        host.iter().try_for_each(|(name, w)| -> Result<()> {
            let mut d = ctx.alloc::<f32>(w.len())?;
            // SAFETY: `host` outlives the synchronize below.
            unsafe { stream.copy_htod_async(&mut d, w)? }; // EXPECT: pageable_async_copy
            weights.insert(name.clone(), d);
            Ok(())
        })?;
        stream.synchronize()?;
        Ok(Self { weights })
    }
}
