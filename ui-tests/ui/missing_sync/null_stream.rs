//@no-rustfix
// The null stream passed as a value (`null_mut()`, `0 as CUstream`, a helper's default) is the
// legacy default stream: work there does not wait for non-blocking streams, nor they for it.
// Streams made non-blocking through the driver's flag enum (`CU_STREAM_NON_BLOCKING as u32`)
// or the runtime's `cudaStreamNonBlocking` are told apart from blocking ones.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys::{self as cu, CUdeviceptr, CUfunction, CUstream};
use cudarc::runtime::sys::{self as rt, cudaMemcpyKind, cudaStream_t};

const N: usize = 1 << 20;
const BYTES: usize = N * 4;

unsafe fn non_blocking() -> CUstream {
    let mut s: CUstream = null_mut();
    unsafe { cu::cuStreamCreate(&mut s, cu::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) };
    s
}

unsafe fn blocking() -> CUstream {
    let mut s: CUstream = null_mut();
    unsafe { cu::cuStreamCreate(&mut s, cu::CUstream_flags::CU_STREAM_DEFAULT as u32) };
    s
}

unsafe fn buffer() -> CUdeviceptr {
    let mut d: CUdeviceptr = 0;
    unsafe { cu::cuMemAlloc_v2(&mut d, BYTES) };
    d
}

unsafe fn pinned() -> *mut c_void {
    let mut h: *mut c_void = null_mut();
    unsafe { cu::cuMemAllocHost_v2(&mut h, BYTES) };
    h
}

unsafe fn launch(f: CUfunction, s: CUstream, d: &mut CUdeviceptr) {
    let mut args = [d as *mut CUdeviceptr as *mut c_void];
    unsafe { cu::cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, s, args.as_mut_ptr(), null_mut()) };
}

/// A helper that reads back on the stream it is given.
unsafe fn read_back(h: *mut c_void, d: CUdeviceptr, stream: CUstream) {
    unsafe { cu::cuMemcpyDtoHAsync_v2(h, d, BYTES, stream) };
}

// The kernel's source is not visible: what it writes is not seen, so this is
// `unverified`'s (allow by default, tests in ui/unverified/), not this lint's.
fn unseen_readback_on_the_null_stream_races_a_non_blocking_kernel(f: CUfunction) {
    unsafe {
        let work = non_blocking();
        let mut d = buffer();
        let h = pinned();
        launch(f, work, &mut d);
        cu::cuMemcpyDtoHAsync_v2(h, d, BYTES, null_mut());
        cu::cuCtxSynchronize();
    }
}

// The kernel's source is not visible: what it writes is not seen, so this is
// `unverified`'s (allow by default, tests in ui/unverified/), not this lint's.
fn unseen_stream_zero_as_an_integer(f: CUfunction) {
    unsafe {
        let work = non_blocking();
        let mut d = buffer();
        let h = pinned();
        launch(f, work, &mut d);
        cu::cuMemcpyDtoHAsync_v2(h, d, BYTES, 0 as CUstream);
        cu::cuCtxSynchronize();
    }
}

fn fires_runtime_copy_on_stream_zero_races_a_non_blocking_stream(host: &mut [f32]) {
    unsafe {
        let mut s: cudaStream_t = null_mut();
        rt::cudaStreamCreateWithFlags(&mut s, rt::cudaStreamNonBlocking);
        let mut d: *mut c_void = null_mut();
        rt::cudaMalloc(&mut d, BYTES);
        rt::cudaMemsetAsync(d, 0, BYTES, s);
        let mut h: *mut c_void = null_mut();
        rt::cudaMallocHost(&mut h, BYTES);
        rt::cudaMemcpyAsync(h, d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost, null_mut());
        //~^ missing_sync
        rt::cudaDeviceSynchronize();
        host[0] = *(h as *const f32);
    }
}

// The kernel's source is not visible: what it writes is not seen, so this is
// `unverified`'s (allow by default, tests in ui/unverified/), not this lint's.
fn unseen_helper_given_the_null_stream(f: CUfunction) {
    unsafe {
        let work = non_blocking();
        let mut d = buffer();
        let h = pinned();
        launch(f, work, &mut d);
        read_back(h, d, null_mut());
        cu::cuCtxSynchronize();
    }
}

fn ok_null_stream_after_a_blocking_stream(f: CUfunction) {
    // The legacy stream waits for the earlier work of blocking streams.
    unsafe {
        let work = blocking();
        let mut d = buffer();
        let h = pinned();
        launch(f, work, &mut d);
        cu::cuMemcpyDtoHAsync_v2(h, d, BYTES, null_mut());
        cu::cuCtxSynchronize();
    }
}

fn ok_null_stream_after_the_non_blocking_stream_finished(f: CUfunction) {
    unsafe {
        let work = non_blocking();
        let mut d = buffer();
        let h = pinned();
        launch(f, work, &mut d);
        cu::cuStreamSynchronize(work);
        cu::cuMemcpyDtoHAsync_v2(h, d, BYTES, null_mut());
        cu::cuStreamSynchronize(null_mut());
        let _ = *(h as *const f32);
    }
}

fn ok_null_stream_throughout(f: CUfunction) {
    unsafe {
        let mut d = buffer();
        let h = pinned();
        launch(f, null_mut(), &mut d);
        cu::cuMemcpyDtoHAsync_v2(h, d, BYTES, null_mut());
        cu::cuStreamSynchronize(null_mut());
        let _ = *(h as *const f32);
    }
}

fn ok_helper_given_the_working_stream(f: CUfunction) {
    unsafe {
        let work = non_blocking();
        let mut d = buffer();
        let h = pinned();
        launch(f, work, &mut d);
        read_back(h, d, work);
        cu::cuStreamSynchronize(work);
        let _ = *(h as *const f32);
    }
}

fn ok_runtime_copy_on_stream_zero_after_a_blocking_stream(host: &mut [f32]) {
    unsafe {
        let mut s: cudaStream_t = null_mut();
        rt::cudaStreamCreate(&mut s);
        let mut d: *mut c_void = null_mut();
        rt::cudaMalloc(&mut d, BYTES);
        rt::cudaMemsetAsync(d, 0, BYTES, s);
        let mut h: *mut c_void = null_mut();
        rt::cudaMallocHost(&mut h, BYTES);
        rt::cudaMemcpyAsync(h, d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost, null_mut());
        rt::cudaStreamSynchronize(null_mut());
        host[0] = *(h as *const f32);
    }
}

fn main() {}
