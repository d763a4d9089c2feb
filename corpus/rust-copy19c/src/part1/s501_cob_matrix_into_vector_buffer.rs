//! case: a 64x64 matrix is copied with cudaMemcpy into a device buffer sized for one 64-element row (DRACC 009 shape, runtime API through cudarc::runtime::sys)
//! expect: copy_out_of_bounds=1

use cudarc::runtime::sys::{self, cudaMemcpyKind};
use std::ffi::c_void;
use std::mem::size_of;

const N: usize = 64;

pub fn upload_matrix() -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let h_mat: Vec<f32> = (0..N * N).map(|i| i as f32 * 0.5).collect();
    let mut h_back = vec![0.0f32; N];
    let mut d_vec: *mut c_void = std::ptr::null_mut();
    unsafe {
        // meant to hold the matrix, sized like the vector of the earlier version
        sys::cudaMalloc(&mut d_vec, N * size_of::<f32>()).result().expect("allocation failed");
        let bytes = N * N * size_of::<f32>();
        sys::cudaMemcpy(d_vec, h_mat.as_ptr() as *const c_void, bytes, cudaMemcpyKind::cudaMemcpyHostToDevice).result().expect("cudaMemcpy"); // EXPECT: copy_out_of_bounds
        sys::cudaMemcpy(
            h_back.as_mut_ptr() as *mut c_void,
            d_vec,
            N * size_of::<f32>(),
            cudaMemcpyKind::cudaMemcpyDeviceToHost,
        )
        .result().expect("cudaMemcpy D2H");
        sys::cudaFree(d_vec).result().expect("cudaFree");
    }
    Ok(h_back)
}
