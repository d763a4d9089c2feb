// A match on the result of the crate's own function (`if let Err(e) = run() { cleanup }`) runs
// its `Err` arm where the function failed: the cleanup there is checked like any other code.
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::runtime::sys as rt;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn check(points: usize, max: usize) -> Result<()> {
    if points > max {
        return Err(format!("{points} points exceed {max}").into());
    }
    Ok(())
}

fn fires_pinned_staging_freed_as_device_memory_on_failure(points: usize, max: usize) -> Result<usize> {
    let mut staging: *mut c_void = null_mut();
    unsafe { rt::cudaMallocHost(&mut staging, max * 16).result()? };
    if let Err(e) = check(points, max) {
        unsafe {
            let _ = rt::cudaFree(staging); //~ mismatched_free
        }
        return Err(e);
    }
    unsafe { rt::cudaFreeHost(staging).result()? };
    Ok(points)
}

fn ok_pinned_staging_freed_as_pinned_memory_on_failure(points: usize, max: usize) -> Result<usize> {
    let mut staging: *mut c_void = null_mut();
    unsafe { rt::cudaMallocHost(&mut staging, max * 16).result()? };
    match check(points, max) {
        Ok(()) => {}
        Err(e) => {
            unsafe {
                let _ = rt::cudaFreeHost(staging);
            }
            return Err(e);
        }
    }
    unsafe { rt::cudaFreeHost(staging).result()? };
    Ok(points)
}

fn first_slot(slots: &[usize], wanted: usize) -> Option<usize> {
    if wanted >= slots.len() {
        return None;
    }
    Some(slots[wanted])
}

fn fires_freed_with_free_where_no_slot_was_found(slots: &[usize], wanted: usize) -> usize {
    let mut staging: *mut c_void = null_mut();
    unsafe { rt::cudaMallocHost(&mut staging, 1 << 20) };
    let Some(slot) = first_slot(slots, wanted) else {
        unsafe { libc::free(staging) }; //~ mismatched_free
        return 0;
    };
    unsafe { rt::cudaFreeHost(staging) };
    slot
}

fn main() {}
