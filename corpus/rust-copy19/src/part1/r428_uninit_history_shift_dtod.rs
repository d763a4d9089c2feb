//! case: runtime API: a two-slot history shifts d_prev into d_cur with a DeviceToDevice cudaMemcpy right after both were cudaMalloc'd, before anything wrote d_prev; the new frame then overwrites d_prev
//! expect: uninitialized_device_read=1
use cudarc::runtime::sys::{self, cudaError_t, cudaMemcpyKind};
use std::ffi::c_void;
use std::ptr;

const FRAME: usize = 64 * 64;
const FRAME_BYTES: usize = FRAME * 4;

pub fn shift_history(frame: &[f32; FRAME]) -> Result<Vec<f32>, String> {
    let mut d_prev: *mut c_void = ptr::null_mut();
    let mut d_cur: *mut c_void = ptr::null_mut();
    let mut older = vec![0.0f32; FRAME];
    let mut errs = Vec::new();
    unsafe {
        errs.push(sys::cudaMalloc(&mut d_prev, FRAME_BYTES));
        errs.push(sys::cudaMalloc(&mut d_cur, FRAME_BYTES));
        errs.push(sys::cudaMemcpy(d_cur, d_prev, FRAME_BYTES, cudaMemcpyKind::cudaMemcpyDeviceToDevice)); // EXPECT: uninitialized_device_read
        errs.push(sys::cudaMemcpy(d_prev, frame.as_ptr() as *const c_void, FRAME_BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice));
        errs.push(sys::cudaMemcpy(older.as_mut_ptr() as *mut c_void, d_cur, FRAME_BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost));
        errs.push(sys::cudaFree(d_prev));
        errs.push(sys::cudaFree(d_cur));
    }
    if errs.iter().any(|e| *e != cudaError_t::cudaSuccess) {
        return Err(format!("{errs:?}"));
    }
    Ok(older)
}
