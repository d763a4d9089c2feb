use cudarc::driver::sys::{
    self, CUdeviceptr, CUmemAccessDesc, CUmemAccess_flags, CUmemAllocationGranularity_flags, CUmemAllocationProp,
    CUmemAllocationType, CUmemGenericAllocationHandle, CUmemLocation, CUmemLocationType, CUresult, CUstream,
};

fn ok(r: CUresult) -> Result<(), CUresult> {
    if r == CUresult::CUDA_SUCCESS { Ok(()) } else { Err(r) }
}

pub struct Slab {
    pub base: CUdeviceptr,
    pub size: usize,
    handle: CUmemGenericAllocationHandle,
}

impl Slab {
    pub fn create(device: i32, bytes: usize, stream: CUstream) -> Result<Slab, CUresult> {
        let location = CUmemLocation { type_: CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: device };
        let mut prop: CUmemAllocationProp = unsafe { std::mem::zeroed() };
        prop.type_ = CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location = location;
        let access = CUmemAccessDesc { location, flags: CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        let mut gran = 0usize;
        let mut base: CUdeviceptr = 0;
        let mut handle: CUmemGenericAllocationHandle = 0;
        unsafe {
            ok(sys::cuMemGetAllocationGranularity(&mut gran, &prop, CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_RECOMMENDED))?;
            let size = bytes.div_ceil(gran) * gran;
            ok(sys::cuMemAddressReserve(&mut base, size, 0, 0, 0))?;
            if let Err(e) = ok(sys::cuMemCreate(&mut handle, size, &prop, 0)) {
                sys::cuMemAddressFree(base, size);
                return Err(e);
            }
            if let Err(e) = ok(sys::cuMemMap(base, size, 0, handle, 0)) {
                sys::cuMemRelease(handle);
                sys::cuMemAddressFree(base, size);
                return Err(e);
            }
            if let Err(e) = ok(sys::cuMemSetAccess(base, size, &access, 1)) {
                sys::cuMemUnmap(base, size);
                sys::cuMemRelease(handle);
                sys::cuMemAddressFree(base, size);
                return Err(e);
            }
            ok(sys::cuMemsetD8Async(base, 0, size, stream))?;
            Ok(Slab { base, size, handle })
        }
    }

    /// Waits for the stream's work on the slab, then tears the mapping down.
    pub fn destroy(self, stream: CUstream) -> Result<(), CUresult> {
        unsafe {
            ok(sys::cuStreamSynchronize(stream))?;
            ok(sys::cuMemUnmap(self.base, self.size))?;
            ok(sys::cuMemRelease(self.handle))?;
            ok(sys::cuMemAddressFree(self.base, self.size))
        }
    }
}
