//! case: an inference server hot-swaps model weights behind a fixed device address (VMM driver API): the new weights are loaded into a second physical allocation through a staging mapping, then `swap` maps the new handle at the serving address while the old handle is still mapped there
//! expect: vmm_lifecycle=1

use std::mem::{replace, zeroed};

use cudarc::driver::result::DriverError;
use cudarc::driver::sys::{self, CUdeviceptr, CUmemAccessDesc, CUmemAllocationProp, CUmemGenericAllocationHandle, CUstream};

pub enum Slot {
    Empty,
    Loaded { handle: CUmemGenericAllocationHandle, version: u32 },
}

pub struct WeightSlot {
    device: i32,
    stream: CUstream,
    serving_va: CUdeviceptr, // kernels always read weights here
    staging_va: CUdeviceptr, // where the next version is uploaded
    size: usize,
    live: Slot,
    next: Slot,
}

fn prop(device: i32) -> CUmemAllocationProp {
    let mut p: CUmemAllocationProp = unsafe { zeroed() };
    p.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    p.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = device;
    p
}

impl WeightSlot {
    fn grant(&self, va: CUdeviceptr) -> Result<(), DriverError> {
        let mut a: CUmemAccessDesc = unsafe { zeroed() };
        a.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        a.location.id = self.device;
        a.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        unsafe { sys::cuMemSetAccess(va, self.size, &a, 1).result() }
    }

    /// `initial` is a handle the caller created and filled; it becomes the live version 0.
    pub fn new(device: i32, stream: CUstream, size: usize, initial: CUmemGenericAllocationHandle) -> Result<Self, DriverError> {
        let (mut serving_va, mut staging_va) = (0, 0);
        unsafe {
            sys::cuMemAddressReserve(&mut serving_va, size, 0, 0, 0).result()?;
            sys::cuMemAddressReserve(&mut staging_va, size, 0, 0, 0).result()?;
            sys::cuMemMap(serving_va, size, 0, initial, 0).result()?;
        }
        let slot = Self { device, stream, serving_va, staging_va, size, live: Slot::Loaded { handle: initial, version: 0 }, next: Slot::Empty };
        slot.grant(serving_va)?;
        Ok(slot)
    }

    /// Uploads version `version` from a device buffer into a fresh allocation mapped at `staging_va`.
    pub fn stage(&mut self, src: CUdeviceptr, version: u32) -> Result<(), DriverError> {
        let mut handle = 0;
        unsafe {
            sys::cuMemCreate(&mut handle, self.size, &prop(self.device), 0).result()?;
            sys::cuMemMap(self.staging_va, self.size, 0, handle, 0).result()?;
        }
        self.grant(self.staging_va)?;
        unsafe {
            sys::cuMemcpyDtoDAsync_v2(self.staging_va, src, self.size, self.stream).result()?;
            sys::cuStreamSynchronize(self.stream).result()?;
            sys::cuMemUnmap(self.staging_va, self.size).result()?;
        }
        self.next = Slot::Loaded { handle, version };
        Ok(())
    }

    /// Makes the staged version live at `serving_va`; returns the version that was replaced.
    pub fn swap(&mut self) -> Result<Option<u32>, DriverError> {
        let Slot::Loaded { handle, version } = replace(&mut self.next, Slot::Empty) else {
            return Ok(None);
        };
        unsafe {
            sys::cuStreamSynchronize(self.stream).result()?; // in-flight requests finish on the old weights
            sys::cuMemMap(self.serving_va, self.size, 0, handle, 0).result()?; // EXPECT: vmm_lifecycle
        }
        self.grant(self.serving_va)?;
        let old = replace(&mut self.live, Slot::Loaded { handle, version });
        Ok(match old {
            Slot::Loaded { handle: old_handle, version: old_version } => {
                unsafe { sys::cuMemRelease(old_handle).result()? };
                Some(old_version)
            }
            Slot::Empty => None,
        })
    }

    pub fn serving_ptr(&self) -> CUdeviceptr {
        self.serving_va
    }
}

impl Drop for WeightSlot {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            if let Slot::Loaded { handle, .. } = self.live {
                let _ = sys::cuMemUnmap(self.serving_va, self.size);
                let _ = sys::cuMemRelease(handle);
            }
            if let Slot::Loaded { handle, .. } = self.next {
                let _ = sys::cuMemRelease(handle);
            }
            let _ = sys::cuMemAddressFree(self.serving_va, self.size);
            let _ = sys::cuMemAddressFree(self.staging_va, self.size);
        }
    }
}
