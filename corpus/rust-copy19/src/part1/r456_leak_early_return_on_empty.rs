//! case: runtime API: the output buffer is cudaMalloc'd before the input is checked, and the `count == 0` early return skips cudaFree
//! expect: device_memory_leak=1
use cudarc::runtime::sys::{self, cudaError_t, cudaMemcpyKind};
use std::ffi::c_void;
use std::ptr;

const CAP: usize = 4096;

pub fn upload_indices(indices: &[u32], count: usize) -> Result<u32, String> {
    let mut d_idx: *mut c_void = ptr::null_mut();
    let rc = unsafe { sys::cudaMalloc(&mut d_idx, CAP * 4) }; // EXPECT: device_memory_leak
    if rc != cudaError_t::cudaSuccess {
        return Err(format!("{rc:?}"));
    }
    if count == 0 {
        return Ok(0);
    }
    let count = count.min(CAP).min(indices.len());
    let mut first = 0u32;
    unsafe {
        sys::cudaMemcpy(d_idx, indices.as_ptr() as *const c_void, count * 4, cudaMemcpyKind::cudaMemcpyHostToDevice);
        sys::cudaMemcpy(&mut first as *mut u32 as *mut c_void, d_idx, 4, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        sys::cudaFree(d_idx);
    }
    Ok(first)
}
