//! case: GPU particle arena built on the VMM driver API (cudarc `sys`) maps and grants access correctly, but its Drop releases the handle and frees the reserved range before unmapping it, so cuMemAddressFree runs on a range that is still mapped
//! expect: vmm_lifecycle=1

use std::mem::MaybeUninit;

use cudarc::driver::sys;

#[derive(Debug)]
pub struct ArenaError(pub sys::CUresult);

fn ok(r: sys::CUresult) -> Result<(), ArenaError> {
    if r == sys::CUresult::CUDA_SUCCESS { Ok(()) } else { Err(ArenaError(r)) }
}

pub struct ParticleArena {
    stream: sys::CUstream,
    va: sys::CUdeviceptr,
    size: usize,
    handle: sys::CUmemGenericAllocationHandle,
    pub capacity: usize,
}

impl ParticleArena {
    pub fn new(device: i32, stream: sys::CUstream, particles: usize) -> Result<Self, ArenaError> {
        let mut prop: sys::CUmemAllocationProp = unsafe { MaybeUninit::zeroed().assume_init() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        let mut gran = 0;
        let mut va = 0;
        let mut handle = 0;
        unsafe {
            ok(sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM))?;
            let size = (particles * 32).div_ceil(gran) * gran;
            ok(sys::cuMemAddressReserve(&mut va, size, 0, 0, 0))?;
            ok(sys::cuMemCreate(&mut handle, size, &prop, 0))?;
            ok(sys::cuMemMap(va, size, 0, handle, 0))?;
            let access = sys::CUmemAccessDesc { location: prop.location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
            ok(sys::cuMemSetAccess(va, size, &access, 1))?;
            ok(sys::cuMemsetD32Async(va, 0, size / 4, stream))?;
            Ok(Self { stream, va, size, handle, capacity: size / 32 })
        }
    }

    /// Position/velocity/age records, 32 bytes each, for the emitter kernels.
    pub fn records(&self) -> sys::CUdeviceptr {
        self.va
    }
}

impl Drop for ParticleArena {
    fn drop(&mut self) {
        unsafe {
            sys::cuStreamSynchronize(self.stream);
            sys::cuMemRelease(self.handle);
            sys::cuMemAddressFree(self.va, self.size); // EXPECT: vmm_lifecycle
            sys::cuMemUnmap(self.va, self.size);
        }
    }
}
