//! case: a host buffer allocator that picks `cudaMallocHost` for large buffers and `malloc` + `cudaHostRegister` for small ones (own `extern "C"` block), and releases each kind with its own functions: `cudaFreeHost`, or `cudaHostUnregister` then `free`
//! expect: none
use std::ffi::{c_int, c_uint, c_void};
use std::ptr::null_mut;

unsafe extern "C" {
    fn cudaMallocHost(ptr: *mut *mut c_void, size: usize) -> c_int;
    fn cudaFreeHost(ptr: *mut c_void) -> c_int;
    fn cudaHostRegister(ptr: *mut c_void, size: usize, flags: c_uint) -> c_int;
    fn cudaHostUnregister(ptr: *mut c_void) -> c_int;
}

const LARGE: usize = 8 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    CudaHost,
    MallocRegistered,
}

pub struct PinnedBlock {
    ptr: *mut c_void,
    len: usize,
    origin: Origin,
}

impl PinnedBlock {
    pub fn new(len: usize) -> Option<Self> {
        if len >= LARGE {
            let mut ptr = null_mut();
            (unsafe { cudaMallocHost(&mut ptr, len) } == 0).then_some(Self { ptr, len, origin: Origin::CudaHost })
        } else {
            let ptr = unsafe { libc::malloc(len) };
            if ptr.is_null() {
                return None;
            }
            if unsafe { cudaHostRegister(ptr, len, 0) } != 0 {
                unsafe { libc::free(ptr) };
                return None;
            }
            Some(Self { ptr, len, origin: Origin::MallocRegistered })
        }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        unsafe { std::slice::from_raw_parts_mut(self.ptr as *mut u8, self.len) }
    }
}

impl Drop for PinnedBlock {
    fn drop(&mut self) {
        // Users synchronize before dropping blocks that copies used (documented contract).
        unsafe {
            match self.origin {
                Origin::CudaHost => {
                    cudaFreeHost(self.ptr);
                }
                Origin::MallocRegistered => {
                    cudaHostUnregister(self.ptr);
                    libc::free(self.ptr);
                }
            }
        }
    }
}
