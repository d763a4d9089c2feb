//! case: the readback buffer pointer is initialised with null_mut and the cudaMalloc meant for it went to the input pointer twice; the device-to-host copy reads from null
//! expect: unallocated_pointer=1

use cudarc::runtime::sys::{self, cudaMemcpyKind};
use std::ffi::c_void;
use std::mem::size_of;

const LEN: usize = 4096;

pub fn normalize_roundtrip(input: &[f32; LEN]) -> Vec<f32> {
    let mut d_in: *mut c_void = std::ptr::null_mut();
    let mut d_out: *mut c_void = std::ptr::null_mut();
    let mut out = vec![0.0f32; LEN];
    unsafe {
        sys::cudaMalloc(&mut d_in, LEN * size_of::<f32>());
        sys::cudaMemcpy(d_in, input.as_ptr() as *const c_void, LEN * size_of::<f32>(), cudaMemcpyKind::cudaMemcpyHostToDevice);
        sys::cudaMemcpy(out.as_mut_ptr() as *mut c_void, d_out, LEN * size_of::<f32>(), cudaMemcpyKind::cudaMemcpyDeviceToHost); // EXPECT: unallocated_pointer
        sys::cudaFree(d_out);
        sys::cudaFree(d_in);
    }
    out
}
