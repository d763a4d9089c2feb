// The runtime API: `cudaMallocManaged` memory touched by the host while a `cudaLaunchKernel`
// kernel on other memory may still run.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::runtime::sys::{self, cudaStream_t, dim3};

const BYTES: usize = 1 << 22;

unsafe fn stream() -> cudaStream_t {
    let mut s: cudaStream_t = null_mut();
    unsafe { sys::cudaStreamCreate(&mut s) };
    s
}

unsafe fn launch(kernel: *const c_void, s: cudaStream_t, mut data: *mut c_void) {
    unsafe {
        let mut args = [&mut data as *mut *mut c_void as *mut c_void];
        let grid = dim3 { x: 1024, y: 1, z: 1 };
        let block = dim3 { x: 1024, y: 1, z: 1 };
        sys::cudaLaunchKernel(kernel, grid, block, args.as_mut_ptr(), 0, s);
    }
}

unsafe fn managed(bytes: usize) -> *mut u32 {
    let mut p: *mut c_void = null_mut();
    unsafe { sys::cudaMallocManaged(&mut p, bytes, 1) };
    p.cast()
}

fn fires_managed_read_while_a_runtime_kernel_runs(kernel: *const c_void) -> u32 {
    unsafe {
        let s = stream();
        let mut work: *mut c_void = null_mut();
        sys::cudaMalloc(&mut work, BYTES);
        let counter = managed(64);
        launch(kernel, s, work);
        let v = *counter;
        //~^ managed_concurrent_access
        sys::cudaStreamSynchronize(s);
        v
    }
}

fn fires_managed_write_while_a_kernel_on_the_default_stream_runs(kernel: *const c_void) {
    unsafe {
        let mut work: *mut c_void = null_mut();
        sys::cudaMalloc(&mut work, BYTES);
        let next = managed(64);
        launch(kernel, null_mut(), work);
        *next = 1;
        //~^ managed_concurrent_access
        sys::cudaDeviceSynchronize();
    }
}

fn fires_managed_read_in_a_loop_of_launches(kernel: *const c_void, steps: usize) -> u32 {
    unsafe {
        let s = stream();
        let mut work: *mut c_void = null_mut();
        sys::cudaMalloc(&mut work, BYTES);
        let progress = managed(64);
        let mut last = 0;
        for _ in 0..steps {
            launch(kernel, s, work);
            last = *progress;
            //~^ managed_concurrent_access
        }
        sys::cudaStreamSynchronize(s);
        last
    }
}

fn fires_managed_read_after_an_event_sync_that_is_not_the_kernel(kernel: *const c_void) -> u32 {
    unsafe {
        let (compute, other) = (stream(), stream());
        let mut work: *mut c_void = null_mut();
        sys::cudaMalloc(&mut work, BYTES);
        let counter = managed(64);
        let mut ev = null_mut();
        sys::cudaEventCreate(&mut ev);
        sys::cudaEventRecord(ev, other);
        launch(kernel, compute, work);
        sys::cudaEventSynchronize(ev);
        let v = *counter;
        //~^ managed_concurrent_access
        sys::cudaDeviceSynchronize();
        v
    }
}

fn ok_managed_read_after_device_synchronize(kernel: *const c_void) -> u32 {
    unsafe {
        let s = stream();
        let mut work: *mut c_void = null_mut();
        sys::cudaMalloc(&mut work, BYTES);
        let counter = managed(64);
        launch(kernel, s, work);
        sys::cudaDeviceSynchronize();
        *counter
    }
}

fn ok_managed_read_in_a_loop_after_each_step_is_waited_for(kernel: *const c_void, steps: usize) -> u32 {
    unsafe {
        let s = stream();
        let mut work: *mut c_void = null_mut();
        sys::cudaMalloc(&mut work, BYTES);
        let progress = managed(64);
        let mut last = 0;
        for _ in 0..steps {
            launch(kernel, s, work);
            sys::cudaStreamSynchronize(s);
            last = *progress;
        }
        last
    }
}

fn ok_device_memory_kernel_and_a_host_vec(kernel: *const c_void) -> u32 {
    unsafe {
        let s = stream();
        let mut work: *mut c_void = null_mut();
        sys::cudaMalloc(&mut work, BYTES);
        let host = vec![0u32; 16];
        launch(kernel, s, work);
        let v = host[0];
        sys::cudaStreamSynchronize(s);
        v
    }
}

fn main() {}
