//@no-rustfix
// Waiting on the wrong thing: the context (device) that did not run the copy, or an event
// recorded before the work it is meant to follow. Pinned memory filled through a plain slice
// (`as_mut_slice()?`) gets no cudarc event, so only such a wait would order the read.
#![cfg_attr(cuda_lint, allow(cuda_lint::write_combined_host_read))] // readbacks into cudarc's `alloc_pinned`: another lint's subject
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak, cuda_lint::uninitialized_device_read))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::result::DriverError;
use cudarc::driver::sys::{self as cu, CUdeviceptr, CUevent, CUstream};
use cudarc::driver::CudaContext;
use cudarc::runtime::sys::{self as rt, cudaMemcpyKind};

const N: usize = 1 << 20;
const BYTES: usize = N * 4;

unsafe fn stream() -> CUstream {
    let mut s: CUstream = null_mut();
    unsafe { cu::cuStreamCreate(&mut s, 1) };
    s
}

unsafe fn event() -> CUevent {
    let mut e: CUevent = null_mut();
    unsafe { cu::cuEventCreate(&mut e, 0) };
    e
}

fn fires_waited_for_the_other_device() -> Result<f32, DriverError> {
    let gpu0 = CudaContext::new(0)?;
    let gpu1 = CudaContext::new(1)?;
    let s0 = gpu0.new_stream()?;
    let dev = s0.alloc_zeros::<f32>(N)?;
    let mut host = unsafe { gpu0.alloc_pinned::<f32>(N)? };
    s0.memcpy_dtoh(&dev, host.as_mut_slice()?)?;
    gpu1.synchronize()?;
    Ok(host.as_slice()?[0])
    //~^ missing_sync
}

fn fires_staging_buffer_refilled_after_waiting_for_the_other_device() -> Result<(), DriverError> {
    let gpu0 = CudaContext::new(0)?;
    let gpu1 = CudaContext::new(1)?;
    let s0 = gpu0.new_stream()?;
    let mut dev = s0.alloc_zeros::<f32>(N)?;
    let mut staging = unsafe { gpu0.alloc_pinned::<f32>(N)? };
    s0.memcpy_htod(staging.as_slice()?, &mut dev)?;
    gpu1.synchronize()?;
    staging.as_mut_slice()?.fill(1.0);
    //~^ missing_sync
    Ok(())
}

fn fires_driver_event_recorded_before_the_copy() -> f32 {
    unsafe {
        let s = stream();
        let done = event();
        let mut d: CUdeviceptr = 0;
        cu::cuMemAlloc_v2(&mut d, BYTES);
        let mut h: *mut c_void = null_mut();
        cu::cuMemAllocHost_v2(&mut h, BYTES);
        cu::cuEventRecord(done, s);
        cu::cuMemcpyDtoHAsync_v2(h, d, BYTES, s);
        cu::cuEventSynchronize(done);
        *(h as *const f32)
        //~^ missing_sync
    }
}

fn fires_runtime_event_recorded_before_the_copy() -> f32 {
    unsafe {
        let mut s: rt::cudaStream_t = null_mut();
        rt::cudaStreamCreate(&mut s);
        let mut done: rt::cudaEvent_t = null_mut();
        rt::cudaEventCreate(&mut done);
        let mut d: *mut c_void = null_mut();
        rt::cudaMalloc(&mut d, BYTES);
        let mut h: *mut c_void = null_mut();
        rt::cudaMallocHost(&mut h, BYTES);
        rt::cudaEventRecord(done, s);
        rt::cudaMemcpyAsync(h, d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost, s);
        rt::cudaEventSynchronize(done);
        *(h as *const f32)
        //~^ missing_sync
    }
}

fn fires_cudarc_event_recorded_before_the_copy() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let s = ctx.new_stream()?;
    let dev = s.alloc_zeros::<f32>(N)?;
    let mut host = unsafe { ctx.alloc_pinned::<f32>(N)? };
    let done = s.record_event(None)?;
    s.memcpy_dtoh(&dev, host.as_mut_slice()?)?;
    done.synchronize()?;
    Ok(host.as_slice()?[0])
    //~^ missing_sync
}

fn ok_waited_for_the_device_that_copied() -> Result<f32, DriverError> {
    let gpu0 = CudaContext::new(0)?;
    let _gpu1 = CudaContext::new(1)?;
    let s0 = gpu0.new_stream()?;
    let dev = s0.alloc_zeros::<f32>(N)?;
    let mut host = unsafe { gpu0.alloc_pinned::<f32>(N)? };
    s0.memcpy_dtoh(&dev, host.as_mut_slice()?)?;
    gpu0.synchronize()?;
    Ok(host.as_slice()?[0])
}

fn ok_staging_buffer_refilled_after_each_device_finished() -> Result<(), DriverError> {
    let gpu0 = CudaContext::new(0)?;
    let gpu1 = CudaContext::new(1)?;
    let s0 = gpu0.new_stream()?;
    let mut dev = s0.alloc_zeros::<f32>(N)?;
    let mut staging = unsafe { gpu0.alloc_pinned::<f32>(N)? };
    s0.memcpy_htod(staging.as_slice()?, &mut dev)?;
    gpu1.synchronize()?;
    gpu0.synchronize()?;
    staging.as_mut_slice()?.fill(1.0);
    Ok(())
}

fn ok_driver_event_recorded_after_the_copy() -> f32 {
    unsafe {
        let s = stream();
        let done = event();
        let mut d: CUdeviceptr = 0;
        cu::cuMemAlloc_v2(&mut d, BYTES);
        let mut h: *mut c_void = null_mut();
        cu::cuMemAllocHost_v2(&mut h, BYTES);
        cu::cuMemcpyDtoHAsync_v2(h, d, BYTES, s);
        cu::cuEventRecord(done, s);
        cu::cuEventSynchronize(done);
        *(h as *const f32)
    }
}

fn ok_runtime_event_recorded_after_the_copy() -> f32 {
    unsafe {
        let mut s: rt::cudaStream_t = null_mut();
        rt::cudaStreamCreate(&mut s);
        let mut done: rt::cudaEvent_t = null_mut();
        rt::cudaEventCreate(&mut done);
        let mut d: *mut c_void = null_mut();
        rt::cudaMalloc(&mut d, BYTES);
        let mut h: *mut c_void = null_mut();
        rt::cudaMallocHost(&mut h, BYTES);
        rt::cudaMemcpyAsync(h, d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost, s);
        rt::cudaEventRecord(done, s);
        rt::cudaEventSynchronize(done);
        *(h as *const f32)
    }
}

fn ok_cudarc_event_recorded_after_the_copy() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let s = ctx.new_stream()?;
    let dev = s.alloc_zeros::<f32>(N)?;
    let mut host = unsafe { ctx.alloc_pinned::<f32>(N)? };
    s.memcpy_dtoh(&dev, host.as_mut_slice()?)?;
    let done = s.record_event(None)?;
    done.synchronize()?;
    Ok(host.as_slice()?[0])
}

fn main() {}
