//! case: DRACC 008 shape with statics: the device pointers are module statics, setup allocates D_A and D_C but not D_B, and D_B is still the destination of an upload
//! expect: unallocated_pointer=1

use cudarc::runtime::sys::{self, cudaMemcpyKind};
use std::ffi::c_void;
use std::mem::size_of;

const N: usize = 256;
const BYTES: usize = N * N * size_of::<f32>();

static mut D_A: *mut c_void = std::ptr::null_mut();
static mut D_B: *mut c_void = std::ptr::null_mut();
static mut D_C: *mut c_void = std::ptr::null_mut();

unsafe fn setup() {
    unsafe {
        sys::cudaMalloc(&raw mut D_A, BYTES);
        sys::cudaMalloc(&raw mut D_C, BYTES);
    }
}

unsafe fn teardown() {
    unsafe {
        sys::cudaFree(D_A);
        sys::cudaFree(D_B);
        sys::cudaFree(D_C);
    }
}

pub fn main_like() {
    let a = vec![1.0f32; N * N];
    let b = vec![2.0f32; N * N];
    let mut c = vec![0.0f32; N * N];
    unsafe {
        setup();
        sys::cudaMemcpy(D_A, a.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        sys::cudaMemcpy(D_B, b.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice); // EXPECT: unallocated_pointer
        sys::cudaMemcpy(D_C, D_A, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToDevice);
        sys::cudaMemcpy(c.as_mut_ptr() as *mut c_void, D_C, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        teardown();
    }
    println!("{}", c[0]);
}
