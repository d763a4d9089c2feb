//! case: multi-GPU weight broadcaster for a model-serving fleet (cudarc, one context and stream per GPU): new weights are written (never read) into alloc_pinned write-combined staging, uploaded once to GPU 0, fanned out with device-to-device memcpy_dtod (peer copies, ordered by cudarc's cross-context event wait) and every stream is synchronized before the staging is reused (near-miss)
//! expect: none

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, PinnedHostSlice};
use std::sync::Arc;

pub struct WeightBroadcaster {
    streams: Vec<Arc<CudaStream>>,
    replicas: Vec<CudaSlice<f32>>,
    staging: PinnedHostSlice<f32>,
    version: u64,
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

impl WeightBroadcaster {
    pub fn new(ordinals: &[usize], len: usize) -> Res<Self> {
        let contexts = ordinals.iter().map(|&o| CudaContext::new(o)).collect::<Result<Vec<_>, _>>()?;
        let streams = contexts.iter().map(|c| c.new_stream()).collect::<Result<Vec<_>, _>>()?;
        let replicas = streams.iter().map(|s| s.alloc_zeros::<f32>(len)).collect::<Result<Vec<_>, _>>()?;
        // Host writes it, the DMA engine reads it: write-combining is the right choice.
        let staging = unsafe { contexts[0].alloc_pinned::<f32>(len)? };
        Ok(WeightBroadcaster { streams, replicas, staging, version: 0 })
    }

    pub fn publish(&mut self, weights: &[f32]) -> Res<u64> {
        let n = weights.len().min(self.staging.len());
        self.staging.as_mut_slice()?[..n].copy_from_slice(&weights[..n]);
        self.streams[0].memcpy_htod(&self.staging, &mut self.replicas[0])?;

        let (primary, others) = self.replicas.split_at_mut(1);
        for (stream, replica) in self.streams[1..].iter().zip(others.iter_mut()) {
            stream.memcpy_dtod(&primary[0], replica)?;
        }
        for s in &self.streams {
            s.synchronize()?;
        }
        self.version += 1;
        Ok(self.version)
    }

    pub fn replica(&self, gpu: usize) -> Option<&CudaSlice<f32>> {
        self.replicas.get(gpu)
    }
}
