use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::DriverError;

/// One allocation and the allocator it came from.
#[derive(Debug)]
pub enum Allocation {
    Device { ptr: CUdeviceptr, bytes: usize },
    Managed { ptr: CUdeviceptr, bytes: usize },
    Pinned { ptr: *mut c_void, bytes: usize },
    Heap { ptr: *mut c_void, bytes: usize },
}

impl Allocation {
    pub fn device(bytes: usize) -> Result<Self, DriverError> {
        let mut ptr = 0;
        unsafe { sys::cuMemAlloc_v2(&mut ptr, bytes).result()? };
        Ok(Allocation::Device { ptr, bytes })
    }

    pub fn managed(bytes: usize) -> Result<Self, DriverError> {
        let mut ptr = 0;
        unsafe { sys::cuMemAllocManaged(&mut ptr, bytes, sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32).result()? };
        Ok(Allocation::Managed { ptr, bytes })
    }

    pub fn pinned(bytes: usize) -> Result<Self, DriverError> {
        let mut ptr: *mut c_void = null_mut();
        unsafe { sys::cuMemAllocHost_v2(&mut ptr, bytes).result()? };
        Ok(Allocation::Pinned { ptr, bytes })
    }

    pub fn heap(bytes: usize) -> Option<Self> {
        let ptr = unsafe { libc::malloc(bytes) };
        (!ptr.is_null()).then_some(Allocation::Heap { ptr, bytes })
    }

    /// Address usable by kernels (device and managed memory only).
    pub fn device_ptr(&self) -> Option<CUdeviceptr> {
        match *self {
            Allocation::Device { ptr, .. } | Allocation::Managed { ptr, .. } => Some(ptr),
            _ => None,
        }
    }

    /// Address usable by the host (managed, pinned and heap memory).
    pub fn host_ptr(&self) -> Option<*mut c_void> {
        match *self {
            Allocation::Managed { ptr, .. } => Some(ptr as *mut c_void),
            Allocation::Pinned { ptr, .. } | Allocation::Heap { ptr, .. } => Some(ptr),
            Allocation::Device { .. } => None,
        }
    }

    pub fn bytes(&self) -> usize {
        match *self {
            Allocation::Device { bytes, .. }
            | Allocation::Managed { bytes, .. }
            | Allocation::Pinned { bytes, .. }
            | Allocation::Heap { bytes, .. } => bytes,
        }
    }
}

impl Drop for Allocation {
    fn drop(&mut self) {
        unsafe {
            match *self {
                Allocation::Device { ptr, .. } | Allocation::Managed { ptr, .. } => {
                    let _ = sys::cuMemFree_v2(ptr);
                }
                Allocation::Pinned { ptr, .. } => {
                    let _ = sys::cuMemFreeHost(ptr);
                }
                Allocation::Heap { ptr, .. } => libc::free(ptr),
            }
        }
    }
}
