//! case: a pool of page-locked staging blocks (cuMemAllocHost) whose Drop hands them back with cuMemFree
//! expect: mismatched_free=1
use std::ffi::c_void;
use std::sync::{Arc, Mutex};

use cudarc::driver::{sys, CudaContext, DevicePtrMut, DriverError};

/// One page-locked staging block handed out by the pool.
pub struct StagingBlock {
    ptr: *mut c_void,
    bytes: usize,
}

// SAFETY: the block owns its allocation; only one thread holds it at a time.
unsafe impl Send for StagingBlock {}

impl StagingBlock {
    fn new(bytes: usize) -> Result<Self, DriverError> {
        let mut ptr = std::ptr::null_mut();
        unsafe { sys::cuMemAllocHost_v2(&mut ptr, bytes).result()? };
        Ok(Self { ptr, bytes })
    }

    pub fn as_mut_bytes(&mut self) -> &mut [u8] {
        // SAFETY: `bytes` bytes of page-locked host memory owned by this block.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.cast(), self.bytes) }
    }
}

impl Drop for StagingBlock {
    fn drop(&mut self) {
        // The block came from the driver's allocator, so give it back to the driver.
        unsafe {
            let _ = sys::cuMemFree_v2(self.ptr as sys::CUdeviceptr); // EXPECT: mismatched_free
        }
    }
}

pub struct StagingPool {
    ctx: Arc<CudaContext>,
    block_bytes: usize,
    free: Mutex<Vec<StagingBlock>>,
}

impl StagingPool {
    pub fn new(ctx: Arc<CudaContext>, block_bytes: usize, prealloc: usize) -> Result<Self, DriverError> {
        ctx.bind_to_thread()?;
        let blocks = (0..prealloc)
            .map(|_| StagingBlock::new(block_bytes))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { ctx, block_bytes, free: Mutex::new(blocks) })
    }

    pub fn acquire(&self) -> Result<StagingBlock, DriverError> {
        if let Some(block) = self.free.lock().unwrap().pop() {
            return Ok(block);
        }
        self.ctx.bind_to_thread()?;
        StagingBlock::new(self.block_bytes)
    }

    /// Keeps at most eight blocks around; the rest are dropped (and freed) here.
    pub fn release(&self, block: StagingBlock) {
        let mut free = self.free.lock().unwrap();
        if free.len() < 8 {
            free.push(block);
        }
    }
}

pub fn upload_frames(ctx: Arc<CudaContext>, frames: &[Vec<u8>]) -> Result<(), DriverError> {
    let pool = StagingPool::new(ctx.clone(), 1 << 20, 2)?;
    let stream = ctx.default_stream();
    let mut dev = stream.alloc_zeros::<u8>(1 << 20)?;
    for frame in frames {
        let mut block = pool.acquire()?;
        let n = frame.len().min(block.bytes);
        block.as_mut_bytes()[..n].copy_from_slice(&frame[..n]);
        {
            let (dptr, _record) = dev.device_ptr_mut(&stream);
            unsafe { sys::cuMemcpyHtoDAsync_v2(dptr, block.ptr, n, stream.cu_stream()).result()? };
        }
        stream.synchronize()?;
        pool.release(block);
    }
    Ok(())
}
