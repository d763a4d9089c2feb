//! `relies_on_implicit_sync` through cudarc 0.19 (this file: the runtime_api family; the three files were one, written by helper 64 from the definition, and split by API):
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

/// `runtime::sys`: `cudaFree` of the source of an asynchronous read-back into pinned memory.
fn fires_runtime_cuda_free_while_readback_reads(stream: rt::cudaStream_t) -> Result<f32, RuntimeError> {
    let h_src = vec![1.0f32; N];
    unsafe {
        let mut h_pinned: *mut c_void = null_mut();
        rt::cudaMallocHost(&mut h_pinned, BYTES).result()?;
        let mut d_buf: *mut c_void = null_mut();
        rt::cudaMalloc(&mut d_buf, BYTES);
        rt::cudaMemcpy(d_buf, h_src.as_ptr() as *const c_void, BYTES, rt::cudaMemcpyKind::cudaMemcpyHostToDevice);
        let copied = rt::cudaMemcpyAsync(h_pinned, d_buf, BYTES, rt::cudaMemcpyKind::cudaMemcpyDeviceToHost, stream);
        rt::cudaFree(d_buf);
        //~^ relies_on_implicit_sync
        rt::cudaStreamSynchronize(stream);
        let first = *(h_pinned as *const f32);
        rt::cudaFreeHost(h_pinned);
        copied.result().map(|()| first)
    }
}

// ---------------------------------------------------------------------------------------------
// (2) An access ordered only by a free of other memory.
// ---------------------------------------------------------------------------------------------

/// `runtime::sys`: the pinned source of an upload is rewritten by the host after `cudaFree` of
/// a retired buffer.
fn fires_runtime_pinned_source_rewritten_after_cuda_free(stream: rt::cudaStream_t, d_retired: *mut c_void) -> Result<(), RuntimeError> {
    unsafe {
        let mut h_stage: *mut c_void = null_mut();
        rt::cudaMallocHost(&mut h_stage, BYTES).result()?;
        std::slice::from_raw_parts_mut(h_stage as *mut f32, N).fill(1.0);
        let mut d_dst: *mut c_void = null_mut();
        rt::cudaMalloc(&mut d_dst, BYTES);
        let copied = rt::cudaMemcpyAsync(d_dst, h_stage, BYTES, rt::cudaMemcpyKind::cudaMemcpyHostToDevice, stream);
        rt::cudaFree(d_retired);
        *(h_stage as *mut f32) = 5.0;
        //~^ relies_on_implicit_sync
        rt::cudaStreamSynchronize(stream);
        let mut h_check = vec![0.0f32; N];
        rt::cudaMemcpy(h_check.as_mut_ptr() as *mut c_void, d_dst, BYTES, rt::cudaMemcpyKind::cudaMemcpyDeviceToHost);
        rt::cudaFree(d_dst);
        rt::cudaFreeHost(h_stage);
        copied.result()
    }
}

// ---------------------------------------------------------------------------------------------
// (3) The pageable destination of an asynchronous copy used before a wait.
// ---------------------------------------------------------------------------------------------

/// `runtime::sys::cudaMemcpyAsync` into a `Vec`, written by the host before the wait.
fn fires_runtime_memcpy_async_into_vec_written_before_sync(stream: rt::cudaStream_t) -> Result<(), RuntimeError> {
    let h_src = vec![1.0f32; N];
    let mut h = vec![0.0f32; N];
    unsafe {
        let mut d_buf: *mut c_void = null_mut();
        rt::cudaMalloc(&mut d_buf, BYTES).result()?;
        rt::cudaMemcpy(d_buf, h_src.as_ptr() as *const c_void, BYTES, rt::cudaMemcpyKind::cudaMemcpyHostToDevice);
        let copied = rt::cudaMemcpyAsync(h.as_mut_ptr() as *mut c_void, d_buf, BYTES, rt::cudaMemcpyKind::cudaMemcpyDeviceToHost, stream);
        //~^ pageable_async_copy
        h[0] = -1.0;
        //~^ relies_on_implicit_sync
        rt::cudaStreamSynchronize(stream);
        rt::cudaFree(d_buf);
        copied.result()
    }
}

// ---------------------------------------------------------------------------------------------
// Near misses: nothing of this lint fires.
// ---------------------------------------------------------------------------------------------

/// `runtime::sys`: `cudaStreamSynchronize` before `cudaFree` of the read-back's source.
fn ok_runtime_stream_sync_before_cuda_free(stream: rt::cudaStream_t) -> Result<f32, RuntimeError> {
    let h_src = vec![1.0f32; N];
    unsafe {
        let mut h_pinned: *mut c_void = null_mut();
        rt::cudaMallocHost(&mut h_pinned, BYTES).result()?;
        let mut d_buf: *mut c_void = null_mut();
        rt::cudaMalloc(&mut d_buf, BYTES);
        rt::cudaMemcpy(d_buf, h_src.as_ptr() as *const c_void, BYTES, rt::cudaMemcpyKind::cudaMemcpyHostToDevice);
        let copied = rt::cudaMemcpyAsync(h_pinned, d_buf, BYTES, rt::cudaMemcpyKind::cudaMemcpyDeviceToHost, stream);
        rt::cudaStreamSynchronize(stream);
        rt::cudaFree(d_buf);
        let first = *(h_pinned as *const f32);
        rt::cudaFreeHost(h_pinned);
        copied.result().map(|()| first)
    }
}

/// `runtime::sys`: the `Vec` destination of `cudaMemcpyAsync` is read after
/// `cudaStreamSynchronize` (written for the family split).
fn ok_runtime_vec_read_after_stream_sync(stream: rt::cudaStream_t) -> Result<f32, RuntimeError> {
    let h_src = vec![1.0f32; SMALL];
    let mut h = vec![0.0f32; SMALL];
    unsafe {
        let mut d_buf: *mut c_void = null_mut();
        rt::cudaMalloc(&mut d_buf, SMALL_BYTES).result()?;
        rt::cudaMemcpy(d_buf, h_src.as_ptr() as *const c_void, SMALL_BYTES, rt::cudaMemcpyKind::cudaMemcpyHostToDevice);
        let copied = rt::cudaMemcpyAsync(h.as_mut_ptr() as *mut c_void, d_buf, SMALL_BYTES, rt::cudaMemcpyKind::cudaMemcpyDeviceToHost, stream);
        rt::cudaStreamSynchronize(stream);
        let first = h[0];
        rt::cudaFree(d_buf);
        copied.result().map(|()| first)
    }
}

/// `runtime::sys`: `cudaFreeAsync` on the stream the read-back runs on frees in its order
/// (written for the family split).
fn ok_runtime_free_async_on_the_copy_stream(stream: rt::cudaStream_t) -> Result<f32, RuntimeError> {
    let h_src = vec![1.0f32; N];
    unsafe {
        let mut h_pinned: *mut c_void = null_mut();
        rt::cudaMallocHost(&mut h_pinned, BYTES).result()?;
        let mut d_buf: *mut c_void = null_mut();
        rt::cudaMalloc(&mut d_buf, BYTES);
        rt::cudaMemcpy(d_buf, h_src.as_ptr() as *const c_void, BYTES, rt::cudaMemcpyKind::cudaMemcpyHostToDevice);
        let copied = rt::cudaMemcpyAsync(h_pinned, d_buf, BYTES, rt::cudaMemcpyKind::cudaMemcpyDeviceToHost, stream);
        rt::cudaFreeAsync(d_buf, stream);
        rt::cudaStreamSynchronize(stream);
        let first = *(h_pinned as *const f32);
        rt::cudaFreeHost(h_pinned);
        copied.result().map(|()| first)
    }
}

fn main() {}
