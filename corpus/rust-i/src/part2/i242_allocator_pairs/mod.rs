//! case: memory manager of a GPU dataframe library (own extern "C" runtime API bindings): an enum of allocation kinds whose Drop releases each kind with its own function (cudaFree, cudaFreeHost, free, cudaHostUnregister then free) (near-miss: every pair matches)
//! expect: none

mod ffi;

use ffi::*;
use std::collections::HashMap;
use std::ffi::c_void;
use std::ptr;

#[derive(Debug)]
pub enum Allocation {
    Device { ptr: *mut c_void, bytes: usize },
    Pinned { ptr: *mut c_void, bytes: usize },
    Heap { ptr: *mut c_void, bytes: usize },
    /// malloc'd, then page-locked with cudaHostRegister.
    Registered { ptr: *mut c_void, bytes: usize },
}

impl Allocation {
    pub fn device(bytes: usize) -> Option<Self> {
        let mut ptr = ptr::null_mut();
        (unsafe { cudaMalloc(&mut ptr, bytes) } == 0).then_some(Allocation::Device { ptr, bytes })
    }

    pub fn pinned(bytes: usize) -> Option<Self> {
        let mut ptr = ptr::null_mut();
        (unsafe { cudaHostAlloc(&mut ptr, bytes, CUDA_HOST_ALLOC_PORTABLE) } == 0).then_some(Allocation::Pinned { ptr, bytes })
    }

    pub fn heap(bytes: usize) -> Option<Self> {
        let ptr = unsafe { libc::malloc(bytes) };
        (!ptr.is_null()).then_some(Allocation::Heap { ptr, bytes })
    }

    pub fn registered(bytes: usize) -> Option<Self> {
        let ptr = unsafe { libc::malloc(bytes) };
        if ptr.is_null() {
            return None;
        }
        if unsafe { cudaHostRegister(ptr, bytes, CUDA_HOST_REGISTER_DEFAULT) } != 0 {
            unsafe { libc::free(ptr) };
            return None;
        }
        Some(Allocation::Registered { ptr, bytes })
    }

    pub fn bytes(&self) -> usize {
        match *self {
            Allocation::Device { bytes, .. } | Allocation::Pinned { bytes, .. } | Allocation::Heap { bytes, .. } | Allocation::Registered { bytes, .. } => bytes,
        }
    }
}

impl Drop for Allocation {
    fn drop(&mut self) {
        unsafe {
            match *self {
                Allocation::Device { ptr, .. } => {
                    cudaFree(ptr);
                }
                Allocation::Pinned { ptr, .. } => {
                    cudaFreeHost(ptr);
                }
                Allocation::Heap { ptr, .. } => libc::free(ptr),
                Allocation::Registered { ptr, .. } => {
                    cudaHostUnregister(ptr);
                    libc::free(ptr);
                }
            }
        }
    }
}

/// Buffers of one dataframe, by column name; everything goes when the frame is dropped
/// (callers synchronize their streams before dropping a frame).
#[derive(Default)]
pub struct FrameMemory {
    columns: HashMap<String, Allocation>,
}

impl FrameMemory {
    pub fn add(&mut self, name: &str, a: Allocation) {
        self.columns.insert(name.to_string(), a);
    }

    pub fn total_bytes(&self) -> usize {
        self.columns.values().map(Allocation::bytes).sum()
    }

    pub fn drop_column(&mut self, name: &str) -> bool {
        self.columns.remove(name).is_some()
    }
}
