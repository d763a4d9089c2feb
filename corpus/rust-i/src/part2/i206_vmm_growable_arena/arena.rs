use super::props::{pinned_on, read_write_on};
use super::{vmm_ok, VmmError};
use cudarc::driver::sys::{self, CUdeviceptr, CUmemAllocationGranularity_flags, CUmemGenericAllocationHandle, CUstream};

pub struct GrowableArena {
    device: i32,
    base: CUdeviceptr,
    reserved: usize,
    mapped: usize,
    used: usize,
    granularity: usize,
    chunks: Vec<(CUdeviceptr, usize, CUmemGenericAllocationHandle)>,
}

impl GrowableArena {
    pub fn new(device: i32, reserve_bytes: usize) -> Result<Self, VmmError> {
        let prop = pinned_on(device);
        let mut granularity = 0usize;
        let mut base: CUdeviceptr = 0;
        unsafe {
            vmm_ok(
                "cuMemGetAllocationGranularity",
                sys::cuMemGetAllocationGranularity(&mut granularity, &prop, CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_RECOMMENDED),
            )?;
            let reserved = reserve_bytes.div_ceil(granularity) * granularity;
            vmm_ok("cuMemAddressReserve", sys::cuMemAddressReserve(&mut base, reserved, 0, 0, 0))?;
            Ok(GrowableArena { device, base, reserved, mapped: 0, used: 0, granularity, chunks: Vec::new() })
        }
    }

    /// Maps one more chunk of at least `min_bytes` at the end of the mapped part, zeroed.
    fn grow(&mut self, min_bytes: usize, stream: CUstream) -> Result<(), VmmError> {
        let size = min_bytes.div_ceil(self.granularity).max(1) * self.granularity;
        if self.mapped + size > self.reserved {
            return Err(VmmError { call: "grow", code: sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY });
        }
        let prop = pinned_on(self.device);
        let access = read_write_on(self.device);
        let at = self.base + self.mapped as u64;
        let mut handle: CUmemGenericAllocationHandle = 0;
        unsafe {
            vmm_ok("cuMemCreate", sys::cuMemCreate(&mut handle, size, &prop, 0))?;
            vmm_ok("cuMemMap", sys::cuMemMap(at, size, 0, handle, 0))?;
            // Hash tables start empty: zero the new chunk while we still hold it exclusively.
            vmm_ok("cuMemsetD8Async", sys::cuMemsetD8Async(at, 0, size, stream))?; // EXPECT: vmm_lifecycle
            vmm_ok("cuMemSetAccess", sys::cuMemSetAccess(at, size, &access, 1))?;
        }
        self.chunks.push((at, size, handle));
        self.mapped += size;
        Ok(())
    }

    /// Bump-allocates `bytes` (256-byte aligned), growing the mapping when needed.
    pub fn alloc(&mut self, bytes: usize, stream: CUstream) -> Result<CUdeviceptr, VmmError> {
        let start = self.used.next_multiple_of(256);
        if start + bytes > self.mapped {
            self.grow(start + bytes - self.mapped, stream)?;
        }
        self.used = start + bytes;
        Ok(self.base + start as u64)
    }
}

impl Drop for GrowableArena {
    fn drop(&mut self) {
        unsafe {
            for &(at, size, handle) in self.chunks.iter().rev() {
                sys::cuMemUnmap(at, size);
                sys::cuMemRelease(handle);
            }
            sys::cuMemAddressFree(self.base, self.reserved);
        }
    }
}
