//! case: a VMM slab allocator's Drop waits for the device and releases the physical handle, then frees the reserved range with cuMemAddressFree while the range is still mapped (the cuMemUnmap call was lost in a refactor)
//! expect: vmm_lifecycle=1

use std::collections::BTreeMap;
use std::mem::zeroed;

use cudarc::driver::{sys, DriverError};

/// Fixed-size slots carved out of one VMM-backed slab.
pub struct Slab {
    base: sys::CUdeviceptr,
    size: usize,
    handle: sys::CUmemGenericAllocationHandle,
    slot_bytes: usize,
    free_slots: Vec<usize>,
    owners: BTreeMap<usize, u64>,
}

impl Slab {
    pub fn new(device: i32, size: usize, slot_bytes: usize) -> Result<Self, DriverError> {
        let mut prop: sys::CUmemAllocationProp = unsafe { zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        let access = sys::CUmemAccessDesc {
            location: prop.location,
            flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        };
        let (mut base, mut handle) = (0, 0);
        unsafe {
            sys::cuMemAddressReserve(&mut base, size, 0, 0, 0).result()?;
            sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
            sys::cuMemMap(base, size, 0, handle, 0).result()?;
            sys::cuMemSetAccess(base, size, &access, 1).result()?;
        }
        let free_slots = (0..size / slot_bytes).rev().collect();
        Ok(Self { base, size, handle, slot_bytes, free_slots, owners: BTreeMap::new() })
    }

    pub fn alloc(&mut self, owner: u64) -> Option<sys::CUdeviceptr> {
        let slot = self.free_slots.pop()?;
        self.owners.insert(slot, owner);
        Some(self.base + (slot * self.slot_bytes) as u64)
    }

    pub fn free(&mut self, ptr: sys::CUdeviceptr) {
        let slot = ((ptr - self.base) as usize) / self.slot_bytes;
        if self.owners.remove(&slot).is_some() {
            self.free_slots.push(slot);
        }
    }

    pub fn in_use(&self) -> usize {
        self.owners.len()
    }
}

impl Drop for Slab {
    fn drop(&mut self) {
        if !self.owners.is_empty() {
            eprintln!("slab dropped with {} live slots", self.owners.len());
        }
        unsafe {
            let _ = sys::cuCtxSynchronize();
            let _ = sys::cuMemRelease(self.handle);
            let rc = sys::cuMemAddressFree(self.base, self.size); // EXPECT: vmm_lifecycle
            if rc != sys::CUresult::CUDA_SUCCESS {
                eprintln!("cuMemAddressFree: {rc:?}");
            }
        }
    }
}
