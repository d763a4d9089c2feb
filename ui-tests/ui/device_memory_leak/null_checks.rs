// A pointer an allocation stored, tested for null before use (`NonNull::new(p)`, `p.is_null()`):
// on the branch where it is null the allocation gave nothing, and returning there loses nothing.
// A return after the test, with the memory made, does.
use cudarc::driver::sys;
use std::ffi::c_void;
use std::ptr::{self, NonNull};

const BYTES: usize = 1 << 16;

pub struct Staging {
    ptr: NonNull<f32>,
}

impl Drop for Staging {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemFreeHost(self.ptr.as_ptr().cast());
        }
    }
}

fn ok_null_pointer_branch_of_non_null_new() -> Result<Staging, String> {
    let mut p: *mut c_void = ptr::null_mut();
    let rc = unsafe { sys::cuMemHostAlloc(&mut p, BYTES, 0) };
    if rc != sys::CUresult::CUDA_SUCCESS {
        return Err(format!("{rc:?}"));
    }
    let Some(ptr) = NonNull::new(p.cast::<f32>()) else {
        return Err("the driver returned a null pointer".into());
    };
    Ok(Staging { ptr })
}

fn ok_null_pointer_branch_of_is_null() -> Result<(), String> {
    let mut p: *mut c_void = ptr::null_mut();
    unsafe {
        let _ = sys::cuMemAllocHost_v2(&mut p, BYTES);
    }
    if p.is_null() {
        return Err("no pinned memory".into());
    }
    unsafe {
        let _ = sys::cuMemFreeHost(p);
    }
    Ok(())
}

fn fires_return_after_the_null_test(limit: usize) -> Result<(), String> {
    let mut p: *mut c_void = ptr::null_mut();
    unsafe {
        let _ = sys::cuMemAllocHost_v2(&mut p, BYTES);
        //~^ device_memory_leak
    }
    if p.is_null() {
        return Err("no pinned memory".into());
    }
    if BYTES > limit {
        return Err("over the limit".into());
    }
    unsafe {
        let _ = sys::cuMemFreeHost(p);
    }
    Ok(())
}

fn main() {}
