//! case: own extern "C" runtime bindings: the device buffer is cudaMalloc'd before the weights file is read with `?`; when the read fails the function returns early and the allocation is lost
//! expect: device_memory_leak=1
use std::ffi::c_void;
use std::path::Path;
use std::ptr;

const MAX_BYTES: usize = 1 << 16;
const H2D: i32 = 1;

unsafe extern "C" {
    fn cudaMalloc(p: *mut *mut c_void, size: usize) -> i32;
    fn cudaMemcpy(dst: *mut c_void, src: *const c_void, count: usize, kind: i32) -> i32;
    fn cudaFree(p: *mut c_void) -> i32;
}

pub fn load_weights(path: &Path) -> std::io::Result<usize> {
    let mut d_weights: *mut c_void = ptr::null_mut();
    let rc = unsafe { cudaMalloc(&mut d_weights, MAX_BYTES) }; // EXPECT: device_memory_leak
    if rc != 0 {
        return Err(std::io::Error::other(format!("cudaMalloc: {rc}")));
    }
    let bytes = std::fs::read(path)?;
    let n = bytes.len().min(MAX_BYTES);
    unsafe {
        cudaMemcpy(d_weights, bytes.as_ptr() as *const c_void, n, H2D);
        cudaFree(d_weights);
    }
    Ok(n)
}
