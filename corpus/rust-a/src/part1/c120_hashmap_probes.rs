//! case: named probe buffers in HashMaps (device and pinned host); report() synchronizes after refreshing every probe, peek() reads one probe right after the refresh
//! expect: missing_sync=1
use std::collections::HashMap;

use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

pub struct Probes {
    stream: Stream,
    dev: HashMap<String, DeviceBuffer<f32>>,
    host: HashMap<String, PinnedBuffer<f32>>,
}

impl Probes {
    pub fn new(ctx: &Context, names: &[&str], len: usize) -> Result<Self> {
        let mut dev = HashMap::new();
        let mut host = HashMap::new();
        for &name in names {
            dev.insert(name.to_string(), ctx.alloc_zeroed::<f32>(len)?);
            host.insert(name.to_string(), ctx.alloc_pinned::<f32>(len)?);
        }
        Ok(Self { stream: ctx.new_stream()?, dev, host })
    }

    fn refresh(&mut self) -> Result<()> {
        for (name, d) in &self.dev {
            if let Some(h) = self.host.get_mut(name) {
                // SAFETY: the pinned buffers live in self.
                unsafe { self.stream.copy_dtoh_async(h, d)? };
            }
        }
        Ok(())
    }

    pub fn report(&mut self) -> Result<Vec<(String, f32)>> {
        self.refresh()?;
        self.stream.synchronize()?;
        let mut rows: Vec<_> = self.host.iter().map(|(k, v)| (k.clone(), v.iter().sum())).collect();
        rows.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(rows)
    }

    pub fn peek(&mut self, name: &str) -> Result<Option<f32>> {
        self.refresh()?;
        Ok(self.host.get(name).map(|h| h[0])) // EXPECT: missing_sync
    }
}

impl Drop for Probes {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
    }
}
