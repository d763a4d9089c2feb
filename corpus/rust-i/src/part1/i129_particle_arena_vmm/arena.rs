use cudarc::driver::sys;

use super::VmmResult;

pub struct ParticleArena {
    pub(super) device: i32,
    pub(super) stream: sys::CUstream,
    pub(super) base: sys::CUdeviceptr,
    pub(super) reserved: usize,
    pub(super) chunk: usize,
    pub(super) chunks: Vec<sys::CUmemGenericAllocationHandle>,
}

pub(super) fn prop(device: i32) -> sys::CUmemAllocationProp {
    let mut p: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
    p.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    p.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = device;
    p
}

impl ParticleArena {
    pub fn reserve(device: i32, stream: sys::CUstream, max_bytes: usize) -> VmmResult<Self> {
        let p = prop(device);
        let mut gran = 0usize;
        let mut base: sys::CUdeviceptr = 0;
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut gran, &p, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM).result()?;
            let reserved = max_bytes.div_ceil(gran) * gran;
            sys::cuMemAddressReserve(&mut base, reserved, 0, 0, 0).result()?;
            Ok(Self { device, stream, base, reserved, chunk: gran * 16, chunks: Vec::new() })
        }
    }

    pub fn mapped_bytes(&self) -> usize {
        self.chunks.len() * self.chunk
    }

    pub fn device_ptr(&self) -> sys::CUdeviceptr {
        self.base
    }

    /// Maps one more chunk at the end of the mapped region, zero-filled.
    pub fn grow(&mut self) -> VmmResult<()> {
        let offset = self.mapped_bytes();
        assert!(offset + self.chunk <= self.reserved, "arena full");
        let p = prop(self.device);
        let mut handle: sys::CUmemGenericAllocationHandle = 0;
        let at = self.base + offset as u64;
        unsafe {
            sys::cuMemCreate(&mut handle, self.chunk, &p, 0).result()?;
            sys::cuMemMap(at, self.chunk, 0, handle, 0).result()?;
            // New particles start zeroed (mass 0 = dead slot).
            sys::cuMemsetD32Async(at, 0, self.chunk / 4, self.stream).result()?; // EXPECT: vmm_lifecycle
        }
        self.chunks.push(handle);
        self.grant_access(at, self.chunk)
    }

    fn grant_access(&self, at: sys::CUdeviceptr, bytes: usize) -> VmmResult<()> {
        let mut desc: sys::CUmemAccessDesc = unsafe { std::mem::zeroed() };
        desc.location = prop(self.device).location;
        desc.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        unsafe { sys::cuMemSetAccess(at, bytes, &desc, 1).result() }
    }
}
