//! case: runtime API: a device-to-device copy clones `d_prev` into `d_cur` though nothing was ever copied into `d_prev` (the upload went to `d_cur` first and was then overwritten)
//! expect: uninitialized_device_read=1

use cudarc::runtime::sys::{self, cudaMemcpyKind};
use std::ffi::c_void;
use std::mem::size_of;

const CELLS: usize = 128 * 128;
const BYTES: usize = CELLS * size_of::<u8>();

pub fn seed_generations(seed: &[u8; CELLS]) -> Vec<u8> {
    let mut d_prev: *mut c_void = std::ptr::null_mut();
    let mut d_cur: *mut c_void = std::ptr::null_mut();
    let mut out = vec![0u8; CELLS];
    unsafe {
        if sys::cudaMalloc(&mut d_prev, BYTES) != sys::cudaError_t::cudaSuccess {
            return out;
        }
        if sys::cudaMalloc(&mut d_cur, BYTES) != sys::cudaError_t::cudaSuccess {
            sys::cudaFree(d_prev);
            return out;
        }
        sys::cudaMemcpy(d_cur, seed.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        // keep the previous generation: meant to be d_prev <- seed
        sys::cudaMemcpy(d_cur, d_prev, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToDevice); // EXPECT: uninitialized_device_read
        sys::cudaMemcpy(out.as_mut_ptr() as *mut c_void, d_cur, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        sys::cudaFree(d_cur);
        sys::cudaFree(d_prev);
    }
    out
}
