// Filling the fields of a managed struct while a kernel runs is one missing wait: reported once
// per allocation, at its first access.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ptr::null_mut;

use cudarc::driver::sys;

#[repr(C)]
struct Predicate {
    lo: i32,
    hi: i32,
    len: u32,
}

unsafe fn managed_predicate() -> *mut Predicate {
    let mut p: sys::CUdeviceptr = 0;
    unsafe {
        sys::cuMemAllocManaged(
            &mut p,
            std::mem::size_of::<Predicate>(),
            sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32,
        )
    };
    p as *mut Predicate
}

fn fires_fields_filled_while_a_kernel_runs(f: sys::CUfunction, stream: sys::CUstream, args: &mut [*mut std::ffi::c_void]) {
    let next = unsafe { managed_predicate() };
    unsafe { sys::cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, stream, args.as_mut_ptr(), null_mut()) };
    unsafe {
        (*next).lo = 1; //~ managed_concurrent_access
        (*next).hi = 9;
        (*next).len = 64;
    }
    unsafe { sys::cuStreamSynchronize(stream) };
}

fn ok_fields_filled_after_the_wait(f: sys::CUfunction, stream: sys::CUstream, args: &mut [*mut std::ffi::c_void]) {
    let next = unsafe { managed_predicate() };
    unsafe { sys::cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, stream, args.as_mut_ptr(), null_mut()) };
    unsafe { sys::cuStreamSynchronize(stream) };
    unsafe {
        (*next).lo = 1;
        (*next).hi = 9;
        (*next).len = 64;
    }
}

fn main() {}
