//! Host memory helpers shared by the encoder's buffers.
use std::ffi::c_void;

pub fn alloc_host(bytes: usize) -> *mut c_void {
    let p = unsafe { libc::malloc(bytes) };
    assert!(!p.is_null(), "out of host memory");
    p
}

/// Releases a host buffer of the encoder.
pub fn release_host(ptr: *mut c_void) {
    if !ptr.is_null() {
        unsafe { libc::free(ptr) }; // EXPECT: mismatched_free
    }
}
