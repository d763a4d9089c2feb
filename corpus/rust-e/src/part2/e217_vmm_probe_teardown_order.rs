//! case: a device-selection probe checks that VMM works by reserving, mapping and touching one granule, then tears it down in the wrong order: the reserved range is freed with cuMemAddressFree while it is still mapped (the unmap comes after)
//! expect: vmm_lifecycle=1

use std::mem::MaybeUninit;

use cudarc::driver::{result, sys, DriverError};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VmmSupport {
    Unsupported,
    Usable { granularity: usize },
}

pub fn probe(ordinal: i32) -> Result<VmmSupport, DriverError> {
    result::init()?;
    let device = result::device::get(ordinal)?;
    let supported = unsafe {
        result::device::get_attribute(device, sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED)?
    };
    if supported == 0 {
        return Ok(VmmSupport::Unsupported);
    }
    let ctx = unsafe { result::primary_ctx::retain(device)? };
    unsafe { result::ctx::set_current(ctx)? };

    let mut prop: sys::CUmemAllocationProp = unsafe { MaybeUninit::zeroed().assume_init() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;

    let outcome = unsafe { touch_one_granule(&prop) };
    unsafe { result::primary_ctx::release(device)? };
    outcome.map(|granularity| VmmSupport::Usable { granularity })
}

unsafe fn touch_one_granule(prop: &sys::CUmemAllocationProp) -> Result<usize, DriverError> {
    let mut gran = 0usize;
    let mut va: sys::CUdeviceptr = 0;
    let mut handle: sys::CUmemGenericAllocationHandle = 0;
    unsafe {
        sys::cuMemGetAllocationGranularity(&mut gran, prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM).result()?;
        sys::cuMemAddressReserve(&mut va, gran, 0, 0, 0).result()?;
        sys::cuMemCreate(&mut handle, gran, prop, 0).result()?;
        sys::cuMemMap(va, gran, 0, handle, 0).result()?;
        let access = sys::CUmemAccessDesc { location: prop.location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        sys::cuMemSetAccess(va, gran, &access, 1).result()?;
        sys::cuMemsetD8_v2(va, 0xA5, gran).result()?;
        sys::cuCtxSynchronize().result()?;

        // cleanup; a failed cleanup must not turn a usable device into an unusable one
        let _ = sys::cuMemRelease(handle);
        let _ = sys::cuMemAddressFree(va, gran); // EXPECT: vmm_lifecycle
        let _ = sys::cuMemUnmap(va, gran);
    }
    Ok(gran)
}
