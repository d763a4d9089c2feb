//! case: a benchmark harness cudaMalloc's N floats, then copies 2*N floats in and 2*N floats back out with cudaMemcpy (DRACC 015 and 016).
//! expect: copy_out_of_bounds=2
use cudarc::runtime::sys::{cudaError, cudaFree, cudaMalloc, cudaMemcpy, cudaMemcpyKind};
use std::ffi::c_void;
use std::mem::size_of;

const N: usize = 1 << 20;

pub fn roundtrip_bench() -> Result<f64, cudaError> {
    let h_in = vec![1.0f32; N];
    let mut h_out = vec![0.0f32; 2 * N];
    let mut d_buf: *mut c_void = std::ptr::null_mut();
    unsafe {
        let st = cudaMalloc(&mut d_buf, N * size_of::<f32>());
        if st != cudaError::cudaSuccess {
            return Err(st);
        }
        let t0 = std::time::Instant::now();
        let a = cudaMemcpy(d_buf, h_in.as_ptr() as *const c_void, 2 * N * size_of::<f32>(), cudaMemcpyKind::cudaMemcpyHostToDevice); // EXPECT: copy_out_of_bounds
        let b = cudaMemcpy(h_out.as_mut_ptr() as *mut c_void, d_buf, 2 * N * size_of::<f32>(), cudaMemcpyKind::cudaMemcpyDeviceToHost); // EXPECT: copy_out_of_bounds
        let secs = t0.elapsed().as_secs_f64();
        cudaFree(d_buf);
        if a != cudaError::cudaSuccess {
            return Err(a);
        }
        if b != cudaError::cudaSuccess {
            return Err(b);
        }
        Ok((4 * N * size_of::<f32>()) as f64 / secs / 1e9)
    }
}
