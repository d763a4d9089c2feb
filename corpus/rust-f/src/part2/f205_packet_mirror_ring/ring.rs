use super::Res;
use cudarc::driver::result as drv;
use cudarc::driver::sys;

/// One physical allocation visible twice, back to back, so a record that wraps around the end
/// can be read as one contiguous span.
pub struct MirroredRing {
    pub base: sys::CUdeviceptr,
    pub size: usize,
    handle: sys::CUmemGenericAllocationHandle,
}

impl MirroredRing {
    pub fn new(min_bytes: usize) -> Res<Self> {
        drv::init()?;
        let dev = drv::device::get(0)?;
        let ctx = unsafe { drv::primary_ctx::retain(dev) }?;
        unsafe { drv::ctx::set_current(ctx) }?;

        let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = dev;
        let mut gran = 0usize;
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM)
                .result()?;
        }
        let size = min_bytes.div_ceil(gran) * gran;

        let mut handle = 0;
        let mut base = 0;
        unsafe {
            sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
            sys::cuMemAddressReserve(&mut base, 2 * size, 0, 0, 0).result()?;
            sys::cuMemMap(base, size, 0, handle, 0).result()?;
            sys::cuMemMap(base + size as u64, size, 0, handle, 0).result()?;
            let mut access: sys::CUmemAccessDesc = std::mem::zeroed();
            access.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
            access.location.id = dev;
            access.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
            sys::cuMemSetAccess(base, 2 * size, &access, 1).result()?;
        }
        Ok(MirroredRing { base, size, handle })
    }

    fn give_back_address_space(&mut self) {
        unsafe {
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.base, 2 * self.size); // EXPECT: vmm_lifecycle
        }
    }

    fn drop_views(&mut self) {
        unsafe {
            let _ = sys::cuMemUnmap(self.base, self.size);
            let _ = sys::cuMemUnmap(self.base + self.size as u64, self.size);
        }
    }
}

impl Drop for MirroredRing {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
        }
        self.give_back_address_space();
        self.drop_views();
    }
}
