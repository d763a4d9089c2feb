//! case: a data loader cudaMemcpy's only the valid rows of a batch into a cudaMalloc'd buffer, then reads the whole buffer back; a write of part of it counts.
//! expect: none
use cudarc::runtime::sys::{cudaError, cudaFree, cudaMalloc, cudaMemcpy, cudaMemcpyKind};
use std::ffi::c_void;
use std::mem::size_of;

const BATCH: usize = 64;
const FEATURES: usize = 128;
const BATCH_BYTES: usize = BATCH * FEATURES * size_of::<f32>();

pub fn stage_partial_batch(rows: &[f32]) -> Result<Vec<f32>, cudaError> {
    let valid_rows = (rows.len() / FEATURES).min(BATCH);
    let mut back = vec![0.0f32; BATCH * FEATURES];
    let mut d_batch: *mut c_void = std::ptr::null_mut();
    unsafe {
        let st = cudaMalloc(&mut d_batch, BATCH_BYTES);
        if st != cudaError::cudaSuccess {
            return Err(st);
        }
        cudaMemcpy(d_batch, rows.as_ptr() as *const c_void, valid_rows * FEATURES * size_of::<f32>(), cudaMemcpyKind::cudaMemcpyHostToDevice);
        let st = cudaMemcpy(back.as_mut_ptr() as *mut c_void, d_batch, BATCH_BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        cudaFree(d_batch);
        if st != cudaError::cudaSuccess {
            return Err(st);
        }
    }
    Ok(back)
}
