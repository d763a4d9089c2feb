//! case: KV-cache swap pool of an LLM server on the raw driver API; blocks are swapped out to page-locked host memory from `cuMemAllocHost_v2` and back, and the pool's `Drop` releases that host swap space with `cuMemFree_v2`, the device allocator's free
//! expect: mismatched_free=1

use std::ffi::c_void;
use std::ptr;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUstream};
use cudarc::driver::{CudaContext, CudaStream, DriverError};

pub struct BlockId(pub usize);

pub struct KvSwapPool {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    block_bytes: usize,
    device_blocks: CUdeviceptr,
    n_device: usize,
    host_swap: *mut c_void,
    n_host: usize,
    free_host_slots: Vec<usize>,
}

impl KvSwapPool {
    pub fn new(ctx: Arc<CudaContext>, block_bytes: usize, n_device: usize, n_host: usize) -> Result<Self, DriverError> {
        let stream = ctx.new_stream()?;
        let mut device_blocks: CUdeviceptr = 0;
        let mut host_swap: *mut c_void = ptr::null_mut();
        unsafe {
            sys::cuMemAlloc_v2(&mut device_blocks, block_bytes * n_device).result()?;
            sys::cuMemAllocHost_v2(&mut host_swap, block_bytes * n_host).result()?;
        }
        Ok(Self {
            ctx,
            stream,
            block_bytes,
            device_blocks,
            n_device,
            host_swap,
            n_host,
            free_host_slots: (0..n_host).rev().collect(),
        })
    }

    fn raw_stream(&self) -> CUstream {
        self.stream.cu_stream()
    }

    fn device_block(&self, b: &BlockId) -> CUdeviceptr {
        self.device_blocks + (b.0 * self.block_bytes) as u64
    }

    fn host_slot(&self, slot: usize) -> *mut c_void {
        unsafe { self.host_swap.cast::<u8>().add(slot * self.block_bytes).cast() }
    }

    /// Evicts a device block to host memory; returns the host slot holding it.
    pub fn swap_out(&mut self, block: &BlockId) -> Result<Option<usize>, DriverError> {
        let Some(slot) = self.free_host_slots.pop() else { return Ok(None) };
        unsafe {
            sys::cuMemcpyDtoHAsync_v2(self.host_slot(slot), self.device_block(block), self.block_bytes, self.raw_stream()).result()?;
        }
        Ok(Some(slot))
    }

    pub fn swap_in(&mut self, slot: usize, block: &BlockId) -> Result<(), DriverError> {
        unsafe {
            sys::cuMemcpyHtoDAsync_v2(self.device_block(block), self.host_slot(slot), self.block_bytes, self.raw_stream()).result()?;
        }
        self.free_host_slots.push(slot);
        Ok(())
    }

    pub fn capacity(&self) -> (usize, usize) {
        (self.n_device, self.n_host)
    }
}

impl Drop for KvSwapPool {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        unsafe {
            let _ = sys::cuMemFree_v2(self.device_blocks);
            let _ = sys::cuMemFree_v2(self.host_swap as CUdeviceptr); // EXPECT: mismatched_free
        }
        let _ = &self.ctx;
    }
}
