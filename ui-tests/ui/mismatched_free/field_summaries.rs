// A raw pointer held in an enum variant or a struct field points at what the type's
// constructors stored there: the release in another method is checked against that allocator.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak))] // another lint's subject: the test code leaks
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::runtime::sys;

enum Buffer {
    Host { ptr: *mut c_void },
    Device { ptr: *mut c_void },
}

impl Buffer {
    fn host(bytes: usize) -> Buffer {
        let mut ptr = null_mut();
        unsafe { sys::cudaMallocHost(&mut ptr, bytes) };
        Buffer::Host { ptr }
    }

    fn device(bytes: usize) -> Buffer {
        let mut ptr = null_mut();
        unsafe { sys::cudaMalloc(&mut ptr, bytes) };
        Buffer::Device { ptr }
    }

    fn ok_release(self) {
        match self {
            Buffer::Host { ptr } => unsafe { sys::cudaFreeHost(ptr) },
            Buffer::Device { ptr } => unsafe { sys::cudaFree(ptr) },
        };
    }

    fn fires_release_device_arm_with_free_host(self) {
        match self {
            Buffer::Host { ptr } => unsafe { sys::cudaFreeHost(ptr) },
            Buffer::Device { ptr } => unsafe { sys::cudaFreeHost(ptr) },
            //~^ mismatched_free
        };
    }
}

struct Staging {
    ptr: *mut c_void,
}

impl Staging {
    fn new(bytes: usize) -> Staging {
        let mut ptr = null_mut();
        unsafe { sys::cudaMallocHost(&mut ptr, bytes) };
        Staging { ptr }
    }

    fn fires_freed_as_device_memory(self) {
        unsafe { sys::cudaFree(self.ptr) };
        //~^ mismatched_free
    }

    fn ok_freed_as_pinned_memory(self) {
        unsafe { sys::cudaFreeHost(self.ptr) };
    }
}

fn main() {
    let _ = (Buffer::host(64), Buffer::device(64), Staging::new(64));
}
