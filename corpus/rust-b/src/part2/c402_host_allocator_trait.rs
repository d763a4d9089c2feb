//! case: a generic host block pool over a HostAllocator trait; the pinned and the malloc impls each free with their own function
//! expect: none
use std::ffi::c_void;
use std::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, DriverError};

pub trait HostAllocator {
    const NAME: &'static str;
    /// # Safety
    /// The returned block must be released with [`HostAllocator::release`] of the same impl.
    unsafe fn allocate(bytes: usize) -> Result<*mut c_void, DriverError>;
    /// # Safety
    /// `ptr` must come from `allocate` of this impl.
    unsafe fn release(ptr: *mut c_void);
}

/// Page-locked memory, portable across contexts.
pub struct PinnedAlloc;

impl HostAllocator for PinnedAlloc {
    const NAME: &'static str = "pinned";
    unsafe fn allocate(bytes: usize) -> Result<*mut c_void, DriverError> {
        let mut p = std::ptr::null_mut();
        unsafe { sys::cuMemHostAlloc(&mut p, bytes, sys::CU_MEMHOSTALLOC_PORTABLE).result()? };
        Ok(p)
    }
    unsafe fn release(ptr: *mut c_void) {
        unsafe {
            let _ = sys::cuMemFreeHost(ptr);
        }
    }
}

/// Plain C heap memory for data that never goes to the GPU.
pub struct HeapAlloc;

impl HostAllocator for HeapAlloc {
    const NAME: &'static str = "heap";
    unsafe fn allocate(bytes: usize) -> Result<*mut c_void, DriverError> {
        let p = unsafe { libc::malloc(bytes) };
        if p.is_null() {
            return Err(DriverError(sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY));
        }
        Ok(p)
    }
    unsafe fn release(ptr: *mut c_void) {
        unsafe { libc::free(ptr) };
    }
}

pub struct BlockPool<A: HostAllocator> {
    block_bytes: usize,
    blocks: Vec<*mut c_void>,
    _alloc: PhantomData<A>,
}

impl<A: HostAllocator> BlockPool<A> {
    pub fn with_blocks(block_bytes: usize, count: usize) -> Result<Self, DriverError> {
        let mut pool = Self { block_bytes, blocks: Vec::with_capacity(count), _alloc: PhantomData };
        for _ in 0..count {
            // Pushed one by one so that a failure drops (and releases) what was made so far.
            let block = unsafe { A::allocate(block_bytes)? };
            pool.blocks.push(block);
        }
        Ok(pool)
    }

    pub fn describe(&self) -> String {
        format!("{} pool: {} x {} bytes", A::NAME, self.blocks.len(), self.block_bytes)
    }
}

impl<A: HostAllocator> Drop for BlockPool<A> {
    fn drop(&mut self) {
        for block in self.blocks.drain(..) {
            unsafe { A::release(block) };
        }
    }
}

pub fn make_pools(ctx: Arc<CudaContext>) -> Result<Vec<String>, DriverError> {
    ctx.bind_to_thread()?;
    let pinned = BlockPool::<PinnedAlloc>::with_blocks(4 << 20, 4)?;
    let heap = BlockPool::<HeapAlloc>::with_blocks(64 << 10, 16)?;
    Ok(vec![pinned.describe(), heap.describe()])
}
