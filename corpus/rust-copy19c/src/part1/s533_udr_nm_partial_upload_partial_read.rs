//! case: near miss: a buffer with spare capacity gets only its first `USED` elements uploaded, and only those are read back
//! expect: none

use cudarc::runtime::sys::{self, cudaMemcpyKind};
use std::ffi::c_void;
use std::mem::size_of;

const CAPACITY: usize = 8192;
const USED: usize = 5000;

pub fn roundtrip(samples: &[u16; USED]) -> Vec<u16> {
    let mut d_ring: *mut c_void = std::ptr::null_mut();
    let mut back = vec![0u16; USED];
    unsafe {
        if sys::cudaMalloc(&mut d_ring, CAPACITY * size_of::<u16>()) != sys::cudaError_t::cudaSuccess {
            return back;
        }
        sys::cudaMemcpy(d_ring, samples.as_ptr() as *const c_void, USED * size_of::<u16>(), cudaMemcpyKind::cudaMemcpyHostToDevice);
        sys::cudaMemcpy(back.as_mut_ptr() as *mut c_void, d_ring, USED * size_of::<u16>(), cudaMemcpyKind::cudaMemcpyDeviceToHost);
        sys::cudaFree(d_ring);
    }
    back
}
