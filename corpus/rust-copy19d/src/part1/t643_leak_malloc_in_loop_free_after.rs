//! case: a benchmark harness cudaMalloc's a fresh buffer in every iteration of its timing loop and cudaFree's only the last one after the loop.
//! expect: device_memory_leak=1
use cudarc::runtime::sys::{cudaError, cudaFree, cudaMalloc, cudaMemcpy, cudaMemcpyKind};
use std::ffi::c_void;
use std::time::Instant;

const BYTES: usize = 64 << 20;
const ITERS: usize = 20;

pub fn h2d_bandwidth() -> Result<f64, cudaError> {
    let host = vec![0u8; BYTES];
    let mut d_buf: *mut c_void = std::ptr::null_mut();
    let mut best = f64::MAX;
    unsafe {
        for _ in 0..ITERS {
            let st = cudaMalloc(&mut d_buf, BYTES); // EXPECT: device_memory_leak
            if st != cudaError::cudaSuccess {
                return Err(st);
            }
            let t0 = Instant::now();
            cudaMemcpy(d_buf, host.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
            best = best.min(t0.elapsed().as_secs_f64());
        }
        cudaFree(d_buf);
    }
    Ok(BYTES as f64 / best / 1e9)
}
