// The driver API: `cuMemHostAlloc` with `CU_MEMHOSTALLOC_WRITECOMBINED` (through cudarc's `sys`
// and a crate's own `extern "C"` block), the flags written as a constant, combined with others,
// or passed through a helper. `cuMemAllocHost` memory is not write-combined.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr, CUstream};

const N: usize = 1 << 20;
const BYTES: usize = N * 4;

mod ffi {
    pub type CUresult = i32;
    pub const CU_MEMHOSTALLOC_WRITECOMBINED: u32 = 0x04;
    unsafe extern "C" {
        pub fn cuMemHostAlloc(pp: *mut *mut std::ffi::c_void, bytes: usize, flags: u32) -> CUresult;
    }
}

unsafe fn host_alloc(flags: u32) -> *mut f32 {
    let mut h: *mut c_void = null_mut();
    unsafe { sys::cuMemHostAlloc(&mut h, BYTES, flags) };
    h as *mut f32
}

unsafe fn read_back(h: *mut f32, d: CUdeviceptr, s: CUstream) {
    unsafe {
        sys::cuMemcpyDtoHAsync_v2(h as *mut c_void, d, BYTES, s);
        sys::cuStreamSynchronize(s);
    }
}

fn fires_write_combined_readback_summed(d: CUdeviceptr, s: CUstream) -> f32 {
    unsafe {
        let mut h: *mut c_void = null_mut();
        sys::cuMemHostAlloc(&mut h, BYTES, sys::CU_MEMHOSTALLOC_WRITECOMBINED);
        read_back(h as *mut f32, d, s);
        std::slice::from_raw_parts(h as *const f32, N).iter().sum()
        //~^ write_combined_host_read
    }
}

fn fires_flags_combined_with_portable(d: CUdeviceptr, s: CUstream) -> f32 {
    unsafe {
        let mut h: *mut c_void = null_mut();
        sys::cuMemHostAlloc(&mut h, BYTES, sys::CU_MEMHOSTALLOC_PORTABLE | sys::CU_MEMHOSTALLOC_WRITECOMBINED);
        read_back(h as *mut f32, d, s);
        *(h as *const f32)
        //~^ write_combined_host_read
    }
}

fn fires_flags_through_a_helper(d: CUdeviceptr, s: CUstream) -> f32 {
    unsafe {
        let h = host_alloc(sys::CU_MEMHOSTALLOC_WRITECOMBINED);
        read_back(h, d, s);
        *h.add(7)
        //~^ write_combined_host_read
    }
}

fn fires_own_bindings(d: CUdeviceptr, s: CUstream) -> f32 {
    unsafe {
        let mut h: *mut c_void = null_mut();
        ffi::cuMemHostAlloc(&mut h, BYTES, ffi::CU_MEMHOSTALLOC_WRITECOMBINED);
        read_back(h as *mut f32, d, s);
        let v = std::slice::from_raw_parts(h as *const f32, N);
        v[0]
        //~^ write_combined_host_read
    }
}

fn ok_cu_mem_alloc_host_readback(d: CUdeviceptr, s: CUstream) -> f32 {
    unsafe {
        let mut h: *mut c_void = null_mut();
        sys::cuMemAllocHost_v2(&mut h, BYTES);
        read_back(h as *mut f32, d, s);
        *(h as *const f32)
    }
}

fn ok_host_alloc_without_the_flag(d: CUdeviceptr, s: CUstream) -> f32 {
    unsafe {
        let h = host_alloc(sys::CU_MEMHOSTALLOC_PORTABLE);
        read_back(h, d, s);
        *h
    }
}

fn ok_write_combined_only_written(d: CUdeviceptr, s: CUstream) {
    unsafe {
        let h = host_alloc(sys::CU_MEMHOSTALLOC_WRITECOMBINED);
        std::slice::from_raw_parts_mut(h, N).fill(1.0);
        sys::cuMemcpyHtoDAsync_v2(d, h as *const c_void, BYTES, s);
        sys::cuStreamSynchronize(s);
    }
}

fn ok_flags_not_known_here(d: CUdeviceptr, s: CUstream, flags: u32) -> f32 {
    unsafe {
        let h = host_alloc(flags);
        read_back(h, d, s);
        *h
    }
}

fn main() {}
