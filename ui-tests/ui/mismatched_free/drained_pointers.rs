// `Vec<*mut c_void>::drain(..)` yields the pointers the `Vec` holds (owned items, not pointers
// into the `Vec`): each is freed with the function its allocation needs.
use std::ffi::c_void;

use cudarc::driver::sys;

struct HostBuffers {
    host: Vec<*mut c_void>,
}

impl HostBuffers {
    fn new(n: usize, bytes: usize) -> Self {
        let mut host = Vec::new();
        for _ in 0..n {
            let mut p: *mut c_void = std::ptr::null_mut();
            unsafe { sys::cuMemAllocHost_v2(&mut p, bytes) };
            host.push(p);
        }
        HostBuffers { host }
    }

    fn fires_released_with_free(mut self) {
        for p in self.host.drain(..) {
            unsafe { libc::free(p) }; //~ mismatched_free
        }
    }

    fn ok_released_with_free_host(mut self) {
        for p in self.host.drain(..) {
            unsafe { sys::cuMemFreeHost(p) };
        }
    }
}

fn pinned_buffers_drained_into_free() {
    HostBuffers::new(2, 1 << 20).fires_released_with_free();
}

fn pinned_buffers_drained_into_free_host() {
    HostBuffers::new(2, 1 << 20).ok_released_with_free_host();
}

fn main() {}
