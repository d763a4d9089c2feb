//! case: LLM KV-cache manager offloads evicted blocks on a second stream into `alloc_pinned` buffers (write-combined in cudarc 0.19) and later serialises them to disk by reading them on the host; `as_slice` does wait here (two streams, event tracking on), but the CPU reads uncached memory
//! expect: write_combined_host_read=1

use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DriverError, PinnedHostSlice};

pub struct KvCacheManager {
    ctx: Arc<CudaContext>,
    compute: Arc<CudaStream>,
    offload: Arc<CudaStream>,
    gpu_blocks: Vec<CudaSlice<u16>>,
    free_slots: Vec<usize>,
    resident: HashMap<u64, usize>,
    offloaded: HashMap<u64, PinnedHostSlice<u16>>,
    block_elems: usize,
}

impl KvCacheManager {
    pub fn new(num_blocks: usize, layers: usize, heads: usize, head_dim: usize, tokens_per_block: usize) -> Result<Self, DriverError> {
        let ctx = CudaContext::new(0)?;
        let compute = ctx.new_stream()?;
        let offload = ctx.new_stream()?;
        // K and V, fp16 bit patterns
        let block_elems = 2 * layers * heads * head_dim * tokens_per_block;
        let gpu_blocks = (0..num_blocks)
            .map(|_| compute.alloc_zeros::<u16>(block_elems))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(KvCacheManager {
            ctx,
            compute,
            offload,
            gpu_blocks,
            free_slots: (0..num_blocks).rev().collect(),
            resident: HashMap::new(),
            offloaded: HashMap::new(),
            block_elems,
        })
    }

    pub fn allocate(&mut self, seq_id: u64) -> Option<usize> {
        let slot = self.free_slots.pop()?;
        self.resident.insert(seq_id, slot);
        Some(slot)
    }

    /// Moves a sequence's block to host memory so its GPU slot can be reused.
    pub fn evict(&mut self, seq_id: u64) -> Result<bool, DriverError> {
        let Some(slot) = self.resident.remove(&seq_id) else { return Ok(false) };
        let mut host = unsafe { self.ctx.alloc_pinned::<u16>(self.block_elems)? };
        self.offload.memcpy_dtoh(&self.gpu_blocks[slot], &mut host)?;
        self.offloaded.insert(seq_id, host);
        self.free_slots.push(slot);
        Ok(true)
    }

    /// Long-idle sequences are written to the disk tier and their pinned block released.
    pub fn spill(&mut self, seq_id: u64, out: &mut dyn Write) -> Result<usize, Box<dyn std::error::Error>> {
        let host = match self.offloaded.remove(&seq_id) {
            Some(h) => h,
            None => return Ok(0),
        };
        let bytes: Vec<u8> = host.as_slice()?.iter().flat_map(|h| h.to_le_bytes()).collect(); // EXPECT: write_combined_host_read
        out.write_all(&seq_id.to_le_bytes())?;
        out.write_all(&bytes)?;
        Ok(bytes.len())
    }
}
