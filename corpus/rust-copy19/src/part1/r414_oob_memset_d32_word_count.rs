//! case: a distance field of GRID*GRID floats is reset to +inf with cuMemsetD32_v2 given the number of 32-bit words (bytes / 4), then read back in full: in bounds
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::CudaContext;
use std::ffi::c_void;

const GRID: usize = 32;
const FIELD_BYTES: usize = GRID * GRID * std::mem::size_of::<f32>();

pub fn reset_distance_field() -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut field = vec![0.0f32; GRID * GRID];
    let mut d_field: CUdeviceptr = 0;
    let mut errors = Vec::new();
    unsafe {
        errors.push(sys::cuMemAlloc_v2(&mut d_field, FIELD_BYTES));
        errors.push(sys::cuMemsetD32_v2(d_field, f32::INFINITY.to_bits(), FIELD_BYTES / 4));
        errors.push(sys::cuMemcpyDtoH_v2(field.as_mut_ptr() as *mut c_void, d_field, FIELD_BYTES));
        errors.push(sys::cuMemFree_v2(d_field));
    }
    errors.retain(|e| *e != CUresult::CUDA_SUCCESS);
    if !errors.is_empty() {
        return Err(format!("{errors:?}").into());
    }
    Ok(field)
}
