//! case: a data loader copies a sample count read from the command line into a fixed-capacity cudaMalloc'd buffer; the count is unknown.
//! expect: none
use cudarc::runtime::sys::{cudaError, cudaFree, cudaMalloc, cudaMemcpy, cudaMemcpyKind};
use std::ffi::c_void;
use std::mem::size_of;

const CAPACITY: usize = 1 << 16;

pub fn load_samples_from_args() -> Result<Vec<f32>, cudaError> {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1024);
    let host = vec![0.5f32; CAPACITY];
    let mut out = vec![0.0f32; CAPACITY];
    let mut d_samples: *mut c_void = std::ptr::null_mut();
    unsafe {
        let st = cudaMalloc(&mut d_samples, CAPACITY * size_of::<f32>());
        if st != cudaError::cudaSuccess {
            return Err(st);
        }
        let a = cudaMemcpy(d_samples, host.as_ptr() as *const c_void, n * size_of::<f32>(), cudaMemcpyKind::cudaMemcpyHostToDevice);
        let b = cudaMemcpy(out.as_mut_ptr() as *mut c_void, d_samples, n * size_of::<f32>(), cudaMemcpyKind::cudaMemcpyDeviceToHost);
        cudaFree(d_samples);
        if a != cudaError::cudaSuccess {
            return Err(a);
        }
        if b != cudaError::cudaSuccess {
            return Err(b);
        }
    }
    out.truncate(n.min(CAPACITY));
    Ok(out)
}
