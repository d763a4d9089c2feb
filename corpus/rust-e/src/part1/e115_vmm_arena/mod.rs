//! case: VMM-backed bump arena for a graph executor; a large virtual range is reserved once and grown chunk by chunk (cuMemCreate, cuMemMap, cuMemSetAccess before any use), and torn down in the documented order after the stream is synchronized
//! expect: none

mod props;

use std::sync::Arc;

use cudarc::driver::{sys, CudaContext};

use props::{granularity, ok, pinned_on, read_write_on};

struct Chunk {
    ptr: sys::CUdeviceptr,
    size: usize,
    handle: sys::CUmemGenericAllocationHandle,
}

pub struct VmmArena {
    _ctx: Arc<CudaContext>,
    device: i32,
    stream: sys::CUstream,
    base: sys::CUdeviceptr,
    reserved: usize,
    gran: usize,
    chunks: Vec<Chunk>,
    mapped: usize,
    top: usize,
}

impl VmmArena {
    pub fn new(ordinal: usize, reserve: usize) -> Result<Self, sys::CUresult> {
        let ctx = CudaContext::new(ordinal).map_err(|e| e.0)?;
        let device = ordinal as i32;
        let gran = granularity(&pinned_on(device))?;
        let reserved = reserve.next_multiple_of(gran);
        let mut base = 0;
        let mut stream = std::ptr::null_mut();
        unsafe {
            ok(sys::cuMemAddressReserve(&mut base, reserved, 0, 0, 0))?;
            ok(sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32))?;
        }
        Ok(VmmArena { _ctx: ctx, device, stream, base, reserved, gran, chunks: Vec::new(), mapped: 0, top: 0 })
    }

    fn grow(&mut self, at_least: usize) -> Result<(), sys::CUresult> {
        let size = at_least.next_multiple_of(self.gran);
        if self.mapped + size > self.reserved {
            return Err(sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY);
        }
        let ptr = self.base + self.mapped as u64;
        let mut handle = 0;
        unsafe {
            ok(sys::cuMemCreate(&mut handle, size, &pinned_on(self.device), 0))?;
            ok(sys::cuMemMap(ptr, size, 0, handle, 0))?;
            ok(sys::cuMemSetAccess(ptr, size, &read_write_on(self.device), 1))?;
        }
        self.chunks.push(Chunk { ptr, size, handle });
        self.mapped += size;
        Ok(())
    }

    /// A zeroed, 256-byte aligned block of `bytes` bytes valid until `reset`.
    pub fn alloc_zeroed(&mut self, bytes: usize) -> Result<sys::CUdeviceptr, sys::CUresult> {
        let bytes = bytes.next_multiple_of(256);
        if self.top + bytes > self.mapped {
            self.grow(self.top + bytes - self.mapped)?;
        }
        let p = self.base + self.top as u64;
        self.top += bytes;
        unsafe { ok(sys::cuMemsetD32Async(p, 0, bytes / 4, self.stream))? };
        Ok(p)
    }

    pub fn stream(&self) -> sys::CUstream {
        self.stream
    }

    /// Forgets all blocks once the work using them has finished; the mappings stay.
    pub fn reset(&mut self) -> Result<(), sys::CUresult> {
        unsafe { ok(sys::cuStreamSynchronize(self.stream))? };
        self.top = 0;
        Ok(())
    }
}

impl Drop for VmmArena {
    fn drop(&mut self) {
        unsafe {
            sys::cuStreamSynchronize(self.stream);
            for c in self.chunks.drain(..).rev() {
                sys::cuMemUnmap(c.ptr, c.size);
                sys::cuMemRelease(c.handle);
            }
            sys::cuMemAddressFree(self.base, self.reserved);
            sys::cuStreamDestroy_v2(self.stream);
        }
    }
}
