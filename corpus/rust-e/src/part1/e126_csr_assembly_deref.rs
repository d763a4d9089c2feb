//! case: sparse-matrix assembly through hand-written libcudart bindings; the CSR row pointer array is cudaMalloc'd and its leading zero is then written through the device pointer on the host before the rest is copied in with cudaMemcpy
//! expect: host_deref_device_ptr=1

use std::ffi::c_void;
use std::ptr;

type CudaError = i32;
const CUDA_MEMCPY_HOST_TO_DEVICE: i32 = 1;

#[link(name = "cudart")]
unsafe extern "C" {
    fn cudaMalloc(dev_ptr: *mut *mut c_void, size: usize) -> CudaError;
    fn cudaFree(dev_ptr: *mut c_void) -> CudaError;
    fn cudaMemcpy(dst: *mut c_void, src: *const c_void, count: usize, kind: i32) -> CudaError;
}

#[derive(Debug)]
pub struct CudaFailure(pub &'static str, pub CudaError);

fn check(what: &'static str, rc: CudaError) -> Result<(), CudaFailure> {
    if rc == 0 { Ok(()) } else { Err(CudaFailure(what, rc)) }
}

/// A CSR matrix resident on the device.
pub struct DeviceCsr {
    pub rows: usize,
    pub nnz: usize,
    pub row_ptr: *mut i32,
    pub col_idx: *mut i32,
    pub values: *mut f64,
}

impl DeviceCsr {
    /// Builds the device matrix from COO triplets already sorted by row.
    pub fn from_sorted_coo(rows: usize, triplets: &[(u32, u32, f64)]) -> Result<Self, CudaFailure> {
        let nnz = triplets.len();
        let mut counts = vec![0i32; rows];
        triplets.iter().for_each(|&(r, _, _)| counts[r as usize] += 1);
        let prefix: Vec<i32> = counts
            .iter()
            .scan(0i32, |acc, &c| {
                *acc += c;
                Some(*acc)
            })
            .collect();
        let cols: Vec<i32> = triplets.iter().map(|t| t.1 as i32).collect();
        let vals: Vec<f64> = triplets.iter().map(|t| t.2).collect();

        let mut row_ptr: *mut c_void = ptr::null_mut();
        let mut col_idx: *mut c_void = ptr::null_mut();
        let mut values: *mut c_void = ptr::null_mut();
        unsafe {
            check("cudaMalloc(row_ptr)", cudaMalloc(&mut row_ptr, (rows + 1) * 4))?;
            check("cudaMalloc(col_idx)", cudaMalloc(&mut col_idx, nnz * 4))?;
            check("cudaMalloc(values)", cudaMalloc(&mut values, nnz * 8))?;
            let row_ptr = row_ptr as *mut i32;
            *row_ptr = 0; // EXPECT: host_deref_device_ptr
            check("row_ptr", cudaMemcpy(row_ptr.add(1) as *mut c_void, prefix.as_ptr() as *const c_void, rows * 4, CUDA_MEMCPY_HOST_TO_DEVICE))?;
            check("col_idx", cudaMemcpy(col_idx, cols.as_ptr() as *const c_void, nnz * 4, CUDA_MEMCPY_HOST_TO_DEVICE))?;
            check("values", cudaMemcpy(values, vals.as_ptr() as *const c_void, nnz * 8, CUDA_MEMCPY_HOST_TO_DEVICE))?;
            Ok(DeviceCsr { rows, nnz, row_ptr, col_idx: col_idx as *mut i32, values: values as *mut f64 })
        }
    }
}

impl Drop for DeviceCsr {
    fn drop(&mut self) {
        unsafe {
            cudaFree(self.row_ptr as *mut c_void);
            cudaFree(self.col_idx as *mut c_void);
            cudaFree(self.values as *mut c_void);
        }
    }
}
