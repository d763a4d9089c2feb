//! case: a KV-cache manager swaps evicted blocks back in with cudaMemcpyAsync (cudarc's runtime wrappers) straight from the `Vec<u16>` each block was spilled to; every block copy is an async copy from pageable memory (dropping the Vec right after is fine: a pageable upload returns once staged)
//! expect: pageable_async_copy=1

use std::collections::HashMap;
use std::ffi::c_void;

use cudarc::runtime::result::{self as rt, RuntimeError};
use cudarc::runtime::sys as rts;

pub struct SpilledBlock {
    pub data: Vec<u16>,
}

pub struct KvCache {
    gpu_base: *mut c_void,
    block_bytes: usize,
    free_slots: Vec<usize>,
    resident: HashMap<u64, usize>,
    spilled: HashMap<u64, SpilledBlock>,
}

impl KvCache {
    pub fn new(num_slots: usize, block_bytes: usize) -> Result<Self, RuntimeError> {
        let gpu_base = unsafe { rt::malloc_sync(num_slots * block_bytes)? };
        Ok(Self { gpu_base, block_bytes, free_slots: (0..num_slots).rev().collect(), resident: HashMap::new(), spilled: HashMap::new() })
    }

    fn slot_ptr(&self, slot: usize) -> *mut c_void {
        self.gpu_base.wrapping_byte_add(slot * self.block_bytes)
    }

    /// Brings the given sequence blocks back to the GPU; returns how many were restored.
    pub fn swap_in(&mut self, blocks: &[u64], stream: rts::cudaStream_t) -> Result<usize, RuntimeError> {
        let mut restored = 0;
        for id in blocks {
            if self.resident.contains_key(id) {
                continue;
            }
            if self.free_slots.is_empty() {
                break;
            }
            let Some(block) = self.spilled.remove(id) else {
                continue;
            };
            let slot = self.free_slots.pop().expect("checked above");
            debug_assert_eq!(block.data.len() * 2, self.block_bytes);
            unsafe { rt::memcpy_htod_async(self.slot_ptr(slot), &block.data, stream)? }; // EXPECT: pageable_async_copy
            self.resident.insert(*id, slot);
            restored += 1;
        }
        unsafe { rt::stream::synchronize(stream)? };
        Ok(restored)
    }
}

impl Drop for KvCache {
    fn drop(&mut self) {
        let _ = unsafe { rt::free_sync(self.gpu_base) };
    }
}
