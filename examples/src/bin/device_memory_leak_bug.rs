//! The `device_memory_leak` misuse, really happening, through the raw driver API: a per-batch
//! function allocates a 16 MiB scratch buffer and returns early, without freeing it, on batches
//! it skips (the early-return leak of Wu et al.'s census). The program runs 64 batches, every
//! other one skipped, and prints the device's free memory (`cuMemGetInfo`) before and after.
//! The fix (`device_memory_leak_fixed`) frees the buffer on the early return too.

use std::ffi::c_void;

use cuda_lint_examples::open_gpu;
use cuda_lint_runtime::Error;
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};

const SCRATCH_BYTES: usize = 16 << 20;
const BATCHES: usize = 64;

/// Checks one batch on the device; skips (returns `Ok(false)`) empty ones.
fn check_batch(batch: &[u32]) -> Result<bool, CUresult> {
    let mut d_scratch: CUdeviceptr = 0;
    let rc = unsafe { sys::cuMemAlloc_v2(&mut d_scratch, SCRATCH_BYTES) }; // cuda_lint::device_memory_leak
    if rc != CUresult::CUDA_SUCCESS {
        return Err(rc);
    }
    if batch.is_empty() {
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
    println!("device_memory_leak (bug): an early return that keeps its scratch buffer");
    let Some(ctx) = open_gpu("device_memory_leak_bug")? else {
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
        "device_memory_leak_bug: {checked} of {BATCHES} batches checked; free device memory {before:.0} MiB before, {after:.0} MiB after ({:.0} MiB lost)",
        before - after
    );
    Ok(())
}
