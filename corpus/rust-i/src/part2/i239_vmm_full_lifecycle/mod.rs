//! case: elastic scratch pool for a GPU job scheduler (VMM via cudarc's driver sys layer): every slab is reserved, created, mapped and granted access before its first memset, and released by synchronize, unmap, release, address free, in that order, also on the error path (near-miss)
//! expect: none

mod slab;

use cudarc::driver::sys::{CUresult, CUstream};
use slab::Slab;
use std::collections::BTreeMap;

pub struct ElasticPool {
    device: i32,
    stream: CUstream,
    slabs: BTreeMap<u32, Slab>,
    next_id: u32,
    budget: usize,
    in_use: usize,
}

impl ElasticPool {
    pub fn new(device: i32, stream: CUstream, budget: usize) -> Self {
        ElasticPool { device, stream, slabs: BTreeMap::new(), next_id: 0, budget, in_use: 0 }
    }

    /// A zeroed slab of at least `bytes` for a job; returns its id and device address.
    pub fn lease(&mut self, bytes: usize) -> Result<(u32, u64), CUresult> {
        if self.in_use + bytes > self.budget {
            self.trim()?;
            if self.in_use + bytes > self.budget {
                return Err(CUresult::CUDA_ERROR_OUT_OF_MEMORY);
            }
        }
        let slab = Slab::create(self.device, bytes, self.stream)?;
        let id = self.next_id;
        self.next_id += 1;
        let addr = slab.base;
        self.in_use += slab.size;
        self.slabs.insert(id, slab);
        Ok((id, addr))
    }

    /// Returns a slab; the job's kernels may still be running on the pool's stream.
    pub fn give_back(&mut self, id: u32) -> Result<(), CUresult> {
        if let Some(slab) = self.slabs.remove(&id) {
            self.in_use -= slab.size;
            slab.destroy(self.stream)?;
        }
        Ok(())
    }

    /// Releases the largest slabs until usage is under half the budget.
    pub fn trim(&mut self) -> Result<(), CUresult> {
        let mut by_size: Vec<(usize, u32)> = self.slabs.iter().map(|(&id, s)| (s.size, id)).collect();
        by_size.sort_unstable_by(|a, b| b.cmp(a));
        for (_, id) in by_size {
            if self.in_use <= self.budget / 2 {
                break;
            }
            self.give_back(id)?;
        }
        Ok(())
    }
}

impl Drop for ElasticPool {
    fn drop(&mut self) {
        let ids: Vec<u32> = self.slabs.keys().copied().collect();
        for id in ids {
            let _ = self.give_back(id);
        }
    }
}
