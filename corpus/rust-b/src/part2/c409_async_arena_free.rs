//! case: a scratch arena of stream-ordered (cuMemAllocAsync) and managed allocations freed with cuMemFree after the stream is synchronized
//! expect: none
use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext, CudaStream, DriverError};

pub struct ScratchArena {
    stream: Arc<CudaStream>,
    blocks: Vec<(sys::CUdeviceptr, usize)>,
    managed_counters: Option<sys::CUdeviceptr>,
}

impl ScratchArena {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, DriverError> {
        let stream = ctx.new_stream()?;
        Ok(Self { stream, blocks: Vec::new(), managed_counters: None })
    }

    pub fn alloc(&mut self, bytes: usize) -> Result<sys::CUdeviceptr, DriverError> {
        let p = unsafe { result::malloc_async(self.stream.cu_stream(), bytes)? };
        unsafe { result::memset_d8_async(p, 0, bytes, self.stream.cu_stream())? };
        self.blocks.push((p, bytes));
        Ok(p)
    }

    pub fn counters(&mut self) -> Result<sys::CUdeviceptr, DriverError> {
        if let Some(p) = self.managed_counters {
            return Ok(p);
        }
        let p = unsafe { result::malloc_managed(256, sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL)? };
        self.managed_counters = Some(p);
        Ok(p)
    }

    /// Frees everything at once between iterations.
    pub fn reset(&mut self) -> Result<(), DriverError> {
        self.stream.synchronize()?;
        for (p, _) in self.blocks.drain(..) {
            // cuMemFree of a cuMemAllocAsync pointer is allowed; the stream is idle.
            unsafe { result::free_sync(p)? };
        }
        Ok(())
    }
}

impl Drop for ScratchArena {
    fn drop(&mut self) {
        let _ = self.reset();
        if let Some(p) = self.managed_counters.take() {
            unsafe {
                let _ = result::memory_free(p);
            }
        }
    }
}

pub fn iterate(ctx: &Arc<CudaContext>, steps: usize) -> Result<(), DriverError> {
    let mut arena = ScratchArena::new(ctx)?;
    for step in 0..steps {
        let _a = arena.alloc(1 << 20)?;
        let _b = arena.alloc((step + 1) << 16)?;
        let _c = arena.counters()?;
        arena.reset()?;
    }
    Ok(())
}
