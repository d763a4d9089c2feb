//! case: near miss: the pointer starts null and its address is handed to a pool allocator of a C library (declared, no body in the crate), which may allocate it before the copy
//! expect: none

use cudarc::runtime::sys::{self, cudaMemcpyKind};
use std::ffi::c_void;
use std::mem::size_of;

#[link(name = "devpool")]
unsafe extern "C" {
    fn devpool_acquire(out: *mut *mut c_void, bytes: usize) -> i32;
    fn devpool_release(p: *mut c_void);
}

const N: usize = 4096;

pub fn stage(values: &[f64; N]) -> i32 {
    let mut d_stage: *mut c_void = std::ptr::null_mut();
    unsafe {
        let rc = devpool_acquire(&mut d_stage, N * size_of::<f64>());
        if rc != 0 {
            return rc;
        }
        sys::cudaMemcpy(d_stage, values.as_ptr() as *const c_void, N * size_of::<f64>(), cudaMemcpyKind::cudaMemcpyHostToDevice);
        devpool_release(d_stage);
    }
    0
}
