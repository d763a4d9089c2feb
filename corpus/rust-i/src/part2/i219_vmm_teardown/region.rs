use cudarc::driver::sys::{
    self, CUmemAccessDesc, CUmemAccess_flags, CUmemAllocationGranularity_flags, CUmemAllocationProp, CUmemAllocationType,
    CUmemLocation, CUmemLocationType, CUresult,
};

/// The audit checksum kernel (compiled with NVRTC at start-up and passed to the swapper).
pub const CHECKSUM_SRC: &str = r#"
extern "C" __global__ void checksum(const unsigned* words, unsigned n, unsigned* out) {
    unsigned acc = 0;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        acc ^= words[i] * 2654435761u;
    atomicXor(out, acc);
}
"#;

pub fn ok(r: CUresult) -> Result<(), CUresult> {
    if r == CUresult::CUDA_SUCCESS { Ok(()) } else { Err(r) }
}

pub fn alloc_prop(device: i32) -> CUmemAllocationProp {
    let mut prop: CUmemAllocationProp = unsafe { std::mem::zeroed() };
    prop.type_ = CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location = CUmemLocation { type_: CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: device };
    prop
}

pub fn access_rw(device: i32) -> CUmemAccessDesc {
    CUmemAccessDesc {
        location: CUmemLocation { type_: CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: device },
        flags: CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
    }
}

pub fn granularity(prop: &CUmemAllocationProp) -> Result<usize, CUresult> {
    let mut g = 0usize;
    unsafe {
        ok(sys::cuMemGetAllocationGranularity(&mut g, prop, CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_RECOMMENDED))?;
    }
    Ok(g)
}
