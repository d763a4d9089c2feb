//! case: a stream-compaction harness cudaMalloc's an output counter, assumes it starts at zero, and cudaMemcpy's it back before anything wrote it.
//! expect: uninitialized_device_read=1
use cudarc::runtime::sys::{cudaError, cudaFree, cudaMalloc, cudaMemcpy, cudaMemcpyKind};
use std::ffi::c_void;
use std::mem::size_of;

pub fn initial_survivor_count() -> Result<u32, cudaError> {
    let mut d_count: *mut c_void = std::ptr::null_mut();
    let mut count: u32 = u32::MAX;
    unsafe {
        let st = cudaMalloc(&mut d_count, size_of::<u32>());
        if st != cudaError::cudaSuccess {
            return Err(st);
        }
        let st = cudaMemcpy(&mut count as *mut u32 as *mut c_void, d_count, size_of::<u32>(), cudaMemcpyKind::cudaMemcpyDeviceToHost); // EXPECT: uninitialized_device_read
        cudaFree(d_count);
        if st != cudaError::cudaSuccess {
            return Err(st);
        }
    }
    Ok(count)
}
