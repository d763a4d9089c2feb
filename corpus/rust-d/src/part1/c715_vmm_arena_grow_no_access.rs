//! case: a growable device arena on the VMM driver API reserves a large range and maps physical chunks on demand; the constructor grants access to its first chunk, but `alloc` grows without `cuMemSetAccess` and then zeroes the new memory with cuMemsetD8Async
//! expect: vmm_lifecycle=1

use std::mem::zeroed;

use cudarc::driver::result::DriverError;
use cudarc::driver::sys::{
    self, CUdeviceptr, CUmemAccessDesc, CUmemAllocationProp, CUmemGenericAllocationHandle, CUstream,
};

fn pinned_prop(device: i32) -> CUmemAllocationProp {
    let mut prop: CUmemAllocationProp = unsafe { zeroed() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    prop
}

struct Chunk {
    handle: CUmemGenericAllocationHandle,
    at: CUdeviceptr,
    size: usize,
}

pub struct GrowableArena {
    device: i32,
    stream: CUstream,
    base: CUdeviceptr,
    reserved: usize,
    mapped: usize,
    used: usize,
    granularity: usize,
    chunks: Vec<Chunk>,
}

impl GrowableArena {
    pub fn new(device: i32, stream: CUstream, reserve: usize, initial: usize) -> Result<Self, DriverError> {
        let prop = pinned_prop(device);
        let mut granularity = 0usize;
        let mut base: CUdeviceptr = 0;
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut granularity, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM).result()?;
            let reserve = reserve.next_multiple_of(granularity);
            sys::cuMemAddressReserve(&mut base, reserve, 0, 0, 0).result()?;
            let mut arena = Self { device, stream, base, reserved: reserve, mapped: 0, used: 0, granularity, chunks: Vec::new() };
            arena.grow(initial)?;
            arena.grant(arena.base, arena.mapped)?;
            Ok(arena)
        }
    }

    fn grant(&self, ptr: CUdeviceptr, size: usize) -> Result<(), DriverError> {
        let mut desc: CUmemAccessDesc = unsafe { zeroed() };
        desc.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        desc.location.id = self.device;
        desc.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        unsafe { sys::cuMemSetAccess(ptr, size, &desc, 1).result() }
    }

    /// Backs at least `bytes` more of the reservation with physical memory.
    fn grow(&mut self, bytes: usize) -> Result<(), DriverError> {
        let size = bytes.next_multiple_of(self.granularity);
        if self.mapped + size > self.reserved {
            return Err(DriverError(sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY));
        }
        let prop = pinned_prop(self.device);
        let mut handle: CUmemGenericAllocationHandle = 0;
        let at = self.base + self.mapped as u64;
        unsafe {
            sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
            sys::cuMemMap(at, size, 0, handle, 0).result()?;
        }
        self.chunks.push(Chunk { handle, at, size });
        self.mapped += size;
        Ok(())
    }

    /// Bump-allocates `bytes` of zeroed device memory, growing the mapping when needed.
    pub fn alloc_zeroed(&mut self, bytes: usize) -> Result<CUdeviceptr, DriverError> {
        let bytes = bytes.next_multiple_of(256);
        if self.used + bytes > self.mapped {
            self.grow(self.used + bytes - self.mapped)?;
        }
        let ptr = self.base + self.used as u64;
        self.used += bytes;
        unsafe { sys::cuMemsetD8Async(ptr, 0, bytes, self.stream).result()? }; // EXPECT: vmm_lifecycle
        Ok(ptr)
    }

    pub fn reset(&mut self) {
        self.used = 0;
    }
}

impl Drop for GrowableArena {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            for c in self.chunks.drain(..).rev() {
                let _ = sys::cuMemUnmap(c.at, c.size);
                let _ = sys::cuMemRelease(c.handle);
            }
            let _ = sys::cuMemAddressFree(self.base, self.reserved);
        }
    }
}
