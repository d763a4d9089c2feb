//! case: inference tensor arena whose blocks are pinned host staging (cuMemAllocHost_v2) or device memory (cuMemAlloc_v2), held in an enum; `release` matches each variant to cuMemFreeHost / cuMemFree_v2 (near-miss for mismatched_free)
//! expect: none

use std::collections::HashMap;
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::{sys, DriverError};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Placement {
    HostStaging,
    Device,
}

#[derive(Debug)]
enum Block {
    Pinned { ptr: *mut c_void, bytes: usize },
    Device { ptr: sys::CUdeviceptr, bytes: usize },
}

impl Block {
    fn bytes(&self) -> usize {
        match self {
            Block::Pinned { bytes, .. } | Block::Device { bytes, .. } => *bytes,
        }
    }
}

fn alloc_block(placement: Placement, bytes: usize) -> Result<Block, DriverError> {
    unsafe {
        match placement {
            Placement::HostStaging => {
                let mut p = null_mut();
                sys::cuMemAllocHost_v2(&mut p, bytes).result()?;
                Ok(Block::Pinned { ptr: p, bytes })
            }
            Placement::Device => {
                let mut d = 0;
                sys::cuMemAlloc_v2(&mut d, bytes).result()?;
                Ok(Block::Device { ptr: d, bytes })
            }
        }
    }
}

fn release(block: Block) -> Result<(), DriverError> {
    unsafe {
        match block {
            Block::Pinned { ptr, .. } => sys::cuMemFreeHost(ptr).result(),
            Block::Device { ptr, .. } => sys::cuMemFree_v2(ptr).result(),
        }
    }
}

/// Named tensors for one model, allocated once and released together.
#[derive(Default)]
pub struct TensorArena {
    blocks: HashMap<String, Block>,
}

impl TensorArena {
    pub fn reserve(&mut self, name: &str, placement: Placement, bytes: usize) -> Result<(), DriverError> {
        if let Some(old) = self.blocks.remove(name) {
            release(old)?;
        }
        let b = alloc_block(placement, bytes)?;
        self.blocks.insert(name.to_owned(), b);
        Ok(())
    }

    pub fn total_bytes(&self, placement: Placement) -> usize {
        self.blocks
            .values()
            .filter(|b| matches!((b, placement), (Block::Pinned { .. }, Placement::HostStaging) | (Block::Device { .. }, Placement::Device)))
            .map(Block::bytes)
            .sum()
    }

    /// Frees everything; the caller has synchronized the context.
    pub fn clear(&mut self) -> Result<(), DriverError> {
        self.blocks.drain().map(|(_, b)| release(b)).collect()
    }
}

impl Drop for TensorArena {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
        }
        let _ = self.clear();
    }
}
