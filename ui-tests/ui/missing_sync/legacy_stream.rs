//@no-rustfix
// Blocking copies (`cuMemcpyDtoH_v2`, `cudaMemcpy`, cudarc's `memcpy_*_sync`) and memsets run on
// the legacy default stream. It waits for the earlier work of blocking streams (and they for
// it), but not for non-blocking streams (`CU_STREAM_NON_BLOCKING`, `cudaStreamNonBlocking`,
// every stream cudarc's `new_stream` makes). A blocking copy from pageable memory returns once
// the data is staged. (vortex PR #6157, RustaCUDA #41, risc0 PR #3531.)
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak, cuda_lint::uninitialized_device_read))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{self as cu, CUdeviceptr, CUfunction, CUstream};
use cudarc::driver::{CudaContext, CudaFunction, CudaStream, DevicePtr, LaunchConfig, PushKernelArg};
use cudarc::runtime::sys::{self as rt, cudaMemcpyKind, cudaStream_t};

const N: usize = 1 << 20;
const BYTES: usize = N * 4;

unsafe fn driver_stream(flags: u32) -> CUstream {
    let mut s: CUstream = null_mut();
    unsafe { cu::cuStreamCreate(&mut s, flags) };
    s
}

unsafe fn driver_buffer() -> CUdeviceptr {
    let mut d: CUdeviceptr = 0;
    unsafe { cu::cuMemAlloc_v2(&mut d, BYTES) };
    d
}

// vortex #6157: a blocking readback raced the buffer's own (non-blocking) stream.
fn fires_blocking_readback_of_a_non_blocking_streams_memset(out: &mut [f32]) {
    unsafe {
        let s = driver_stream(1); // CU_STREAM_NON_BLOCKING
        let d = driver_buffer();
        cu::cuMemsetD32Async(d, 0, N, s);
        cu::cuMemcpyDtoH_v2(out.as_mut_ptr().cast(), d, BYTES);
        //~^ missing_sync
        cu::cuStreamSynchronize(s);
    }
}

// RustaCUDA #41: a blocking upload from pageable memory, then a kernel on a non-blocking
// stream: the upload returned once staged, and the stream does not wait for the legacy one.
fn fires_kernel_on_a_non_blocking_stream_after_a_pageable_upload(f: CUfunction) {
    unsafe {
        let s = driver_stream(1);
        let mut d = driver_buffer();
        let host = vec![1.0f32; N];
        cu::cuMemcpyHtoD_v2(d, host.as_ptr().cast(), BYTES);
        let mut params = [&mut d as *mut CUdeviceptr as *mut c_void];
        cu::cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, s, params.as_mut_ptr(), null_mut());
        //~^ missing_sync
        cu::cuStreamSynchronize(s);
    }
}

fn fires_cuda_memcpy_while_a_non_blocking_stream_writes(out: &mut [f32]) {
    unsafe {
        let mut s: cudaStream_t = null_mut();
        rt::cudaStreamCreateWithFlags(&mut s, 1); // cudaStreamNonBlocking
        let mut d: *mut c_void = null_mut();
        rt::cudaMalloc(&mut d, BYTES);
        rt::cudaMemsetAsync(d, 0, BYTES, s);
        rt::cudaMemcpy(out.as_mut_ptr().cast(), d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        //~^ missing_sync
        rt::cudaStreamSynchronize(s);
    }
}

fn fires_cudarc_sync_readback_of_a_slice_on_a_new_stream(ctx: &Arc<CudaContext>) -> Result<Vec<f32>, DriverError> {
    let stream = ctx.new_stream()?;
    let dev = stream.alloc_zeros::<f32>(N)?;
    let mut out = vec![0.0f32; N];
    let (ptr, _record) = dev.device_ptr(&stream);
    unsafe { result::memcpy_dtoh_sync(&mut out, ptr)? };
    //~^ missing_sync
    Ok(out)
}

fn ok_upload_then_a_launch_on_a_stream_given_as_a_parameter(
    stream: &Arc<CudaStream>,
    f: &CudaFunction,
    host: Vec<f32>,
) -> Result<(), DriverError> {
    let dev = unsafe { stream.alloc::<f32>(N)? };
    let (ptr, record) = dev.device_ptr(stream);
    unsafe { result::memcpy_htod_sync(ptr, &host)? };
    drop(record);
    let mut launch = stream.launch_builder(f);
    launch.arg(&dev);
    unsafe { launch.launch(LaunchConfig::for_num_elems(N as u32))? };
    // The stream is a parameter: whether it blocks is not known here, so nothing is said.
    stream.synchronize()
}

fn ok_blocking_readback_of_a_blocking_streams_memset(out: &mut [f32]) {
    unsafe {
        let s = driver_stream(0); // the legacy stream waits for it
        let d = driver_buffer();
        cu::cuMemsetD32Async(d, 0, N, s);
        cu::cuMemcpyDtoH_v2(out.as_mut_ptr().cast(), d, BYTES);
    }
}

fn ok_non_blocking_stream_synchronized_first(out: &mut [f32]) {
    unsafe {
        let s = driver_stream(1);
        let d = driver_buffer();
        cu::cuMemsetD32Async(d, 0, N, s);
        cu::cuStreamSynchronize(s);
        cu::cuMemcpyDtoH_v2(out.as_mut_ptr().cast(), d, BYTES);
    }
}

fn ok_async_readback_on_the_same_non_blocking_stream(out: &mut [f32]) {
    unsafe {
        let s = driver_stream(1);
        let d = driver_buffer();
        cu::cuMemsetD32Async(d, 0, N, s);
        cu::cuMemcpyDtoHAsync_v2(out.as_mut_ptr().cast(), d, BYTES, s);
        cu::cuStreamSynchronize(s);
    }
}

fn ok_kernel_on_a_blocking_stream_after_a_pageable_upload(f: CUfunction) {
    unsafe {
        let s = driver_stream(0);
        let mut d = driver_buffer();
        let host = vec![1.0f32; N];
        cu::cuMemcpyHtoD_v2(d, host.as_ptr().cast(), BYTES);
        let mut params = [&mut d as *mut CUdeviceptr as *mut c_void];
        cu::cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, s, params.as_mut_ptr(), null_mut());
        cu::cuStreamSynchronize(s);
    }
}

fn ok_pinned_upload_is_done_when_it_returns(f: CUfunction) {
    unsafe {
        let s = driver_stream(1);
        let mut d = driver_buffer();
        let mut h: *mut c_void = null_mut();
        cu::cuMemAllocHost_v2(&mut h, BYTES);
        cu::cuMemcpyHtoD_v2(d, h, BYTES);
        let mut params = [&mut d as *mut CUdeviceptr as *mut c_void];
        cu::cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, s, params.as_mut_ptr(), null_mut());
        cu::cuStreamSynchronize(s);
        cu::cuMemFreeHost(h);
    }
}

fn ok_cuda_memcpy_after_a_default_flags_stream(out: &mut [f32]) {
    unsafe {
        let mut s: cudaStream_t = null_mut();
        rt::cudaStreamCreateWithFlags(&mut s, 0); // cudaStreamDefault: blocking
        let mut d: *mut c_void = null_mut();
        rt::cudaMalloc(&mut d, BYTES);
        rt::cudaMemsetAsync(d, 0, BYTES, s);
        rt::cudaMemcpy(out.as_mut_ptr().cast(), d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
    }
}

fn ok_flags_not_known_here(flags: u32, out: &mut [f32]) {
    unsafe {
        let s = driver_stream(flags);
        let d = driver_buffer();
        cu::cuMemsetD32Async(d, 0, N, s);
        cu::cuMemcpyDtoH_v2(out.as_mut_ptr().cast(), d, BYTES);
    }
}

// Two handles of one per-thread default stream are one stream.
fn ok_two_handles_of_the_per_thread_stream(ctx: &Arc<CudaContext>) -> Result<(), DriverError> {
    let _other = ctx.new_stream()?;
    let a = ctx.per_thread_stream();
    let b = ctx.per_thread_stream();
    let mut dev = a.alloc_zeros::<f32>(N)?;
    let (ptr, _) = dev.device_ptr(&a);
    unsafe { result::memset_d8_async(ptr, 1, BYTES, a.cu_stream())? };
    let mut host = unsafe { ctx.alloc_pinned::<f32>(N)? };
    b.memcpy_dtoh(&dev, &mut host)?;
    b.synchronize()?;
    dev = b.alloc_zeros::<f32>(N)?;
    drop(dev);
    Ok(())
}

fn fires_per_thread_stream_and_a_new_stream_are_two(ctx: &Arc<CudaContext>) -> Result<(), DriverError> {
    let other = ctx.new_stream()?;
    let a = ctx.per_thread_stream();
    let dev = a.alloc_zeros::<f32>(N)?;
    let (ptr, _) = dev.device_ptr(&a);
    unsafe { result::memset_d8_async(ptr, 1, BYTES, a.cu_stream())? };
    let mut host = unsafe { ctx.alloc_pinned::<f32>(N)? };
    other.memcpy_dtoh(&dev, &mut host)?;
    //~^ missing_sync
    other.synchronize()?;
    a.synchronize()
}

/// The runtime layer's streams are non-blocking too (`Context::new_stream`).
fn fires_blocking_readback_of_a_runtime_layer_streams_memset(
    ctx: &cuda_lint_runtime::Context,
    out: &mut [f32],
) -> Result<(), cuda_lint_runtime::Error> {
    let stream = ctx.new_stream()?;
    let mut dev = ctx.alloc::<f32>(N)?;
    stream.memset_d32_async(&mut dev, 0)?;
    unsafe { cu::cuMemcpyDtoH_v2(out.as_mut_ptr().cast(), dev.device_ptr().as_raw(), BYTES) };
    //~^ missing_sync
    stream.synchronize()?;
    Ok(())
}

fn ok_blocking_readback_after_the_runtime_layer_stream_is_synchronized(
    ctx: &cuda_lint_runtime::Context,
    out: &mut [f32],
) -> Result<(), cuda_lint_runtime::Error> {
    let stream = ctx.new_stream()?;
    let mut dev = ctx.alloc::<f32>(N)?;
    stream.memset_d32_async(&mut dev, 0)?;
    stream.synchronize()?;
    unsafe { cu::cuMemcpyDtoH_v2(out.as_mut_ptr().cast(), dev.device_ptr().as_raw(), BYTES) };
    Ok(())
}

// An async readback on the legacy stream, then work on a blocking stream: that work starts
// after the readback, so synchronizing the blocking stream finishes both.
fn ok_legacy_readback_finished_by_a_blocking_streams_sync() -> f32 {
    unsafe {
        let s = driver_stream(0);
        let d = driver_buffer();
        let other = driver_buffer();
        let mut h: *mut c_void = null_mut();
        cu::cuMemAllocHost_v2(&mut h, BYTES);
        cu::cuMemcpyDtoHAsync_v2(h, d, BYTES, null_mut());
        cu::cuMemsetD32Async(other, 0, N, s);
        cu::cuStreamSynchronize(s);
        *(h as *const f32)
    }
}

// The same with a non-blocking stream: it does not wait for the legacy stream's readback.
fn fires_legacy_readback_not_finished_by_a_non_blocking_streams_sync() -> f32 {
    unsafe {
        let s = driver_stream(1);
        let d = driver_buffer();
        let other = driver_buffer();
        let mut h: *mut c_void = null_mut();
        cu::cuMemAllocHost_v2(&mut h, BYTES);
        cu::cuMemcpyDtoHAsync_v2(h, d, BYTES, null_mut());
        cu::cuMemsetD32Async(other, 0, N, s);
        cu::cuStreamSynchronize(s);
        *(h as *const f32)
        //~^ missing_sync
    }
}

fn main() {}
