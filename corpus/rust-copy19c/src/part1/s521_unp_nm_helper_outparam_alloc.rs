//! case: near miss: device pointers start at 0 and are allocated through a helper the crate defines, taking `&mut CUdeviceptr`, before the memset and the copies
//! expect: none

use cudarc::driver::sys;
use cudarc::driver::CudaContext;
use std::ffi::c_void;
use std::mem::size_of;

const N: usize = 2000;

fn alloc_device(p: &mut sys::CUdeviceptr, bytes: usize) {
    unsafe { sys::cuMemAlloc_v2(p, bytes).result().expect("cuMemAlloc") };
}

pub fn zero_then_fill() -> Vec<i32> {
    let ctx = CudaContext::new(0).unwrap();
    ctx.bind_to_thread().unwrap();
    let mut d_idx: sys::CUdeviceptr = 0;
    let mut d_copy: sys::CUdeviceptr = 0;
    alloc_device(&mut d_idx, N * size_of::<i32>());
    alloc_device(&mut d_copy, N * size_of::<i32>());
    let mut host = vec![0i32; N];
    unsafe {
        sys::cuMemsetD32_v2(d_idx, 7, N).result().unwrap();
        sys::cuMemcpyDtoD_v2(d_copy, d_idx, N * size_of::<i32>()).result().unwrap();
        sys::cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, d_copy, N * size_of::<i32>()).result().unwrap();
        sys::cuMemFree_v2(d_copy).result().unwrap();
        sys::cuMemFree_v2(d_idx).result().unwrap();
    }
    host
}
