use std::mem::MaybeUninit;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle};
use cudarc::driver::{CudaContext, DriverError};

/// A reserved virtual range that is backed chunk by chunk as it grows.
pub struct GrowableBuffer {
    ctx: Arc<CudaContext>,
    base: CUdeviceptr,
    reserved: usize,
    chunk: usize,
    chunks: Vec<CUmemGenericAllocationHandle>,
    prop: sys::CUmemAllocationProp,
}

impl GrowableBuffer {
    pub fn new(ctx: &Arc<CudaContext>, reserve_bytes: usize) -> Result<Self, DriverError> {
        ctx.bind_to_thread()?;
        let mut prop: sys::CUmemAllocationProp = unsafe { MaybeUninit::zeroed().assume_init() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = ctx.ordinal() as i32;
        let mut chunk = 0usize;
        let mut base: CUdeviceptr = 0;
        let reserved;
        unsafe {
            sys::cuMemGetAllocationGranularity(
                &mut chunk,
                &prop,
                sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_RECOMMENDED,
            )
            .result()?;
            reserved = reserve_bytes.div_ceil(chunk) * chunk;
            sys::cuMemAddressReserve(&mut base, reserved, 0, 0, 0).result()?;
        }
        let mut buf = Self { ctx: ctx.clone(), base, reserved, chunk, chunks: Vec::new(), prop };
        buf.map_next_chunk()?;
        let access = buf.access_desc();
        unsafe { sys::cuMemSetAccess(buf.base, buf.chunk, &access, 1).result()? };
        Ok(buf)
    }

    fn access_desc(&self) -> sys::CUmemAccessDesc {
        sys::CUmemAccessDesc {
            location: self.prop.location,
            flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        }
    }

    fn map_next_chunk(&mut self) -> Result<(), DriverError> {
        let offset = self.chunks.len() * self.chunk;
        assert!(offset + self.chunk <= self.reserved, "reservation exhausted");
        let mut handle: CUmemGenericAllocationHandle = 0;
        unsafe {
            sys::cuMemCreate(&mut handle, self.chunk, &self.prop, 0).result()?;
            sys::cuMemMap(self.base + offset as u64, self.chunk, 0, handle, 0).result()?;
        }
        self.chunks.push(handle);
        Ok(())
    }

    /// Makes at least `bytes` bytes usable from `base()`.
    pub fn grow(&mut self, bytes: usize) -> Result<(), DriverError> {
        self.ctx.bind_to_thread()?;
        while self.committed() < bytes {
            self.map_next_chunk()?;
        }
        Ok(())
    }

    pub fn base(&self) -> CUdeviceptr {
        self.base
    }

    pub fn committed(&self) -> usize {
        self.chunks.len() * self.chunk
    }
}

impl Drop for GrowableBuffer {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        unsafe {
            let _ = sys::cuCtxSynchronize();
            for (i, &h) in self.chunks.iter().enumerate() {
                let _ = sys::cuMemUnmap(self.base + (i * self.chunk) as u64, self.chunk);
                let _ = sys::cuMemRelease(h);
            }
            let _ = sys::cuMemAddressFree(self.base, self.reserved);
        }
    }
}
