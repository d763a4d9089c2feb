//! case: near-miss of the mismatched frees: a host block is either page-locked (cuMemAllocHost) or plain heap (malloc) depending on size, and `Drop` matches on the variant, freeing the pinned one through a local alias with cuMemFreeHost and the heap one with libc::free
//! expect: none

use std::ffi::c_void;
use std::ptr::{null_mut, NonNull};

use cudarc::driver::{sys, DriverError};

const PIN_THRESHOLD: usize = 1 << 20;

pub enum HostBlock {
    Pinned { ptr: NonNull<c_void>, bytes: usize },
    Heap { ptr: NonNull<c_void>, bytes: usize },
}

unsafe impl Send for HostBlock {}

impl HostBlock {
    /// Big blocks are pinned (DMA-able, worth the cost); small ones come from the C heap.
    pub fn alloc(bytes: usize) -> Result<Self, DriverError> {
        if bytes >= PIN_THRESHOLD {
            let mut p: *mut c_void = null_mut();
            unsafe { sys::cuMemAllocHost_v2(&mut p, bytes) }.result()?;
            let ptr = NonNull::new(p).ok_or(DriverError(sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY))?;
            Ok(HostBlock::Pinned { ptr, bytes })
        } else {
            let p = unsafe { libc::malloc(bytes.max(1)) };
            let ptr = NonNull::new(p).ok_or(DriverError(sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY))?;
            Ok(HostBlock::Heap { ptr, bytes })
        }
    }

    pub fn is_pinned(&self) -> bool {
        matches!(self, HostBlock::Pinned { .. })
    }

    pub fn as_bytes_mut(&mut self) -> &mut [u8] {
        let (ptr, bytes) = match self {
            HostBlock::Pinned { ptr, bytes } | HostBlock::Heap { ptr, bytes } => (*ptr, *bytes),
        };
        unsafe { std::slice::from_raw_parts_mut(ptr.as_ptr() as *mut u8, bytes) }
    }
}

impl Drop for HostBlock {
    fn drop(&mut self) {
        match self {
            HostBlock::Pinned { ptr, .. } => {
                let staging = ptr.as_ptr();
                unsafe {
                    let _ = sys::cuMemFreeHost(staging);
                }
            }
            HostBlock::Heap { ptr, .. } => unsafe { libc::free(ptr.as_ptr()) },
        }
    }
}
