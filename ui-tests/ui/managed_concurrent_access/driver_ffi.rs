// The driver API (cudarc's `sys` and a crate's own `extern "C"` block): `cuMemAllocManaged`
// memory touched by the host while `cuLaunchKernel` work on other memory may still run.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUstream};

const BYTES: usize = 1 << 22;

mod ffi {
    pub type CUresult = i32;
    unsafe extern "C" {
        pub fn cuMemAllocManaged(dptr: *mut u64, bytes: usize, flags: u32) -> CUresult;
    }
}

unsafe fn launch_on(kernel: CUfunction, s: CUstream, mut data: CUdeviceptr) {
    unsafe {
        let mut params = [&mut data as *mut CUdeviceptr as *mut c_void];
        sys::cuLaunchKernel(kernel, 1024, 1, 1, 1024, 1, 1, 0, s, params.as_mut_ptr(), null_mut());
    }
}

fn fires_config_read_from_managed_memory_during_a_kernel(kernel: CUfunction, s: CUstream) -> u32 {
    unsafe {
        let mut work: CUdeviceptr = 0;
        let mut config: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut work, BYTES);
        sys::cuMemAllocManaged(&mut config, 64, 1);
        launch_on(kernel, s, work);
        let flags = *(config as *const u32);
        //~^ managed_concurrent_access
        sys::cuStreamSynchronize(s);
        flags
    }
}

fn fires_extern_block_managed_write_during_a_kernel(kernel: CUfunction, s: CUstream) {
    unsafe {
        let mut work: CUdeviceptr = 0;
        let mut next: u64 = 0;
        sys::cuMemAlloc_v2(&mut work, BYTES);
        ffi::cuMemAllocManaged(&mut next, 64, 1);
        launch_on(kernel, s, work);
        *(next as *mut u32) = 7;
        //~^ managed_concurrent_access
        sys::cuCtxSynchronize();
    }
}

fn fires_managed_slice_during_a_kernel_on_some_paths(kernel: CUfunction, s: CUstream, busy: bool) -> u32 {
    unsafe {
        let mut work: CUdeviceptr = 0;
        let mut stats: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut work, BYTES);
        sys::cuMemAllocManaged(&mut stats, 64, 1);
        if busy {
            launch_on(kernel, s, work);
        }
        let view = std::slice::from_raw_parts(stats as *const u32, 16);
        let total = view.iter().sum();
        //~^ managed_concurrent_access
        sys::cuStreamSynchronize(s);
        total
    }
}

unsafe fn new_stream() -> CUstream {
    let mut s: CUstream = null_mut();
    unsafe { sys::cuStreamCreate(&mut s, 0) };
    s
}

fn fires_managed_read_while_a_kernel_on_another_stream_runs(kernel: CUfunction) -> u32 {
    // Waiting for stream `b` does not finish the kernel on `a`.
    unsafe {
        let (a, b) = (new_stream(), new_stream());
        let mut work: CUdeviceptr = 0;
        let mut config: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut work, BYTES);
        sys::cuMemAllocManaged(&mut config, 64, 1);
        launch_on(kernel, a, work);
        sys::cuStreamSynchronize(b);
        let v = *(config as *const u32);
        //~^ managed_concurrent_access
        sys::cuStreamSynchronize(a);
        v
    }
}

fn ok_managed_read_after_the_context_synchronizes(kernel: CUfunction, s: CUstream) -> u32 {
    unsafe {
        let mut work: CUdeviceptr = 0;
        let mut config: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut work, BYTES);
        sys::cuMemAllocManaged(&mut config, 64, 1);
        launch_on(kernel, s, work);
        sys::cuCtxSynchronize();
        *(config as *const u32)
    }
}

fn ok_managed_written_before_the_kernel(kernel: CUfunction, s: CUstream) {
    unsafe {
        let mut work: CUdeviceptr = 0;
        let mut config: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut work, BYTES);
        sys::cuMemAllocManaged(&mut config, 64, 1);
        *(config as *mut u32) = 3;
        launch_on(kernel, s, work);
        sys::cuStreamSynchronize(s);
    }
}

fn ok_extern_block_managed_read_after_the_stream(kernel: CUfunction, s: CUstream) -> u32 {
    unsafe {
        let mut work: CUdeviceptr = 0;
        let mut next: u64 = 0;
        sys::cuMemAlloc_v2(&mut work, BYTES);
        ffi::cuMemAllocManaged(&mut next, 64, 1);
        launch_on(kernel, s, work);
        sys::cuStreamSynchronize(s);
        *(next as *const u32)
    }
}

fn ok_copy_not_kernel_running(s: CUstream, host: &[u8]) -> u32 {
    // A copy is not a kernel: only kernels take managed memory away from the host.
    unsafe {
        let mut work: CUdeviceptr = 0;
        let mut config: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut work, BYTES);
        sys::cuMemAllocManaged(&mut config, 64, 1);
        sys::cuMemcpyHtoDAsync_v2(work, host.as_ptr().cast(), host.len(), s);
        let v = *(config as *const u32);
        sys::cuStreamSynchronize(s);
        v
    }
}

fn main() {}
