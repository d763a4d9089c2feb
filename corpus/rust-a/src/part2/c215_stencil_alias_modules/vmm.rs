//! Raw VMM plumbing: one physical allocation seen through two reservations.
use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle};
use cudarc::driver::DriverError;

pub struct AliasPair {
    pub primary: CUdeviceptr,
    pub secondary: CUdeviceptr,
    pub size: usize,
    handle: CUmemGenericAllocationHandle,
}

fn reserve_and_map(handle: CUmemGenericAllocationHandle, size: usize, loc: sys::CUmemLocation) -> Result<CUdeviceptr, DriverError> {
    let mut va = 0;
    unsafe {
        sys::cuMemAddressReserve(&mut va, size, 0, 0, 0).result()?;
        sys::cuMemMap(va, size, 0, handle, 0).result()?;
        let desc = sys::CUmemAccessDesc { location: loc, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        sys::cuMemSetAccess(va, size, &desc, 1).result()?;
    }
    Ok(va)
}

impl AliasPair {
    pub fn new(device: i32, bytes: usize) -> Result<AliasPair, DriverError> {
        let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        let mut gran = 0;
        unsafe { sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_RECOMMENDED) }.result()?;
        let size = bytes.div_ceil(gran) * gran;
        let mut handle = 0;
        unsafe { sys::cuMemCreate(&mut handle, size, &prop, 0) }.result()?;
        let primary = reserve_and_map(handle, size, prop.location)?;
        let secondary = reserve_and_map(handle, size, prop.location)?;
        Ok(AliasPair { primary, secondary, size, handle })
    }
}

impl Drop for AliasPair {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            for va in [self.primary, self.secondary] {
                let _ = sys::cuMemUnmap(va, self.size);
                let _ = sys::cuMemAddressFree(va, self.size);
            }
            let _ = sys::cuMemRelease(self.handle);
        }
    }
}
