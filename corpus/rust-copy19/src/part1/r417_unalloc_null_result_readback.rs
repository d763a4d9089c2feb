//! case: runtime API through cudarc::runtime::sys: the result buffer d_result stays null_mut() (only the input was cudaMalloc'd) and is read back with cudaMemcpy DeviceToHost
//! expect: unallocated_pointer=1
use cudarc::runtime::sys::{self, cudaError_t, cudaMemcpyKind};
use std::ffi::c_void;
use std::ptr;

const N: usize = 1000;
const BYTES: usize = N * std::mem::size_of::<f64>();

pub fn fetch_results() -> Result<Vec<f64>, String> {
    let input = vec![0.25f64; N];
    let mut results = vec![0.0f64; N];
    let mut d_input: *mut c_void = ptr::null_mut();
    let d_result: *mut c_void = ptr::null_mut();
    let mut errs = Vec::new();
    unsafe {
        errs.push(sys::cudaMalloc(&mut d_input, BYTES));
        errs.push(sys::cudaMemcpy(d_input, input.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice));
        errs.push(sys::cudaMemcpy( // EXPECT: unallocated_pointer
            results.as_mut_ptr() as *mut c_void,
            d_result,
            BYTES,
            cudaMemcpyKind::cudaMemcpyDeviceToHost,
        ));
        errs.push(sys::cudaFree(d_input));
    }
    errs.retain(|e| *e != cudaError_t::cudaSuccess);
    if !errs.is_empty() {
        return Err(format!("{errs:?}"));
    }
    Ok(results)
}
