// The false positives lintcheck found, each reduced to a function in the style of
// `ui-tests/ui/<lint>/*.rs`. Every `ok_` function is correct code that cuda-lint reports
// (at lint commit 8ef3ef2); false_positives.md explains each one.
//
// `bash lintcheck/run.sh repro` checks this file with cuda-lint in a scratch crate
// (target/lintcheck/repro, cudarc 0.19.10 with std, driver, nvrtc, cublas, dynamic-loading,
// cuda-13000) and prints what it reports.
#![allow(dead_code, unused_variables, clippy::all)]

use std::borrow::Cow;
use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr, DriverError};

const N: usize = 1 << 20;

// FP-1 (host_deref_device_ptr): a device pointer handed to a CUDA library's C function.
mod cublas_ffi {
    unsafe extern "C" {
        pub fn cublasSasum_v2(handle: *mut std::ffi::c_void, n: i32, x: *const f32, incx: i32, result: *mut f32) -> u32;
    }
}

fn ok_device_pointer_passed_to_cublas(handle: *mut c_void) -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let x = stream.alloc_zeros::<f32>(N)?;
    let mut sum = 0.0f32;
    let (ptr, _record) = x.device_ptr(&stream);
    // cuBLAS reads `x` on the device; `sum` is host memory (host pointer mode).
    unsafe { cublas_ffi::cublasSasum_v2(handle, N as i32, ptr as *const f32, 1, &mut sum) };
    stream.synchronize()?;
    Ok(sum)
}

fn ok_device_pointer_passed_to_cudarc_cublas_result(
    handle: cudarc::cublas::sys::cublasHandle_t,
) -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let x = stream.alloc_zeros::<f32>(N)?;
    let mut sum = 0.0f32;
    let (ptr, _record) = x.device_ptr(&stream);
    unsafe { cudarc::cublas::result::sasum(handle, N as i32, ptr as *const f32, 1, &mut sum).unwrap() };
    stream.synchronize()?;
    Ok(sum)
}

// FP-2 (host_deref_device_ptr): a device address stored by a function of another crate.
fn ok_device_address_kept_in_a_non_null() -> Option<std::ptr::NonNull<f32>> {
    let mut d: CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d, 4 * N) };
    std::ptr::NonNull::new(d as *mut f32)
}

// FP-3 (host_deref_device_ptr): a raw pointer to the handle, not to the memory it owns.
fn ok_drop_a_slice_handle_in_place() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let dev = stream.alloc_zeros::<f32>(N)?;
    let mut keep = std::mem::ManuallyDrop::new(dev);
    // Drops the handle (frees the memory in stream order, as `drop(dev)` would).
    unsafe { std::ptr::drop_in_place(&mut *keep as *mut CudaSlice<f32>) };
    Ok(())
}

// FP-4 (host_deref_device_ptr): the host iterates over its own array of device handles.
fn ok_iterate_over_device_handles() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let parts = [stream.alloc_zeros::<f32>(2)?, stream.alloc_zeros::<f32>(2)?];
    let mut whole = stream.alloc_zeros::<f32>(4)?;
    let mut offset = 0;
    for part in parts.iter() {
        let mut dst = whole.slice_mut(offset..offset + part.len());
        stream.memcpy_dtod(part, &mut dst)?;
        offset += part.len();
    }
    stream.synchronize()
}

// FP-5 (missing_sync): a device-to-host copy into pageable memory returns once it has
// completed, so the stream's earlier work has completed too.
fn ok_pinned_read_after_a_pageable_readback_on_the_same_stream() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let dev = stream.alloc_zeros::<f32>(N)?;
    let mut host = unsafe { ctx.alloc_pinned::<f32>(N)? };
    stream.memcpy_dtoh(&dev, &mut host)?;
    // Pageable (and reported as such, rightly): returns only when done, after the copy above.
    let check: Vec<f32> = stream.clone_dtoh(&dev.slice(0..4))?;
    Ok(host.as_slice()?[0] + check[0])
}

// FP-6 (missing_sync): a copy between two contexts waits for the source's stream.
fn ok_peer_copy_waits_for_the_source_stream() -> Result<(), DriverError> {
    let ctx0 = CudaContext::new(0)?;
    let ctx1 = CudaContext::new(1)?;
    let s0 = ctx0.default_stream();
    let s1 = ctx1.default_stream();
    let a = s0.alloc_zeros::<f32>(N)?;
    // cudarc records an event on `s0` and makes `s1` wait on it before `cuMemcpyPeerAsync`.
    let b = s1.clone_dtod(&a)?;
    s1.synchronize()?;
    Ok(())
}

// FP-7 (missing_sync): two context handles of one device share its primary context's NULL stream.
fn ok_two_context_handles_share_the_null_stream() -> Result<(), DriverError> {
    let ctx1 = CudaContext::new(0)?;
    let ctx2 = CudaContext::new(0)?;
    let s1 = ctx1.default_stream();
    let s2 = ctx2.default_stream();
    let a = s1.alloc_zeros::<f32>(N)?;
    // `s1` and `s2` are the same CUstream (NULL) of the same CUcontext: in stream order.
    let b = s2.clone_dtod(&a)?;
    s2.synchronize()?;
    Ok(())
}

// FP-8 (pageable_async_copy): pinned data behind a smart pointer kept in a `Vec`.
fn ok_pinned_chunks_behind_cows_in_a_vec() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let pinned = unsafe { ctx.alloc_pinned::<f32>(N)? };
    let chunks: Vec<Cow<'_, [f32]>> = vec![Cow::Borrowed(pinned.as_slice()?)];
    let mut dev = stream.alloc_zeros::<f32>(N)?;
    for chunk in &chunks {
        // The data is the pinned buffer, not the `Vec`'s storage of the `Cow`s.
        stream.memcpy_htod(&**chunk, &mut dev)?;
    }
    stream.synchronize()
}

// R-1 (reporting): an event reached through a helper is reported a second time, at the header
// of the `#[test]` function, by the test harness's call of it (with `--tests`). The copy itself
// is a true pageable copy; the second report is the defect.
fn upload(stream: &Arc<CudaStream>, host: &[f32], dev: &mut CudaSlice<f32>) -> Result<(), DriverError> {
    stream.memcpy_htod(host, dev)
}

#[test]
fn test_upload_through_a_helper() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let mut dev = stream.alloc_zeros::<f32>(4)?;
    let host = [1.0f32; 4];
    upload(&stream, &host, &mut dev)?;
    stream.synchronize()
}

fn main() {}
