//! case: a VMM arena whose constructor zeroes the mapping (cuMemsetD32Async in a helper) before a later grant() calls cuMemSetAccess
//! expect: vmm_lifecycle=1
use cudarc::driver::sys::{self, CUdeviceptr, CUstream};
use cudarc::driver::{CudaContext, DriverError};

pub struct VmmArena {
    va: CUdeviceptr,
    size: usize,
    handle: sys::CUmemGenericAllocationHandle,
    location: sys::CUmemLocation,
    stream: CUstream,
}

impl VmmArena {
    pub fn new(device: i32, size: usize, stream: CUstream) -> Result<VmmArena, DriverError> {
        let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        let (mut va, mut handle) = (0, 0);
        unsafe {
            sys::cuMemAddressReserve(&mut va, size, 0, 0, 0).result()?;
            sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
            sys::cuMemMap(va, size, 0, handle, 0).result()?;
        }
        let arena = VmmArena { va, size, handle, location: prop.location, stream };
        arena.clear()?;
        arena.grant()?;
        Ok(arena)
    }

    /// Zeroes the whole arena on the arena's stream.
    fn clear(&self) -> Result<(), DriverError> {
        unsafe { sys::cuMemsetD32Async(self.va, 0, self.size / 4, self.stream) }.result() // EXPECT: vmm_lifecycle
    }

    fn grant(&self) -> Result<(), DriverError> {
        let desc = sys::CUmemAccessDesc {
            location: self.location,
            flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        };
        unsafe { sys::cuMemSetAccess(self.va, self.size, &desc, 1) }.result()
    }

    pub fn base(&self) -> CUdeviceptr {
        self.va
    }
}

impl Drop for VmmArena {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemUnmap(self.va, self.size);
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.va, self.size);
        }
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let arena = VmmArena::new(ctx.cu_device(), 32 << 20, stream.cu_stream())?;
    println!("arena at {:#x}", arena.base());
    stream.synchronize()?;
    Ok(())
}
