use cudarc::driver::sys::{
    CUmemAccessDesc, CUmemAccess_flags, CUmemAllocationProp, CUmemAllocationType, CUmemLocation, CUmemLocationType,
};

pub fn pinned_on(device: i32) -> CUmemAllocationProp {
    let mut prop: CUmemAllocationProp = unsafe { std::mem::zeroed() };
    prop.type_ = CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location = CUmemLocation { type_: CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: device };
    prop
}

pub fn read_write_on(device: i32) -> CUmemAccessDesc {
    CUmemAccessDesc {
        location: CUmemLocation { type_: CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: device },
        flags: CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
    }
}
