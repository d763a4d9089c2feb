//@no-rustfix
// Fixes are checked in fixes.rs.
// Waits that are not a call to synchronize: polling a query (`cuEventQuery`, `cuStreamQuery`,
// `cudaEventQuery`, `CudaEvent::is_complete`, the runtime layer's `query`) until the work is
// done, and a wrapper whose `Drop` synchronizes before it frees. A query is taken as a wait.
#![cfg_attr(cuda_lint, allow(cuda_lint::write_combined_host_read))] // readbacks into cudarc's `alloc_pinned`: another lint's subject
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak, cuda_lint::uninitialized_device_read))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::c_void;
use std::ptr::null_mut;

use cuda_lint_runtime::{Context, DeviceBuffer, Error, Stream};
use cudarc::driver::sys::{self as drv, CUdeviceptr, CUevent, CUresult, CUstream};
use cudarc::driver::{CudaContext, DriverError};
use cudarc::runtime::sys::{self as rt, cudaError, cudaMemcpyKind};

const N: usize = 1024;

/// A user's pinned buffer over the raw driver API.
struct Pinned {
    ptr: *mut f32,
    len: usize,
}

impl Pinned {
    fn new(len: usize) -> Pinned {
        let mut p: *mut c_void = null_mut();
        unsafe { drv::cuMemAllocHost_v2(&mut p, len * 4) };
        Pinned { ptr: p as *mut f32, len }
    }

    fn as_slice(&self) -> &[f32] {
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        unsafe {
            drv::cuCtxSynchronize();
            drv::cuMemFreeHost(self.ptr.cast());
        }
    }
}

fn fires_read_before_the_event_is_polled(dev: CUdeviceptr, s: CUstream, ev: CUevent) -> f32 {
    let h = Pinned::new(N);
    unsafe { drv::cuMemcpyDtoHAsync_v2(h.ptr.cast(), dev, N * 4, s) };
    unsafe { drv::cuEventRecord(ev, s) };
    let first = h.as_slice()[0];
    //~^ missing_sync
    while unsafe { drv::cuEventQuery(ev) } != CUresult::CUDA_SUCCESS {}
    first
}

fn fires_event_recorded_before_the_copy(dev: CUdeviceptr, s: CUstream, ev: CUevent) -> f32 {
    let h = Pinned::new(N);
    unsafe { drv::cuEventRecord(ev, s) };
    unsafe { drv::cuMemcpyDtoHAsync_v2(h.ptr.cast(), dev, N * 4, s) };
    while unsafe { drv::cuEventQuery(ev) } != CUresult::CUDA_SUCCESS {}
    h.as_slice()[0]
    //~^ missing_sync
}

fn fires_polling_another_event(dev: CUdeviceptr, s: CUstream, done: CUevent, other: CUevent) -> f32 {
    let h = Pinned::new(N);
    unsafe { drv::cuMemcpyDtoHAsync_v2(h.ptr.cast(), dev, N * 4, s) };
    unsafe { drv::cuEventRecord(done, s) };
    while unsafe { drv::cuEventQuery(other) } != CUresult::CUDA_SUCCESS {}
    h.as_slice()[0]
    //~^ missing_sync
}

fn fires_cudarc_checked_before_recording() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let dev = stream.alloc_zeros::<f32>(N)?;
    let mut host = unsafe { ctx.alloc_pinned::<f32>(N)? };
    let before = stream.record_event(None)?;
    stream.memcpy_dtoh(&dev, &mut host)?;
    while !before.is_complete() {}
    let first = host.as_slice()?[0];
    //~^ missing_sync
    Ok(first)
}

fn ok_driver_event_polled(dev: CUdeviceptr, s: CUstream, ev: CUevent) -> f32 {
    let h = Pinned::new(N);
    unsafe { drv::cuMemcpyDtoHAsync_v2(h.ptr.cast(), dev, N * 4, s) };
    unsafe { drv::cuEventRecord(ev, s) };
    while unsafe { drv::cuEventQuery(ev) } != CUresult::CUDA_SUCCESS {}
    h.as_slice()[0]
}

fn ok_driver_stream_polled(dev: CUdeviceptr) -> f32 {
    let mut s: CUstream = null_mut();
    unsafe { drv::cuStreamCreate(&mut s, 0) };
    let h = Pinned::new(N);
    unsafe { drv::cuMemcpyDtoHAsync_v2(h.ptr.cast(), dev, N * 4, s) };
    loop {
        if unsafe { drv::cuStreamQuery(s) } == CUresult::CUDA_SUCCESS {
            break;
        }
        std::thread::yield_now();
    }
    h.as_slice()[0]
}

fn ok_runtime_api_event_polled() -> f32 {
    unsafe {
        let mut s: rt::cudaStream_t = null_mut();
        rt::cudaStreamCreate(&mut s);
        let mut ev: rt::cudaEvent_t = null_mut();
        rt::cudaEventCreate(&mut ev);
        let mut d: *mut c_void = null_mut();
        rt::cudaMalloc(&mut d, N * 4);
        let mut h: *mut c_void = null_mut();
        rt::cudaMallocHost(&mut h, N * 4);
        rt::cudaMemcpyAsync(h, d, N * 4, cudaMemcpyKind::cudaMemcpyDeviceToHost, s);
        rt::cudaEventRecord(ev, s);
        while rt::cudaEventQuery(ev) == cudaError::cudaErrorNotReady {}
        *(h as *const f32)
    }
}

fn ok_runtime_api_stream_polled() -> f32 {
    unsafe {
        let mut s: rt::cudaStream_t = null_mut();
        rt::cudaStreamCreate(&mut s);
        let mut d: *mut c_void = null_mut();
        rt::cudaMalloc(&mut d, N * 4);
        let mut h: *mut c_void = null_mut();
        rt::cudaMallocHost(&mut h, N * 4);
        rt::cudaMemcpyAsync(h, d, N * 4, cudaMemcpyKind::cudaMemcpyDeviceToHost, s);
        while rt::cudaStreamQuery(s) != cudaError::cudaSuccess {}
        *(h as *const f32)
    }
}

fn ok_cudarc_event_polled() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let dev = stream.alloc_zeros::<f32>(N)?;
    let mut host = unsafe { ctx.alloc_pinned::<f32>(N)? };
    stream.memcpy_dtoh(&dev, &mut host)?;
    let done = stream.record_event(None)?;
    while !done.try_is_complete()? {
        std::thread::yield_now();
    }
    Ok(host.as_slice()?[0])
}

fn ok_runtime_layer_stream_polled(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    while !s.query()? {}
    Ok(host[0])
}

fn ok_wrapper_drop_synchronizes_before_freeing(dev: CUdeviceptr, s: CUstream) {
    let h = Pinned::new(N);
    unsafe { drv::cuMemcpyDtoHAsync_v2(h.ptr.cast(), dev, N * 4, s) };
    drop(h);
}

fn main() {}
