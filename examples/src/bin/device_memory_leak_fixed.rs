//! The fix of `device_memory_leak_bug`: the early return frees the scratch buffer (better: the
//! check for an empty batch comes before the allocation).

use std::ffi::c_void;

use cuda_lint_examples::open_gpu;
use cuda_lint_runtime::Error;
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};

const SCRATCH_BYTES: usize = 16 << 20;
const BATCHES: usize = 64;

/// Checks one batch on the device; skips (returns `Ok(false)`) empty ones.
fn check_batch(batch: &[u32]) -> Result<bool, CUresult> {
    let mut d_scratch: CUdeviceptr = 0;
    let rc = unsafe { sys::cuMemAlloc_v2(&mut d_scratch, SCRATCH_BYTES) };
    if rc != CUresult::CUDA_SUCCESS {
        return Err(rc);
    }
    if batch.is_empty() {
        unsafe { sys::cuMemFree_v2(d_scratch) };
        return Ok(false);
    }
    let bytes = std::mem::size_of_val(batch).min(SCRATCH_BYTES);
    unsafe {
        let rc = sys::cuMemcpyHtoD_v2(d_scratch, batch.as_ptr() as *const c_void, bytes);
        sys::cuMemFree_v2(d_scratch);
        if rc != CUresult::CUDA_SUCCESS {
            return Err(rc);
        }
    }
    Ok(true)
}

fn free_mib() -> f64 {
    let (mut free, mut total) = (0usize, 0usize);
    unsafe { sys::cuMemGetInfo_v2(&mut free, &mut total) };
    free as f64 / (1 << 20) as f64
}

fn main() -> Result<(), Error> {
    println!("device_memory_leak (fixed): every return frees the scratch buffer");
    let Some(ctx) = open_gpu("device_memory_leak_fixed")? else {
        return Ok(());
    };
    ctx.synchronize()?;
    let full = vec![1u32; 1024];
    let before = free_mib();
    let mut checked = 0;
    for i in 0..BATCHES {
        let batch: &[u32] = if i % 2 == 0 { &full } else { &[] };
        if let Ok(true) = check_batch(batch) {
            checked += 1;
        }
    }
    let after = free_mib();
    println!(
        "device_memory_leak_fixed: {checked} of {BATCHES} batches checked; free device memory {before:.0} MiB before, {after:.0} MiB after ({:.0} MiB lost)",
        before - after
    );
    Ok(())
}
