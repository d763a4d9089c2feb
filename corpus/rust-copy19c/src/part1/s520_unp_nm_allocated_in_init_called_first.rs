//! case: near miss: a global device pointer starts null but an init function the program calls first allocates it before the upload
//! expect: none

use cudarc::runtime::sys::{self, cudaMemcpyKind};
use std::ffi::c_void;
use std::mem::size_of;

const LUT_LEN: usize = 4096;

static mut D_LUT: *mut c_void = std::ptr::null_mut();

fn init_device_state() {
    unsafe {
        let rc = sys::cudaMalloc(&raw mut D_LUT, LUT_LEN * size_of::<u16>());
        assert_eq!(rc, sys::cudaError_t::cudaSuccess, "cudaMalloc for the LUT");
    }
}

fn shutdown_device_state() {
    unsafe {
        sys::cudaFree(D_LUT);
        D_LUT = std::ptr::null_mut();
    }
}

pub fn main_like() {
    let lut: Vec<u16> = (0..LUT_LEN as u32).map(|i| ((i * i) >> 8) as u16).collect();
    init_device_state();
    unsafe {
        sys::cudaMemcpy(D_LUT, lut.as_ptr() as *const c_void, LUT_LEN * size_of::<u16>(), cudaMemcpyKind::cudaMemcpyHostToDevice);
    }
    shutdown_device_state();
}
