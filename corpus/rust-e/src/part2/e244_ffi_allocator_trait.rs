//! case: near-miss of the mismatched frees: an FFI crate over libcudart pairs each allocator with its own free behind a `dyn RawAllocator` (cudaMalloc/cudaFree for device buffers, cudaHostAlloc/cudaFreeHost for staging), and every buffer frees through the allocator that made it
//! expect: none

use std::ffi::c_void;
use std::ptr::null_mut;

pub type CudaError = i32;
const CUDA_HOST_ALLOC_PORTABLE: u32 = 1;

unsafe extern "C" {
    fn cudaMalloc(dev_ptr: *mut *mut c_void, size: usize) -> CudaError;
    fn cudaFree(dev_ptr: *mut c_void) -> CudaError;
    fn cudaHostAlloc(host_ptr: *mut *mut c_void, size: usize, flags: u32) -> CudaError;
    fn cudaFreeHost(host_ptr: *mut c_void) -> CudaError;
}

pub trait RawAllocator: Sync {
    fn name(&self) -> &'static str;
    unsafe fn allocate(&self, bytes: usize) -> Result<*mut c_void, CudaError>;
    unsafe fn release(&self, ptr: *mut c_void) -> CudaError;
}

pub struct DeviceHeap;
pub struct PinnedHeap;

impl RawAllocator for DeviceHeap {
    fn name(&self) -> &'static str {
        "device"
    }
    unsafe fn allocate(&self, bytes: usize) -> Result<*mut c_void, CudaError> {
        let mut p = null_mut();
        match unsafe { cudaMalloc(&mut p, bytes) } {
            0 => Ok(p),
            e => Err(e),
        }
    }
    unsafe fn release(&self, ptr: *mut c_void) -> CudaError {
        unsafe { cudaFree(ptr) }
    }
}

impl RawAllocator for PinnedHeap {
    fn name(&self) -> &'static str {
        "pinned"
    }
    unsafe fn allocate(&self, bytes: usize) -> Result<*mut c_void, CudaError> {
        let mut p = null_mut();
        match unsafe { cudaHostAlloc(&mut p, bytes, CUDA_HOST_ALLOC_PORTABLE) } {
            0 => Ok(p),
            e => Err(e),
        }
    }
    unsafe fn release(&self, ptr: *mut c_void) -> CudaError {
        unsafe { cudaFreeHost(ptr) }
    }
}

pub static DEVICE: DeviceHeap = DeviceHeap;
pub static PINNED: PinnedHeap = PinnedHeap;

/// A raw buffer that remembers which allocator made it.
pub struct RawBuffer {
    ptr: *mut c_void,
    bytes: usize,
    alloc: &'static dyn RawAllocator,
}

impl RawBuffer {
    pub fn new(alloc: &'static dyn RawAllocator, bytes: usize) -> Result<Self, CudaError> {
        let ptr = unsafe { alloc.allocate(bytes)? };
        Ok(Self { ptr, bytes, alloc })
    }

    pub fn as_ptr(&self) -> *mut c_void {
        self.ptr
    }

    pub fn len(&self) -> usize {
        self.bytes
    }

    pub fn kind(&self) -> &'static str {
        self.alloc.name()
    }
}

impl Drop for RawBuffer {
    fn drop(&mut self) {
        let status = unsafe { self.alloc.release(self.ptr) };
        if status != 0 {
            eprintln!("freeing a {} buffer of {} bytes failed: {status}", self.alloc.name(), self.bytes);
        }
    }
}

/// The usual pair for an upload path: a device buffer and a staging buffer of the same size.
pub fn upload_pair(bytes: usize) -> Result<(RawBuffer, RawBuffer), CudaError> {
    Ok((RawBuffer::new(&DEVICE, bytes)?, RawBuffer::new(&PINNED, bytes)?))
}
