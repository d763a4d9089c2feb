//! case: runtime API through cudarc::runtime::sys: three cudaMalloc'd vectors, but only two cudaFree calls (d_b's was left out, DRACC 014)
//! expect: device_memory_leak=1
use cudarc::runtime::sys::{self, cudaError_t, cudaMemcpyKind};
use std::ffi::c_void;
use std::ptr;

const N: usize = 2048;
const BYTES: usize = N * 4;

pub fn staged_copy(a: &[f32; N]) -> Result<Vec<f32>, String> {
    let mut d_a: *mut c_void = ptr::null_mut();
    let mut d_b: *mut c_void = ptr::null_mut();
    let mut d_c: *mut c_void = ptr::null_mut();
    let mut out = vec![0.0f32; N];
    let mut errs = Vec::new();
    unsafe {
        errs.push(sys::cudaMalloc(&mut d_a, BYTES));
        errs.push(sys::cudaMalloc(&mut d_b, BYTES)); // EXPECT: device_memory_leak
        errs.push(sys::cudaMalloc(&mut d_c, BYTES));
        errs.push(sys::cudaMemcpy(d_a, a.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice));
        errs.push(sys::cudaMemcpy(d_b, d_a, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToDevice));
        errs.push(sys::cudaMemcpy(d_c, d_b, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToDevice));
        errs.push(sys::cudaMemcpy(out.as_mut_ptr() as *mut c_void, d_c, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost));
        errs.push(sys::cudaFree(d_a));
        errs.push(sys::cudaFree(d_c));
    }
    if errs.iter().any(|e| *e != cudaError_t::cudaSuccess) {
        return Err(format!("{errs:?}"));
    }
    Ok(out)
}
