//! case: each batch gets a fresh cuMemAlloc_v2 in the loop body with no free inside the loop; only the last batch's buffer is freed after the loop, the earlier ones are lost when d_batch is reassigned
//! expect: device_memory_leak=1
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::CudaContext;
use std::ffi::c_void;

const BATCH: usize = 1024;
const BATCHES: usize = 8;

pub fn checksum_batches(data: &[u32; BATCH * BATCHES]) -> Result<u64, Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut total = 0u64;
    let mut d_batch: CUdeviceptr = 0;
    let mut back = [0u32; BATCH];
    let mut failures = 0;
    for b in 0..BATCHES {
        unsafe {
            failures += (sys::cuMemAlloc_v2(&mut d_batch, BATCH * 4) != CUresult::CUDA_SUCCESS) as u32; // EXPECT: device_memory_leak
            let chunk = &data[b * BATCH..(b + 1) * BATCH];
            failures += (sys::cuMemcpyHtoD_v2(d_batch, chunk.as_ptr() as *const c_void, BATCH * 4) != CUresult::CUDA_SUCCESS) as u32;
            failures += (sys::cuMemcpyDtoH_v2(back.as_mut_ptr() as *mut c_void, d_batch, BATCH * 4) != CUresult::CUDA_SUCCESS) as u32;
        }
        total += back.iter().map(|v| *v as u64).sum::<u64>();
    }
    unsafe {
        sys::cuMemFree_v2(d_batch);
    }
    if failures > 0 {
        return Err("batch copy failed".into());
    }
    Ok(total)
}
