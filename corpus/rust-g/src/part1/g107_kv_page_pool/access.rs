use cudarc::driver::sys;

use super::Result;

pub fn pinned_prop(dev: sys::CUdevice) -> sys::CUmemAllocationProp {
    sys::CUmemAllocationProp {
        type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
        requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
        location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: dev },
        win32HandleMetaData: std::ptr::null_mut(),
        allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 {
            compressionType: 0,
            gpuDirectRDMACapable: 0,
            usage: 0,
            reserved: [0; 4],
        },
    }
}

pub fn granularity(dev: sys::CUdevice) -> Result<usize> {
    let prop = pinned_prop(dev);
    let mut gran = 0usize;
    unsafe {
        sys::cuMemGetAllocationGranularity(
            &mut gran,
            &prop,
            sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM,
        )
        .result()?
    };
    Ok(gran)
}

/// Gives device `dev` read-write access to `[ptr, ptr + size)`.
pub fn grant_rw(dev: sys::CUdevice, ptr: sys::CUdeviceptr, size: usize) -> Result<()> {
    let desc = sys::CUmemAccessDesc {
        location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: dev },
        flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
    };
    unsafe { sys::cuMemSetAccess(ptr, size, &desc, 1).result()? };
    Ok(())
}
