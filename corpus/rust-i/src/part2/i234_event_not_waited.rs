//! case: parameter-server snapshot publisher (runtime crate): after the device-to-host copy of the parameters an event is recorded, but the event is only waited for at the start of the next snapshot; the current snapshot is hashed and published right after the record
//! expect: missing_sync=1

use cuda_lint_runtime::{Context, DeviceBuffer, Event, PinnedBuffer, Result, Stream};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::mpsc::Sender;

pub struct Snapshot {
    pub version: u64,
    pub digest: u64,
    pub params: Vec<f32>,
}

pub struct SnapshotPublisher {
    stream: Stream,
    copied: Event,
    host: PinnedBuffer<f32>,
    version: u64,
    subscribers: Vec<Sender<std::sync::Arc<Snapshot>>>,
}

fn digest(params: &[f32]) -> u64 {
    let mut h = DefaultHasher::new();
    for p in params {
        p.to_bits().hash(&mut h);
    }
    h.finish()
}

impl SnapshotPublisher {
    pub fn new(ctx: &Context, len: usize) -> Result<Self> {
        Ok(SnapshotPublisher { stream: ctx.new_stream()?, copied: ctx.new_event()?, host: ctx.alloc_pinned(len)?, version: 0, subscribers: Vec::new() })
    }

    pub fn subscribe(&mut self, tx: Sender<std::sync::Arc<Snapshot>>) {
        self.subscribers.push(tx);
    }

    pub fn publish(&mut self, params: &DeviceBuffer<f32>) -> Result<u64> {
        // The previous snapshot's copy must be done before `host` is overwritten.
        self.copied.synchronize()?;
        unsafe { self.stream.copy_dtoh_async(&mut self.host, params)? };
        self.stream.record_event(&self.copied)?;
        self.version += 1;

        let d = digest(&self.host); // EXPECT: missing_sync
        let snap = std::sync::Arc::new(Snapshot { version: self.version, digest: d, params: self.host.to_vec() });
        self.subscribers.retain(|tx| tx.send(snap.clone()).is_ok());
        Ok(d)
    }
}
