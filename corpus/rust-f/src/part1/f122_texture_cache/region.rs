use std::mem::MaybeUninit;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle};
use cudarc::driver::DriverError;

pub fn device_prop(ordinal: i32) -> sys::CUmemAllocationProp {
    let mut prop: sys::CUmemAllocationProp = unsafe { MaybeUninit::zeroed().assume_init() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = ordinal;
    prop
}

/// A reserved range with exactly one physical allocation mapped over all of it.
pub struct Region {
    pub(crate) va: CUdeviceptr,
    pub(crate) size: usize,
    handle: CUmemGenericAllocationHandle,
    prop: sys::CUmemAllocationProp,
}

impl Region {
    pub fn new(ordinal: i32, bytes: usize) -> Result<Self, DriverError> {
        let prop = device_prop(ordinal);
        let mut gran = 0usize;
        let (mut va, mut handle) = (0, 0);
        let size;
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM)
                .result()?;
            size = bytes.div_ceil(gran) * gran;
            sys::cuMemAddressReserve(&mut va, size, 0, 0, 0).result()?;
            sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
            sys::cuMemMap(va, size, 0, handle, 0).result()?;
        }
        let region = Self { va, size, handle, prop };
        region.grant()?;
        Ok(region)
    }

    fn grant(&self) -> Result<(), DriverError> {
        let access = sys::CUmemAccessDesc {
            location: self.prop.location,
            flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        };
        unsafe { sys::cuMemSetAccess(self.va, self.size, &access, 1).result() }
    }

    /// Replaces the backing with a new allocation made with `prop` (the caller has synchronized).
    pub fn swap_backing(&mut self, prop: sys::CUmemAllocationProp) -> Result<(), DriverError> {
        let mut fresh: CUmemGenericAllocationHandle = 0;
        unsafe {
            sys::cuMemCreate(&mut fresh, self.size, &prop, 0).result()?;
            sys::cuMemMap(self.va, self.size, 0, fresh, 0).result()?; // EXPECT: vmm_lifecycle
            sys::cuMemRelease(self.handle).result()?;
        }
        self.handle = fresh;
        self.prop = prop;
        self.grant()
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.va, self.size); // EXPECT: vmm_lifecycle
        }
    }
}
