//! case: long-running simulation job monitor (cudarc, default stream only): after queueing the checkpoint copy into non-write-combined pinned memory it records an event and keeps answering heartbeats while polling the event with try_is_complete, reading the checkpoint only once the event reports completion (near-miss)
//! expect: none

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, PinnedHostSlice};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub trait Heartbeat {
    fn beat(&mut self, waited: Duration);
}

pub struct CheckpointWriter {
    stream: Arc<CudaStream>,
    staging: PinnedHostSlice<f64>,
    generation: u64,
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

impl CheckpointWriter {
    pub fn new(ctx: &Arc<CudaContext>, len: usize) -> Res<Self> {
        Ok(CheckpointWriter { stream: ctx.default_stream(), staging: unsafe { ctx.alloc_pinned_with_flags(len, 0)? }, generation: 0 })
    }

    pub fn checkpoint(&mut self, state: &CudaSlice<f64>, hb: &mut dyn Heartbeat, out: &mut Vec<u8>) -> Res<u64> {
        self.stream.memcpy_dtoh(state, &mut self.staging)?;
        let copied = self.stream.record_event(None)?;
        let started = Instant::now();
        while !copied.try_is_complete()? {
            hb.beat(started.elapsed());
            std::thread::sleep(Duration::from_millis(2));
        }
        self.generation += 1;
        out.clear();
        out.extend_from_slice(&self.generation.to_le_bytes());
        for v in self.staging.as_slice()?.iter() {
            out.extend_from_slice(&v.to_le_bytes());
        }
        Ok(self.generation)
    }
}
