//! case: a VMM-backed KV pool defragments by swapping the physical chunk behind a slot: it unmaps the old chunk, maps a fresh one at the same address and copies the saved contents in, without granting access to the new mapping (access does not survive an unmap)
//! expect: vmm_lifecycle=1

use std::mem::MaybeUninit;

use cudarc::driver::{sys, DriverError};

pub struct KvPool {
    device: sys::CUdevice,
    base: sys::CUdeviceptr,
    chunk: usize,
    slots: Vec<Option<sys::CUmemGenericAllocationHandle>>,
}

impl KvPool {
    fn prop(&self) -> sys::CUmemAllocationProp {
        let mut prop: sys::CUmemAllocationProp = unsafe { MaybeUninit::zeroed().assume_init() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = self.device;
        prop
    }

    fn slot_addr(&self, slot: usize) -> sys::CUdeviceptr {
        self.base + (slot * self.chunk) as u64
    }

    /// Moves the contents of `slot` onto a freshly created physical chunk (e.g. one on a
    /// less fragmented memory pool), using `backup` as the temporary copy.
    pub fn rehome_slot(&mut self, slot: usize, backup: sys::CUdeviceptr, stream: sys::CUstream) -> Result<(), DriverError> {
        let Some(old) = self.slots[slot].take() else {
            return Ok(());
        };
        let addr = self.slot_addr(slot);
        let prop = self.prop();
        let mut fresh = 0;
        unsafe {
            sys::cuMemcpyDtoDAsync_v2(backup, addr, self.chunk, stream).result()?;
            sys::cuStreamSynchronize(stream).result()?;
            sys::cuMemUnmap(addr, self.chunk).result()?;
            sys::cuMemRelease(old).result()?;

            sys::cuMemCreate(&mut fresh, self.chunk, &prop, 0).result()?;
            sys::cuMemMap(addr, self.chunk, 0, fresh, 0).result()?;
            sys::cuMemcpyDtoDAsync_v2(addr, backup, self.chunk, stream).result()?; // EXPECT: vmm_lifecycle
        }
        self.slots[slot] = Some(fresh);
        Ok(())
    }
}
