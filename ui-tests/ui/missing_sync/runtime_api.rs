// The CUDA runtime API (`cudart`) through `cudarc::runtime::sys`: `cudaMemcpyAsync` with a
// `cudaMemcpyKind`, `cudaStreamSynchronize`, events, `cudaLaunchKernel`.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak, cuda_lint::uninitialized_device_read))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::runtime::sys::{self, cudaEvent_t, cudaMemcpyKind, cudaStream_t, dim3};

const N: usize = 1 << 20;
const BYTES: usize = N * 4;

unsafe fn stream() -> cudaStream_t {
    let mut s: cudaStream_t = null_mut();
    unsafe { sys::cudaStreamCreate(&mut s) };
    s
}

unsafe fn device() -> *mut c_void {
    let mut d: *mut c_void = null_mut();
    unsafe { sys::cudaMalloc(&mut d, BYTES) };
    d
}

unsafe fn pinned() -> *mut f32 {
    let mut h: *mut c_void = null_mut();
    unsafe { sys::cudaMallocHost(&mut h, BYTES) };
    h as *mut f32
}

fn fires_read_before_cuda_stream_synchronize() -> f32 {
    unsafe {
        let s = stream();
        let d = device();
        let h = pinned();
        sys::cudaMemcpyAsync(h as *mut c_void, d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost, s);
        let first = *h;
        //~^ missing_sync
        sys::cudaStreamSynchronize(s);
        first
    }
}

fn fires_host_alloc_refilled_while_uploading() {
    unsafe {
        let s = stream();
        let d = device();
        let mut h: *mut c_void = null_mut();
        sys::cudaHostAlloc(&mut h, BYTES, 0);
        let staging = std::slice::from_raw_parts_mut(h as *mut f32, N);
        for step in 0..4 {
            staging.fill(step as f32);
            //~^ missing_sync
            sys::cudaMemcpyAsync(d, h, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, s);
        }
        sys::cudaDeviceSynchronize();
    }
}

// The kernel's source is not visible: what it writes is not seen, so this is
// `unverified`'s (allow by default, tests in ui/unverified/), not this lint's.
fn unseen_managed_result_of_a_launch_read_too_early(kernel: *const c_void) -> f32 {
    unsafe {
        let s = stream();
        let mut data: *mut c_void = null_mut();
        sys::cudaMallocManaged(&mut data, BYTES, 1);
        let mut n = N as i32;
        let mut args = [&mut data as *mut *mut c_void as *mut c_void, &mut n as *mut i32 as *mut c_void];
        let grid = dim3 { x: 1024, y: 1, z: 1 };
        let block = dim3 { x: 1024, y: 1, z: 1 };
        sys::cudaLaunchKernel(kernel, grid, block, args.as_mut_ptr(), 0, s);
        let first = *(data as *const f32);
        sys::cudaStreamSynchronize(s);
        first
    }
}

fn fires_synchronized_when_verbose_only(verbose: bool) -> f32 {
    unsafe {
        let s = stream();
        let d = device();
        let h = pinned();
        sys::cudaMemcpyAsync(h as *mut c_void, d, BYTES, cudaMemcpyKind::cudaMemcpyDefault, s);
        if verbose {
            sys::cudaStreamSynchronize(s);
            println!("copied");
        }
        let first = *h;
        //~^ missing_sync
        first
    }
}

fn fires_device_buffer_reused_by_another_stream() {
    unsafe {
        let a = stream();
        let b = stream();
        let d = device();
        let h = pinned();
        sys::cudaMemcpyAsync(d, h as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, a);
        sys::cudaMemsetAsync(d, 0, BYTES, b);
        //~^ missing_sync
        sys::cudaDeviceSynchronize();
    }
}

fn fires_registered_vec_read_before_synchronize() -> f32 {
    unsafe {
        let s = stream();
        let d = device();
        let mut out = vec![0.0f32; N];
        sys::cudaHostRegister(out.as_mut_ptr() as *mut c_void, BYTES, 0);
        sys::cudaMemcpyAsync(out.as_mut_ptr() as *mut c_void, d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost, s);
        let first = out[0];
        //~^ missing_sync
        sys::cudaStreamSynchronize(s);
        first
    }
}

fn ok_read_after_cuda_stream_synchronize() -> f32 {
    unsafe {
        let s = stream();
        let d = device();
        let h = pinned();
        sys::cudaMemcpyAsync(h as *mut c_void, d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost, s);
        sys::cudaStreamSynchronize(s);
        *h
    }
}

fn ok_read_after_an_event() -> f32 {
    unsafe {
        let s = stream();
        let d = device();
        let h = pinned();
        let mut done: cudaEvent_t = null_mut();
        sys::cudaEventCreate(&mut done);
        sys::cudaMemcpyAsync(h as *mut c_void, d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost, s);
        sys::cudaEventRecord(done, s);
        sys::cudaEventSynchronize(done);
        *h
    }
}

fn ok_blocking_cuda_memcpy() -> f32 {
    unsafe {
        let d = device();
        let h = pinned();
        sys::cudaMemcpy(h as *mut c_void, d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        *h
    }
}

fn ok_refilled_after_each_upload_finished() {
    unsafe {
        let s = stream();
        let d = device();
        let h = pinned();
        let staging = std::slice::from_raw_parts_mut(h, N);
        for step in 0..4 {
            staging.fill(step as f32);
            sys::cudaMemcpyAsync(d, h as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, s);
            sys::cudaStreamSynchronize(s);
        }
    }
}

fn ok_second_stream_waits_for_the_first() {
    unsafe {
        let a = stream();
        let b = stream();
        let d = device();
        let h = pinned();
        let mut uploaded: cudaEvent_t = null_mut();
        sys::cudaEventCreate(&mut uploaded);
        sys::cudaMemcpyAsync(d, h as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, a);
        sys::cudaEventRecord(uploaded, a);
        sys::cudaStreamWaitEvent(b, uploaded, 0);
        sys::cudaMemsetAsync(d, 0, BYTES, b);
        sys::cudaDeviceSynchronize();
    }
}

fn ok_managed_result_read_after_device_synchronize(kernel: *const c_void) -> f32 {
    unsafe {
        let s = stream();
        let mut data: *mut c_void = null_mut();
        sys::cudaMallocManaged(&mut data, BYTES, 1);
        let mut n = N as i32;
        let mut args = [&mut data as *mut *mut c_void as *mut c_void, &mut n as *mut i32 as *mut c_void];
        let grid = dim3 { x: 1024, y: 1, z: 1 };
        let block = dim3 { x: 1024, y: 1, z: 1 };
        sys::cudaLaunchKernel(kernel, grid, block, args.as_mut_ptr(), 0, s);
        sys::cudaDeviceSynchronize();
        *(data as *const f32)
    }
}

fn ok_freed_on_the_stream_that_used_it() {
    unsafe {
        let s = stream();
        let d = device();
        let h = pinned();
        sys::cudaMemcpyAsync(d, h as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, s);
        sys::cudaFreeAsync(d, s);
        sys::cudaStreamSynchronize(s);
    }
}

fn main() {}
