//! case: runtime API: a pinned host buffer from cudaMallocHost and a device buffer from cudaMalloc are both released (cudaFreeHost, cudaFree) on the error return and on the normal path
//! expect: none
use cudarc::runtime::sys::{self, cudaError_t, cudaMemcpyKind};
use std::ffi::c_void;
use std::ptr;

const N: usize = 2048;
const BYTES: usize = N * 4;

pub fn pinned_roundtrip(seed: u32) -> Result<u32, String> {
    let mut h_pinned: *mut c_void = ptr::null_mut();
    let mut d_buf: *mut c_void = ptr::null_mut();
    let rc = unsafe { sys::cudaMallocHost(&mut h_pinned, BYTES) };
    if rc != cudaError_t::cudaSuccess {
        return Err(format!("{rc:?}"));
    }
    let rc = unsafe { sys::cudaMalloc(&mut d_buf, BYTES) };
    if rc != cudaError_t::cudaSuccess {
        unsafe { sys::cudaFreeHost(h_pinned) };
        return Err(format!("{rc:?}"));
    }
    let host = unsafe { std::slice::from_raw_parts_mut(h_pinned as *mut u32, N) };
    for (i, v) in host.iter_mut().enumerate() {
        *v = seed.wrapping_add(i as u32);
    }
    let mut back = vec![0u32; N];
    unsafe {
        sys::cudaMemcpy(d_buf, h_pinned, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        sys::cudaMemcpy(back.as_mut_ptr() as *mut c_void, d_buf, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        sys::cudaFree(d_buf);
        sys::cudaFreeHost(h_pinned);
    }
    Ok(back[N - 1])
}
