//! case: hot-swapping the physical backing of a weights range: the new handle is cuMemMap'ped onto the range while the old mapping is still in place
//! expect: vmm_lifecycle=1
use std::mem;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle};
use cudarc::driver::{CudaContext, DriverError};

pub struct WeightSlot {
    va: CUdeviceptr,
    size: usize,
    current: CUmemGenericAllocationHandle,
    loc: sys::CUmemLocation,
}

fn prop_for(loc: sys::CUmemLocation) -> sys::CUmemAllocationProp {
    let mut prop: sys::CUmemAllocationProp = unsafe { mem::zeroed() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location = loc;
    prop
}

impl WeightSlot {
    pub fn new(device: i32, size: usize) -> Result<Self, DriverError> {
        let loc = sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: device };
        let (mut va, mut h) = (0, 0);
        unsafe {
            sys::cuMemAddressReserve(&mut va, size, 0, 0, 0).result()?;
            sys::cuMemCreate(&mut h, size, &prop_for(loc), 0).result()?;
            sys::cuMemMap(va, size, 0, h, 0).result()?;
        }
        let slot = WeightSlot { va, size, current: h, loc };
        slot.grant()?;
        Ok(slot)
    }

    fn grant(&self) -> Result<(), DriverError> {
        let d = sys::CUmemAccessDesc { location: self.loc, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READ };
        unsafe { sys::cuMemSetAccess(self.va, self.size, &d, 1) }.result()
    }

    /// Points the slot at freshly loaded weights; returns the previous backing's handle.
    pub fn swap(&mut self, fresh: CUmemGenericAllocationHandle) -> Result<CUmemGenericAllocationHandle, DriverError> {
        unsafe { sys::cuCtxSynchronize() }.result()?;
        unsafe { sys::cuMemMap(self.va, self.size, 0, fresh, 0) }.result()?; // EXPECT: vmm_lifecycle
        self.grant()?;
        Ok(mem::replace(&mut self.current, fresh))
    }
}

impl Drop for WeightSlot {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            let _ = sys::cuMemUnmap(self.va, self.size);
            let _ = sys::cuMemRelease(self.current);
            let _ = sys::cuMemAddressFree(self.va, self.size);
        }
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let size = 16 << 20;
    let mut slot = WeightSlot::new(ctx.cu_device(), size)?;
    let mut fresh = 0;
    unsafe { sys::cuMemCreate(&mut fresh, size, &prop_for(slot.loc), 0) }.result()?;
    let old = slot.swap(fresh)?;
    unsafe { sys::cuMemRelease(old) }.result()?;
    Ok(())
}
