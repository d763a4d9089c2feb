//! case: each batch cuMemAlloc's a fresh device buffer into the same variable inside the loop, and only the last one is freed after the loop
//! expect: device_memory_leak=1

use cudarc::driver::sys;
use cudarc::driver::CudaContext;
use std::ffi::c_void;
use std::mem::size_of;

const BATCH: usize = 1024;

pub fn process_batches(batches: &[[f32; BATCH]]) -> Vec<f32> {
    let ctx = CudaContext::new(0).unwrap();
    ctx.bind_to_thread().unwrap();
    let mut d_batch: sys::CUdeviceptr = 0;
    let mut results = Vec::with_capacity(batches.len() * BATCH);
    let mut tmp = [0.0f32; BATCH];
    for batch in batches {
        unsafe {
            sys::cuMemAlloc_v2(&mut d_batch, BATCH * size_of::<f32>()).result().unwrap(); // EXPECT: device_memory_leak
            sys::cuMemcpyHtoD_v2(d_batch, batch.as_ptr() as *const c_void, BATCH * size_of::<f32>()).result().unwrap();
            sys::cuMemcpyDtoH_v2(tmp.as_mut_ptr() as *mut c_void, d_batch, BATCH * size_of::<f32>()).result().unwrap();
        }
        results.extend_from_slice(&tmp);
    }
    if d_batch != 0 {
        unsafe { sys::cuMemFree_v2(d_batch) };
    }
    results
}
