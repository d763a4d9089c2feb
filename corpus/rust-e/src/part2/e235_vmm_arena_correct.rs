//! case: near-miss of the VMM lifecycle bugs: an arena that reserves a large range, maps chunks on demand and grants access to each new mapping before use, and on drop synchronizes, unmaps every chunk, releases the handles and only then frees the range
//! expect: none

use std::mem::MaybeUninit;

use cudarc::driver::{sys, DriverError};

struct Chunk {
    offset: usize,
    handle: sys::CUmemGenericAllocationHandle,
}

pub struct VmmArena {
    device: sys::CUdevice,
    base: sys::CUdeviceptr,
    reserved: usize,
    granularity: usize,
    chunks: Vec<Chunk>,
    top: usize,
}

impl VmmArena {
    fn prop(device: sys::CUdevice) -> sys::CUmemAllocationProp {
        let mut prop: sys::CUmemAllocationProp = unsafe { MaybeUninit::zeroed().assume_init() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        prop
    }

    pub fn new(device: sys::CUdevice, reserve_bytes: usize) -> Result<Self, DriverError> {
        let prop = Self::prop(device);
        let mut granularity = 0;
        let mut base = 0;
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut granularity, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM).result()?;
            let reserved = reserve_bytes.div_ceil(granularity) * granularity;
            sys::cuMemAddressReserve(&mut base, reserved, granularity, 0, 0).result()?;
            Ok(Self { device, base, reserved, granularity, chunks: Vec::new(), top: 0 })
        }
    }

    fn mapped_bytes(&self) -> usize {
        self.chunks.len() * self.granularity
    }

    fn map_one_more(&mut self) -> Result<(), DriverError> {
        let prop = Self::prop(self.device);
        let offset = self.mapped_bytes();
        if offset + self.granularity > self.reserved {
            return Err(DriverError(sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY));
        }
        let at = self.base + offset as u64;
        let mut handle = 0;
        let access = sys::CUmemAccessDesc { location: prop.location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        unsafe {
            sys::cuMemCreate(&mut handle, self.granularity, &prop, 0).result()?;
            if let Err(e) = sys::cuMemMap(at, self.granularity, 0, handle, 0).result() {
                let _ = sys::cuMemRelease(handle);
                return Err(e);
            }
            sys::cuMemSetAccess(at, self.granularity, &access, 1).result()?;
        }
        self.chunks.push(Chunk { offset, handle });
        Ok(())
    }

    /// Bump-allocates `bytes` (256-byte aligned), zeroed on `stream`.
    pub fn alloc_zeroed(&mut self, bytes: usize, stream: sys::CUstream) -> Result<sys::CUdeviceptr, DriverError> {
        let start = self.top.next_multiple_of(256);
        while self.mapped_bytes() < start + bytes {
            self.map_one_more()?;
        }
        self.top = start + bytes;
        let ptr = self.base + start as u64;
        unsafe { sys::cuMemsetD8Async(ptr, 0, bytes, stream).result()? };
        Ok(ptr)
    }

    pub fn reset(&mut self) {
        self.top = 0;
    }
}

impl Drop for VmmArena {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            for c in self.chunks.drain(..) {
                let _ = sys::cuMemUnmap(self.base + c.offset as u64, self.granularity);
                let _ = sys::cuMemRelease(c.handle);
            }
            let _ = sys::cuMemAddressFree(self.base, self.reserved);
        }
    }
}
