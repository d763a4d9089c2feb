//! case: a ROWS x COLS matrix is uploaded with cudaMemcpy and then copied back with the matrix's byte count into a host Vec sized for one row (DRACC 009's shape): the copy-out overruns the host destination
//! expect: copy_out_of_bounds=1
use cudarc::runtime::sys::{self, cudaError_t, cudaMemcpyKind};
use std::ffi::c_void;
use std::ptr;

const ROWS: usize = 64;
const COLS: usize = 32;
const MAT_BYTES: usize = ROWS * COLS * 4;

pub fn roundtrip_first_row() -> Result<Vec<f32>, String> {
    let mut h_mat = vec![0.0f32; ROWS * COLS];
    for r in 0..ROWS {
        for c in 0..COLS {
            h_mat[r * COLS + c] = (r * 100 + c) as f32;
        }
    }
    let mut h_row = vec![0.0f32; COLS];

    let mut d_mat: *mut c_void = ptr::null_mut();
    let mut errs = Vec::new();
    unsafe {
        errs.push(sys::cudaMalloc(&mut d_mat, MAT_BYTES));
        errs.push(sys::cudaMemcpy(
            d_mat,
            h_mat.as_ptr() as *const c_void,
            MAT_BYTES,
            cudaMemcpyKind::cudaMemcpyHostToDevice,
        ));
        // meant to fetch one row: COLS * 4 bytes
        errs.push(sys::cudaMemcpy( // EXPECT: copy_out_of_bounds
            h_row.as_mut_ptr() as *mut c_void,
            d_mat,
            MAT_BYTES,
            cudaMemcpyKind::cudaMemcpyDeviceToHost,
        ));
        errs.push(sys::cudaFree(d_mat));
    }
    if errs.iter().any(|e| *e != cudaError_t::cudaSuccess) {
        return Err(format!("runtime errors: {errs:?}"));
    }
    Ok(h_row)
}
