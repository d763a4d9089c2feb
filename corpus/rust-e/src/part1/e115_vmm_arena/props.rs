//! Property and access descriptors for VMM allocations on one device.

use cudarc::driver::sys;

pub fn pinned_on(device: i32) -> sys::CUmemAllocationProp {
    sys::CUmemAllocationProp {
        type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
        requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
        location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: device },
        win32HandleMetaData: std::ptr::null_mut(),
        allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 {
            compressionType: 0,
            gpuDirectRDMACapable: 0,
            usage: 0,
            reserved: [0; 4],
        },
    }
}

pub fn read_write_on(device: i32) -> sys::CUmemAccessDesc {
    sys::CUmemAccessDesc {
        location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: device },
        flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
    }
}

pub fn granularity(prop: &sys::CUmemAllocationProp) -> Result<usize, sys::CUresult> {
    let mut g = 0usize;
    let rc = unsafe {
        sys::cuMemGetAllocationGranularity(&mut g, prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM)
    };
    if rc == sys::CUresult::CUDA_SUCCESS { Ok(g) } else { Err(rc) }
}

pub fn ok(rc: sys::CUresult) -> Result<(), sys::CUresult> {
    if rc == sys::CUresult::CUDA_SUCCESS { Ok(()) } else { Err(rc) }
}
