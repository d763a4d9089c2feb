//! `relies_on_implicit_sync` through cudarc 0.19 (this file: the driver_ffi family; the three files were one, written by helper 64 from the definition, and split by API):
//! `cudarc::driver::result`, `cudarc::runtime::sys` and the crate's own `extern "C"` block.
//!
//! The `fires_*` cases cover the lint's three situations: a free that is not documented to
//! wait (`cuMemFree_v2`, `cuMemFreeHost`, `result::free_sync`, `result::free_host`, the
//! runtime's and the crate's own `cudaFree`) of memory a kernel or an asynchronous copy
//! enqueued before may still use, through a helper, a `Drop` impl, a loop, a non-blocking
//! stream, the null stream and a wait on one branch only; an access ordered after such work
//! only by a free of *other* memory (a host read of managed or pinned memory, a host write of a
//! pinned upload source, a launch on another stream, a stream-ordered free on another stream);
//! and the pageable destination (a `Vec`, an array) of an asynchronous device-to-host copy used
//! before its stream is waited for. The `ok_*` cases are the near misses: stream, event and
//! context synchronization, a query polled until the stream is done, a blocking copy back after
//! work on the null stream, `cuMemFreeAsync` on the work's stream, `cuStreamWaitEvent`, frees of
//! memory no pending work uses, blocking copies into a `Vec`, memory from a parameter freed
//! with no work visible, and cudarc's safe API (a `CudaSlice` dropped right after a launch is
//! freed in stream order; its copies into a `Vec` synchronize).
//!
//! Raw calls between an allocation and its free are not `?`-checked (their status is kept and
//! returned at the end), so that no early return leaks the memory.
#![allow(unused, dead_code)]

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::result;
use cudarc::driver::sys::{self, CUdeviceptr, CUevent, CUfunction, CUstream};
use cudarc::driver::{CudaContext, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::result::RuntimeError;
use cudarc::runtime::sys as rt;

const N: usize = 1 << 20;
const BYTES: usize = N * std::mem::size_of::<f32>();
/// 16 KiB of `f32`: under `pageable_async_copy`'s size threshold.
const SMALL: usize = 4096;
const SMALL_BYTES: usize = SMALL * std::mem::size_of::<f32>();
const BLOCK: u32 = 256;
const GRID: u32 = (N as u32 + BLOCK - 1) / BLOCK;

/// `cudaMemcpyKind` values for the crate's own binding.
const HOST_TO_DEVICE: i32 = 1;
const DEVICE_TO_HOST: i32 = 2;

/// The kernels, compiled with NVRTC: `scale` reads `in` and writes `out`; `accumulate` reads
/// `in` and reads and writes `out`.
const KERNELS: &str = r#"
extern "C" __global__ void scale(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = 2.0f * in[i];
    }
}

extern "C" __global__ void accumulate(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] += in[i];
    }
}
"#;

// The crate's own bindings of the runtime API.
unsafe extern "C" {
    fn cudaMalloc(dev_ptr: *mut *mut c_void, size: usize) -> i32;
    fn cudaFree(dev_ptr: *mut c_void) -> i32;
    fn cudaMemcpy(dst: *mut c_void, src: *const c_void, count: usize, kind: i32) -> i32;
    fn cudaStreamSynchronize(stream: *mut c_void) -> i32;
    fn cudaDeviceSynchronize() -> i32;
}

/// Device memory from `cuMemAlloc`, freed with `cuMemFree` when dropped.
struct DeviceBuffer {
    ptr: CUdeviceptr,
}

impl DeviceBuffer {
    fn new(bytes: usize) -> Result<Self, DriverError> {
        let mut ptr: CUdeviceptr = 0;
        unsafe { sys::cuMemAlloc_v2(&mut ptr, bytes).result()? };
        Ok(Self { ptr })
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        unsafe {
            sys::cuMemFree_v2(self.ptr);
        }
    }
}

/// Releases device memory; the launchers below free their temporaries through it.
unsafe fn release(d: CUdeviceptr) {
    unsafe {
        sys::cuMemFree_v2(d);
    }
}

// ---------------------------------------------------------------------------------------------
// (1) A free that is not documented to wait, while work may still use the memory.
// ---------------------------------------------------------------------------------------------

/// `cuMemFreeHost` of the pinned source of an upload still in flight.
fn fires_cu_mem_free_host_while_upload_reads(stream: CUstream) -> Result<(), DriverError> {
    unsafe {
        let mut h_stage: *mut c_void = null_mut();
        sys::cuMemAllocHost_v2(&mut h_stage, BYTES).result()?;
        std::slice::from_raw_parts_mut(h_stage as *mut f32, N).fill(2.0);
        let mut d_dst: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_dst, BYTES);
        let copied = sys::cuMemcpyHtoDAsync_v2(d_dst, h_stage, BYTES, stream);
        sys::cuMemFreeHost(h_stage);
        //~^ relies_on_implicit_sync
        sys::cuStreamSynchronize(stream);
        let mut h_check = vec![0.0f32; N];
        sys::cuMemcpyDtoH_v2(h_check.as_mut_ptr() as *mut c_void, d_dst, BYTES);
        sys::cuMemFree_v2(d_dst);
        copied.result()
    }
}

// ---------------------------------------------------------------------------------------------
// (2) An access ordered only by a free of other memory.
// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// (3) The pageable destination of an asynchronous copy used before a wait.
// ---------------------------------------------------------------------------------------------

/// `cuMemcpyDtoHAsync_v2` into a `Vec`, read before the stream is waited for.
fn fires_sys_dtoh_async_into_vec_read_before_sync(stream: CUstream) -> Result<f32, DriverError> {
    let mut h = vec![0.0f32; N];
    unsafe {
        let mut d_src: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_src, BYTES).result()?;
        sys::cuMemsetD32_v2(d_src, 0x3f80_0000, N);
        let copied = sys::cuMemcpyDtoHAsync_v2(h.as_mut_ptr() as *mut c_void, d_src, BYTES, stream);
        //~^ pageable_async_copy
        let first = h[0];
        //~^ relies_on_implicit_sync
        sys::cuStreamSynchronize(stream);
        sys::cuMemFree_v2(d_src);
        copied.result().map(|()| first)
    }
}

/// A small array (1 KiB: under `pageable_async_copy`'s threshold) read before the wait.
fn fires_array_dtoh_async_read_before_sync(stream: CUstream) -> Result<f32, DriverError> {
    let mut h = [0.0f32; 256];
    unsafe {
        let mut d_stats: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_stats, 1024).result()?;
        sys::cuMemsetD32_v2(d_stats, 0x4080_0000, 256);
        let copied = sys::cuMemcpyDtoHAsync_v2(h.as_mut_ptr() as *mut c_void, d_stats, 1024, stream);
        let first = h[0];
        //~^ relies_on_implicit_sync
        sys::cuStreamSynchronize(stream);
        sys::cuMemFree_v2(d_stats);
        copied.result().map(|()| first)
    }
}

/// The stream is waited for only when verbose: on the other path the read relies on the copy
/// into pageable memory being synchronous.
fn fires_pageable_readback_waited_on_one_path(stream: CUstream, d_src: CUdeviceptr, verbose: bool) -> Result<f32, DriverError> {
    let mut h = vec![0.0f32; N];
    unsafe {
        sys::cuMemcpyDtoHAsync_v2(h.as_mut_ptr() as *mut c_void, d_src, BYTES, stream).result()?;
        //~^ pageable_async_copy
        if verbose {
            sys::cuStreamSynchronize(stream).result()?;
        }
    }
    let last = h[N - 1];
    //~^ relies_on_implicit_sync
    Ok(last)
}

// ---------------------------------------------------------------------------------------------
// Near misses: nothing of this lint fires.
// ---------------------------------------------------------------------------------------------

/// A small `Vec` (16 KiB) as the destination, read after `cuStreamSynchronize`.
fn ok_small_vec_readback_read_after_stream_sync(stream: CUstream) -> Result<f32, DriverError> {
    let mut h = vec![0.0f32; SMALL];
    unsafe {
        let mut d_src: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_src, SMALL_BYTES).result()?;
        sys::cuMemsetD32_v2(d_src, 0x3f80_0000, SMALL);
        let copied = sys::cuMemcpyDtoHAsync_v2(h.as_mut_ptr() as *mut c_void, d_src, SMALL_BYTES, stream);
        sys::cuStreamSynchronize(stream);
        let total: f32 = h.iter().sum();
        sys::cuMemFree_v2(d_src);
        copied.result().map(|()| total)
    }
}

/// Memory from a parameter, freed in a function no one calls, with no work visible.
fn ok_free_parameter_without_visible_work(d_buf: CUdeviceptr) -> Result<(), DriverError> {
    unsafe { sys::cuMemFree_v2(d_buf).result() }
}

/// A download into a `Vec`'s spare capacity, its length set at once (`set_len` touches no
/// element), read only after the stream is synchronized (written for this lint's fixes).
fn ok_set_len_then_read_after_the_wait(d: CUdeviceptr, stream: CUstream) -> Result<f32, DriverError> {
    let mut v: Vec<f32> = Vec::with_capacity(SMALL);
    unsafe {
        sys::cuMemcpyDtoHAsync_v2(v.as_mut_ptr().cast(), d, SMALL_BYTES, stream).result()?;
        v.set_len(SMALL);
        sys::cuStreamSynchronize(stream).result()?;
    }
    Ok(v[0])
}

/// A `Vec` of the crate's RAII buffers ends with the function: each `Drop` runs `cuMemFree_v2`
/// while the copy between the two buffers may still run (written for this lint's fixes).
fn fires_vec_of_raii_buffers_dropped_at_the_end(stream: CUstream) -> Result<(), DriverError> {
    let mut bufs: Vec<DeviceBuffer> = Vec::new();
    bufs.push(DeviceBuffer::new(BYTES)?);
    bufs.push(DeviceBuffer::new(BYTES)?);
    unsafe {
        sys::cuMemsetD32_v2(bufs[0].ptr, 0, N);
        sys::cuMemcpyDtoDAsync_v2(bufs[1].ptr, bufs[0].ptr, BYTES, stream).result()?;
    }
    Ok(())
}
//~^ relies_on_implicit_sync

/// The same `Vec` of buffers, dropped after the stream is synchronized.
fn ok_vec_of_raii_buffers_dropped_after_the_wait(stream: CUstream) -> Result<(), DriverError> {
    let mut bufs: Vec<DeviceBuffer> = Vec::new();
    bufs.push(DeviceBuffer::new(BYTES)?);
    bufs.push(DeviceBuffer::new(BYTES)?);
    unsafe {
        sys::cuMemsetD32_v2(bufs[0].ptr, 0, N);
        sys::cuMemcpyDtoDAsync_v2(bufs[1].ptr, bufs[0].ptr, BYTES, stream).result()?;
        sys::cuStreamSynchronize(stream).result()?;
    }
    Ok(())
}

fn main() {}
