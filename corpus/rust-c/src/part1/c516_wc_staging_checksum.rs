//! case: a checkpoint writer reuses cudarc's `alloc_pinned` buffer (write-combined in 0.19) for both directions: filling it for the upload is fine, but after the download and a synchronize the host reads it to checksum the shard
//! expect: write_combined_host_read=1
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, PinnedHostSlice};

pub struct ShardStager {
    stream: Arc<CudaStream>,
    staging: PinnedHostSlice<f32>,
}

impl ShardStager {
    pub fn new(ctx: &Arc<CudaContext>, shard_len: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.default_stream();
        // One pinned buffer for restore (upload) and save (download).
        let staging = unsafe { ctx.alloc_pinned::<f32>(shard_len)? };
        Ok(Self { stream, staging })
    }

    /// Restore: host writes into the staging buffer, then one H2D copy.
    pub fn restore(&mut self, params: &[f32], dev: &mut CudaSlice<f32>) -> Result<(), Box<dyn std::error::Error>> {
        self.staging.as_mut_slice()?[..params.len()].copy_from_slice(params);
        self.stream.memcpy_htod(&self.staging, dev)?;
        self.stream.synchronize()?;
        Ok(())
    }

    /// Save: D2H into the same buffer, then checksum and serialize.
    pub fn save(&mut self, dev: &CudaSlice<f32>, out: &mut Vec<u8>) -> Result<u64, Box<dyn std::error::Error>> {
        self.stream.memcpy_dtoh(dev, &mut self.staging)?;
        self.stream.synchronize()?;
        let shard = self.staging.as_slice()?.to_vec(); // EXPECT: write_combined_host_read
        let checksum = shard
            .iter()
            .fold(0xcbf2_9ce4_8422_2325u64, |h, x| (h ^ x.to_bits() as u64).wrapping_mul(0x100_0000_01b3));
        out.reserve(shard.len() * 4);
        shard.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        Ok(checksum)
    }
}
