//! Thin helpers over the VMM entry points of cudarc's driver sys.

use std::mem::zeroed;

use cudarc::driver::result::DriverError;
use cudarc::driver::sys::{self, CUdeviceptr, CUmemAccessDesc, CUmemAllocationProp, CUmemGenericAllocationHandle};

fn prop(device: i32) -> CUmemAllocationProp {
    let mut p: CUmemAllocationProp = unsafe { zeroed() };
    p.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    p.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = device;
    p
}

pub fn granularity(device: i32) -> Result<usize, DriverError> {
    let mut g = 0usize;
    unsafe {
        sys::cuMemGetAllocationGranularity(&mut g, &prop(device), sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_RECOMMENDED).result()?;
    }
    Ok(g)
}

pub struct Reservation {
    pub device: i32,
    pub base: CUdeviceptr,
    pub size: usize,
}

impl Reservation {
    pub fn reserve(device: i32, size: usize) -> Result<Self, DriverError> {
        let mut base = 0;
        unsafe { sys::cuMemAddressReserve(&mut base, size, 0, 0, 0).result()? };
        Ok(Self { device, base, size })
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemAddressFree(self.base, self.size);
        }
    }
}

pub struct MappedPage {
    pub at: CUdeviceptr,
    pub size: usize,
    handle: CUmemGenericAllocationHandle,
}

impl MappedPage {
    /// cuMemCreate + cuMemMap + cuMemSetAccess: the page is usable by the device on return.
    pub fn map_with_access(range: &Reservation, at: CUdeviceptr, size: usize) -> Result<Self, DriverError> {
        let mut handle = 0;
        let mut access: CUmemAccessDesc = unsafe { zeroed() };
        access.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        access.location.id = range.device;
        access.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        unsafe {
            sys::cuMemCreate(&mut handle, size, &prop(range.device), 0).result()?;
            if let Err(e) = sys::cuMemMap(at, size, 0, handle, 0).result() {
                let _ = sys::cuMemRelease(handle);
                return Err(e);
            }
            if let Err(e) = sys::cuMemSetAccess(at, size, &access, 1).result() {
                let _ = sys::cuMemUnmap(at, size);
                let _ = sys::cuMemRelease(handle);
                return Err(e);
            }
        }
        Ok(Self { at, size, handle })
    }

    /// The caller has waited for every stream that used the page.
    pub fn unmap_and_release(self) -> Result<(), DriverError> {
        unsafe {
            sys::cuMemUnmap(self.at, self.size).result()?;
            sys::cuMemRelease(self.handle).result()
        }
    }
}
