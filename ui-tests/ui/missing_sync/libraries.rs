//@no-rustfix
//! `missing_sync` with cuBLAS as stream work: raw bindings (`cudarc::cublas::sys`,
//! `cudarc::cublas::result`) on memory from `malloc_sync` / `cuMemAlloc_v2`, pinned memory
//! from `malloc_host`, raw non-blocking streams, and cudarc's safe `CudaBlas` mixed with raw
//! device pointers (`device_ptr(&s).0`, the guard dropped) where cudarc's events do not reach.
//!
//! Fires (one finding each):
//! - `dense_forward_handle_left_on_legacy_stream`: no `cublasSetStream`, the GEMM runs on the
//!   legacy stream and the readback is queued on a non-blocking stream.
//! - `residual_saxpy_drained_on_copy_stream`: SAXPY on the compute stream, readback of `y` on a
//!   second non-blocking stream with no event between them.
//! - `classifier_gemv_blocking_readback`: GEMV on a non-blocking stream, blocking
//!   `cuMemcpyDtoH_v2` (legacy stream) of its output.
//! - `similarity_dot_device_pointer_mode`: `cublasSdot` in device pointer mode writes device
//!   memory on a non-blocking stream; a blocking copy reads it.
//! - `two_layer_mlp_on_two_handles`: handle 1 (stream A) writes the hidden layer, handle 2
//!   (stream B) reads it with no event wait.
//! - `prefetch_overwrites_batch_in_use`: the next batch is copied (copy stream) into the buffer
//!   the GEMM on the compute stream still reads.
//! - `cudarc_kernel_feeds_legacy_handle`: a cudarc kernel on a non-blocking stream writes `x`,
//!   a handle left on the legacy stream reads it through a raw pointer.
//! - `cudarc_kernel_feeds_handle_on_other_stream`: the same with the handle set to another
//!   non-blocking stream.
//! - `cudablas_gemm_raw_readback_on_copy_stream`: `CudaBlas::gemm` on the compute stream, raw
//!   `cuMemcpyDtoHAsync_v2` of `c` on the copy stream.
//! - `cudablas_moved_stream_readback_on_loader`: `blas.set_stream(compute)`, then the raw
//!   readback still goes to the loader stream the handle was made with.
//! - `cudablas_gemm_raw_epilogue_on_side_stream`: a kernel on another stream given `c` as a raw
//!   pointer while the GEMM may still write it.
//!
//! Near misses (no finding):
//! - `dense_forward_with_set_stream`: `cublasSetStream_v2` first, `cuStreamSynchronize` before
//!   the host read.
//! - `residual_saxpy_copy_stream_waits_event`: event recorded after the SAXPY,
//!   `cuStreamWaitEvent` on the copy stream.
//! - `classifier_gemv_blocking_stream`: the handle's stream is blocking, so the blocking copy
//!   (legacy stream) waits for it.
//! - `similarity_dot_host_pointer_mode`: host pointer mode, the result is read right after.
//! - `two_handles_share_read_only_weights`: two handles on two streams only read the weights.
//! - `prefetch_after_event_synchronize`: the host waits for an event recorded after the GEMM.
//! - `legacy_handle_then_context_synchronize`: the handle is left on the legacy stream, but
//!   `cuCtxSynchronize` comes before the readback on the non-blocking stream.
//! - `cudarc_kernel_feeds_handle_on_same_stream`: the handle runs on the kernel's stream.
//! - `cudarc_kernel_synchronized_before_legacy_handle`: the kernel's stream is synchronized
//!   before the legacy-stream routine is enqueued.
//! - `cudablas_gemm_raw_readback_after_event_wait`: the copy stream waits on an event recorded
//!   after the GEMM.
//! - `cudablas_moved_stream_readback_on_compute`: the readback follows the handle to its new
//!   stream.
//! - `cudablas_gemm_raw_epilogue_on_same_stream`: the epilogue kernel runs on the GEMM's stream.

use std::error::Error;
use std::ffi::c_void;

use cudarc::cublas::result as cublas_result;
use cudarc::cublas::sys as cublas_sys;
use cudarc::cublas::{CudaBlas, Gemm, GemmConfig};
use cudarc::driver::{result, sys, CudaContext, DevicePtr, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const N: usize = 256;
const LEN: usize = N * N;
const F32: usize = std::mem::size_of::<f32>();
const MAT_BYTES: usize = LEN * F32;
const VEC_BYTES: usize = N * F32;

const OP_N: cublas_sys::cublasOperation_t = cublas_sys::cublasOperation_t::CUBLAS_OP_N;

const KERNELS: &str = r#"
extern "C" __global__ void fill(float* out, float value, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = value;
    }
}

extern "C" __global__ void bias_relu(float* y, const float* bias, int rows, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = fmaxf(y[i] + bias[i % rows], 0.0f);
    }
}
"#;

/// Device memory from `cuMemAlloc`: released once the context is idle.
struct DeviceAlloc(sys::CUdeviceptr);

impl Drop for DeviceAlloc {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            let _ = sys::cuMemFree_v2(self.0);
        }
    }
}

/// Page-locked host memory from `cuMemHostAlloc`: released once the context is idle.
struct PinnedAlloc(*mut c_void);

impl Drop for PinnedAlloc {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            let _ = sys::cuMemFreeHost(self.0);
        }
    }
}

struct OwnedStream(sys::CUstream);

impl Drop for OwnedStream {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamDestroy_v2(self.0);
        }
    }
}

struct OwnedEvent(sys::CUevent);

impl Drop for OwnedEvent {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuEventDestroy_v2(self.0);
        }
    }
}

struct BlasHandle(cublas_sys::cublasHandle_t);

impl Drop for BlasHandle {
    fn drop(&mut self) {
        unsafe {
            let _ = cublas_sys::cublasDestroy_v2(self.0);
        }
    }
}

fn square_gemm() -> GemmConfig<f32> {
    GemmConfig {
        transa: OP_N,
        transb: OP_N,
        m: N as i32,
        n: N as i32,
        k: N as i32,
        alpha: 1.0,
        lda: N as i32,
        ldb: N as i32,
        beta: 0.0,
        ldc: N as i32,
    }
}

fn check_finite(values: &[f32], what: &str) -> Result<(), Box<dyn Error>> {
    if values.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(format!("{what}: non-finite values").into())
    }
}

// ---------------------------------------------------------------------------------------
// Raw cuBLAS on raw driver memory.
// ---------------------------------------------------------------------------------------

pub fn dense_forward_handle_left_on_legacy_stream() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut worker: sys::CUstream = std::ptr::null_mut();
    unsafe { sys::cuStreamCreate(&mut worker, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }.result()?;
    let _worker = OwnedStream(worker);
    let mut handle: cublas_sys::cublasHandle_t = std::ptr::null_mut();
    unsafe { cublas_sys::cublasCreate_v2(&mut handle) }.result()?;
    let _handle = BlasHandle(handle);

    let d_w = unsafe { result::malloc_sync(MAT_BYTES)? };
    let _d_w = DeviceAlloc(d_w);
    let d_x = unsafe { result::malloc_sync(MAT_BYTES)? };
    let _d_x = DeviceAlloc(d_x);
    let d_y = unsafe { result::malloc_sync(MAT_BYTES)? };
    let _d_y = DeviceAlloc(d_y);
    let h_y = unsafe { result::malloc_host(MAT_BYTES, 0)? };
    let _h_y = PinnedAlloc(h_y);

    let weights = vec![0.25f32; LEN];
    let activations = vec![1.0f32; LEN];
    unsafe {
        sys::cuMemcpyHtoD_v2(d_w, weights.as_ptr() as *const c_void, MAT_BYTES).result()?;
        sys::cuMemcpyHtoD_v2(d_x, activations.as_ptr() as *const c_void, MAT_BYTES).result()?;
        sys::cuMemsetD32_v2(d_y, 0, LEN).result()?;
        sys::cuCtxSynchronize().result()?;
    }

    let (alpha, beta) = (1.0f32, 0.0f32);
    let n = N as i32;
    unsafe { cublas_sys::cublasSgemm_v2(handle, OP_N, OP_N, n, n, n, &alpha, d_w as *const f32, n, d_x as *const f32, n, &beta, d_y as *mut f32, n) }.result()?;
    unsafe { sys::cuMemcpyDtoHAsync_v2(h_y, d_y, MAT_BYTES, worker) }.result()?;
    //~^ missing_sync
    unsafe { sys::cuStreamSynchronize(worker) }.result()?;
    let out = unsafe { std::slice::from_raw_parts(h_y as *const f32, LEN) };
    check_finite(out, "dense forward")
}

pub fn dense_forward_with_set_stream() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut worker: sys::CUstream = std::ptr::null_mut();
    unsafe { sys::cuStreamCreate(&mut worker, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }.result()?;
    let _worker = OwnedStream(worker);
    let mut handle: cublas_sys::cublasHandle_t = std::ptr::null_mut();
    unsafe { cublas_sys::cublasCreate_v2(&mut handle) }.result()?;
    let _handle = BlasHandle(handle);
    unsafe { cublas_sys::cublasSetStream_v2(handle, worker as _) }.result()?;

    let d_w = unsafe { result::malloc_sync(MAT_BYTES)? };
    let _d_w = DeviceAlloc(d_w);
    let d_x = unsafe { result::malloc_sync(MAT_BYTES)? };
    let _d_x = DeviceAlloc(d_x);
    let d_y = unsafe { result::malloc_sync(MAT_BYTES)? };
    let _d_y = DeviceAlloc(d_y);
    let h_y = unsafe { result::malloc_host(MAT_BYTES, 0)? };
    let _h_y = PinnedAlloc(h_y);

    let weights = vec![0.25f32; LEN];
    let activations = vec![1.0f32; LEN];
    unsafe {
        sys::cuMemcpyHtoD_v2(d_w, weights.as_ptr() as *const c_void, MAT_BYTES).result()?;
        sys::cuMemcpyHtoD_v2(d_x, activations.as_ptr() as *const c_void, MAT_BYTES).result()?;
        sys::cuMemsetD32_v2(d_y, 0, LEN).result()?;
        sys::cuCtxSynchronize().result()?;
    }

    let (alpha, beta) = (1.0f32, 0.0f32);
    let n = N as i32;
    unsafe { cublas_sys::cublasSgemm_v2(handle, OP_N, OP_N, n, n, n, &alpha, d_w as *const f32, n, d_x as *const f32, n, &beta, d_y as *mut f32, n) }.result()?;
    unsafe { sys::cuMemcpyDtoHAsync_v2(h_y, d_y, MAT_BYTES, worker) }.result()?;
    unsafe { sys::cuStreamSynchronize(worker) }.result()?;
    let out = unsafe { std::slice::from_raw_parts(h_y as *const f32, LEN) };
    check_finite(out, "dense forward")
}

pub fn legacy_handle_then_context_synchronize() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut readback: sys::CUstream = std::ptr::null_mut();
    unsafe { sys::cuStreamCreate(&mut readback, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }.result()?;
    let _readback = OwnedStream(readback);
    let handle = cublas_result::create_handle()?;
    let _handle = BlasHandle(handle);

    let d_a = unsafe { result::malloc_sync(MAT_BYTES)? };
    let _d_a = DeviceAlloc(d_a);
    let d_b = unsafe { result::malloc_sync(MAT_BYTES)? };
    let _d_b = DeviceAlloc(d_b);
    let d_c = unsafe { result::malloc_sync(MAT_BYTES)? };
    let _d_c = DeviceAlloc(d_c);
    let h_c = unsafe { result::malloc_host(MAT_BYTES, 0)? };
    let _h_c = PinnedAlloc(h_c);

    let lhs = vec![0.5f32; LEN];
    let rhs = vec![2.0f32; LEN];
    unsafe {
        sys::cuMemcpyHtoD_v2(d_a, lhs.as_ptr() as *const c_void, MAT_BYTES).result()?;
        sys::cuMemcpyHtoD_v2(d_b, rhs.as_ptr() as *const c_void, MAT_BYTES).result()?;
        sys::cuMemsetD32_v2(d_c, 0, LEN).result()?;
        sys::cuCtxSynchronize().result()?;
    }

    let (alpha, beta) = (1.0f32, 0.0f32);
    let n = N as i32;
    unsafe { cublas_result::sgemm(handle, OP_N, OP_N, n, n, n, &alpha, d_a as *const f32, n, d_b as *const f32, n, &beta, d_c as *mut f32, n) }?;
    // The handle still runs on the legacy stream: wait for the whole context first.
    unsafe { sys::cuCtxSynchronize() }.result()?;
    unsafe { sys::cuMemcpyDtoHAsync_v2(h_c, d_c, MAT_BYTES, readback) }.result()?;
    unsafe { sys::cuStreamSynchronize(readback) }.result()?;
    let product = unsafe { std::slice::from_raw_parts(h_c as *const f32, LEN) };
    check_finite(product, "product")
}

pub fn residual_saxpy_drained_on_copy_stream() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut compute: sys::CUstream = std::ptr::null_mut();
    unsafe { sys::cuStreamCreate(&mut compute, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }.result()?;
    let _compute = OwnedStream(compute);
    let mut copy: sys::CUstream = std::ptr::null_mut();
    unsafe { sys::cuStreamCreate(&mut copy, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }.result()?;
    let _copy = OwnedStream(copy);
    let handle = cublas_result::create_handle()?;
    let _handle = BlasHandle(handle);
    unsafe { cublas_result::set_stream(handle, compute as _) }?;

    let d_update = unsafe { result::malloc_sync(MAT_BYTES)? };
    let _d_update = DeviceAlloc(d_update);
    let d_state = unsafe { result::malloc_sync(MAT_BYTES)? };
    let _d_state = DeviceAlloc(d_state);
    let h_state = unsafe { result::malloc_host(MAT_BYTES, 0)? };
    let _h_state = PinnedAlloc(h_state);

    let update = vec![0.01f32; LEN];
    let state = vec![1.0f32; LEN];
    unsafe {
        sys::cuMemcpyHtoD_v2(d_update, update.as_ptr() as *const c_void, MAT_BYTES).result()?;
        sys::cuMemcpyHtoD_v2(d_state, state.as_ptr() as *const c_void, MAT_BYTES).result()?;
        sys::cuCtxSynchronize().result()?;
    }

    let step = -0.5f32;
    unsafe { cublas_sys::cublasSaxpy_v2(handle, LEN as i32, &step, d_update as *const f32, 1, d_state as *mut f32, 1) }.result()?;
    unsafe { sys::cuMemcpyDtoHAsync_v2(h_state, d_state, MAT_BYTES, copy) }.result()?;
    //~^ missing_sync
    unsafe { sys::cuStreamSynchronize(copy) }.result()?;
    let snapshot = unsafe { std::slice::from_raw_parts(h_state as *const f32, LEN) };
    check_finite(snapshot, "state snapshot")
}

pub fn residual_saxpy_copy_stream_waits_event() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut compute: sys::CUstream = std::ptr::null_mut();
    unsafe { sys::cuStreamCreate(&mut compute, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }.result()?;
    let _compute = OwnedStream(compute);
    let mut copy: sys::CUstream = std::ptr::null_mut();
    unsafe { sys::cuStreamCreate(&mut copy, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }.result()?;
    let _copy = OwnedStream(copy);
    let mut updated: sys::CUevent = std::ptr::null_mut();
    unsafe { sys::cuEventCreate(&mut updated, sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32) }.result()?;
    let _updated = OwnedEvent(updated);
    let handle = cublas_result::create_handle()?;
    let _handle = BlasHandle(handle);
    unsafe { cublas_result::set_stream(handle, compute as _) }?;

    let d_update = unsafe { result::malloc_sync(MAT_BYTES)? };
    let _d_update = DeviceAlloc(d_update);
    let d_state = unsafe { result::malloc_sync(MAT_BYTES)? };
    let _d_state = DeviceAlloc(d_state);
    let h_state = unsafe { result::malloc_host(MAT_BYTES, 0)? };
    let _h_state = PinnedAlloc(h_state);

    let update = vec![0.01f32; LEN];
    let state = vec![1.0f32; LEN];
    unsafe {
        sys::cuMemcpyHtoD_v2(d_update, update.as_ptr() as *const c_void, MAT_BYTES).result()?;
        sys::cuMemcpyHtoD_v2(d_state, state.as_ptr() as *const c_void, MAT_BYTES).result()?;
        sys::cuCtxSynchronize().result()?;
    }

    let step = -0.5f32;
    unsafe { cublas_sys::cublasSaxpy_v2(handle, LEN as i32, &step, d_update as *const f32, 1, d_state as *mut f32, 1) }.result()?;
    unsafe { sys::cuEventRecord(updated, compute) }.result()?;
    unsafe { sys::cuStreamWaitEvent(copy, updated, 0) }.result()?;
    unsafe { sys::cuMemcpyDtoHAsync_v2(h_state, d_state, MAT_BYTES, copy) }.result()?;
    unsafe { sys::cuStreamSynchronize(copy) }.result()?;
    let snapshot = unsafe { std::slice::from_raw_parts(h_state as *const f32, LEN) };
    check_finite(snapshot, "state snapshot")
}

pub fn classifier_gemv_blocking_readback() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut stream: sys::CUstream = std::ptr::null_mut();
    unsafe { sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }.result()?;
    let _stream = OwnedStream(stream);
    let handle = cublas_result::create_handle()?;
    let _handle = BlasHandle(handle);
    unsafe { cublas_result::set_stream(handle, stream as _) }?;

    let d_weights = unsafe { result::malloc_sync(MAT_BYTES)? };
    let _d_weights = DeviceAlloc(d_weights);
    let d_features = unsafe { result::malloc_sync(VEC_BYTES)? };
    let _d_features = DeviceAlloc(d_features);
    let d_logits = unsafe { result::malloc_sync(VEC_BYTES)? };
    let _d_logits = DeviceAlloc(d_logits);

    let weights = vec![0.125f32; LEN];
    let features = vec![1.0f32; N];
    unsafe {
        sys::cuMemcpyHtoD_v2(d_weights, weights.as_ptr() as *const c_void, MAT_BYTES).result()?;
        sys::cuMemcpyHtoD_v2(d_features, features.as_ptr() as *const c_void, VEC_BYTES).result()?;
        sys::cuMemsetD32_v2(d_logits, 0, N).result()?;
        sys::cuCtxSynchronize().result()?;
    }

    let (alpha, beta) = (1.0f32, 0.0f32);
    let n = N as i32;
    unsafe { cublas_sys::cublasSgemv_v2(handle, OP_N, n, n, &alpha, d_weights as *const f32, n, d_features as *const f32, 1, &beta, d_logits as *mut f32, 1) }.result()?;
    let mut logits = vec![0.0f32; N];
    unsafe { sys::cuMemcpyDtoH_v2(logits.as_mut_ptr() as *mut c_void, d_logits, VEC_BYTES) }.result()?;
    //~^ missing_sync
    let best = logits.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
    if best.is_nan() {
        return Err("classifier produced NaN".into());
    }
    Ok(())
}

pub fn classifier_gemv_blocking_stream() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    // A blocking stream: the legacy stream (blocking copies) waits for its work.
    let mut stream: sys::CUstream = std::ptr::null_mut();
    unsafe { sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_DEFAULT as u32) }.result()?;
    let _stream = OwnedStream(stream);
    let handle = cublas_result::create_handle()?;
    let _handle = BlasHandle(handle);
    unsafe { cublas_result::set_stream(handle, stream as _) }?;

    let mut d_weights: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d_weights, MAT_BYTES) }.result()?;
    let _d_weights = DeviceAlloc(d_weights);
    let mut d_features: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d_features, VEC_BYTES) }.result()?;
    let _d_features = DeviceAlloc(d_features);
    let mut d_logits: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d_logits, VEC_BYTES) }.result()?;
    let _d_logits = DeviceAlloc(d_logits);

    let weights = vec![0.125f32; LEN];
    let features = vec![1.0f32; N];
    unsafe {
        sys::cuMemcpyHtoD_v2(d_weights, weights.as_ptr() as *const c_void, MAT_BYTES).result()?;
        sys::cuMemcpyHtoD_v2(d_features, features.as_ptr() as *const c_void, VEC_BYTES).result()?;
        sys::cuMemsetD32_v2(d_logits, 0, N).result()?;
        sys::cuCtxSynchronize().result()?;
    }

    let (alpha, beta) = (1.0f32, 0.0f32);
    let n = N as i32;
    unsafe { cublas_sys::cublasSgemv_v2(handle, OP_N, n, n, &alpha, d_weights as *const f32, n, d_features as *const f32, 1, &beta, d_logits as *mut f32, 1) }.result()?;
    let mut logits = vec![0.0f32; N];
    unsafe { sys::cuMemcpyDtoH_v2(logits.as_mut_ptr() as *mut c_void, d_logits, VEC_BYTES) }.result()?;
    let best = logits.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
    if best.is_nan() {
        return Err("classifier produced NaN".into());
    }
    Ok(())
}

pub fn similarity_dot_device_pointer_mode() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut stream: sys::CUstream = std::ptr::null_mut();
    unsafe { sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }.result()?;
    let _stream = OwnedStream(stream);
    let mut handle: cublas_sys::cublasHandle_t = std::ptr::null_mut();
    unsafe { cublas_sys::cublasCreate_v2(&mut handle) }.result()?;
    let _handle = BlasHandle(handle);
    unsafe { cublas_sys::cublasSetStream_v2(handle, stream as _) }.result()?;
    unsafe { cublas_sys::cublasSetPointerMode_v2(handle, cublas_sys::cublasPointerMode_t::CUBLAS_POINTER_MODE_DEVICE) }.result()?;

    let mut d_query: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d_query, VEC_BYTES) }.result()?;
    let _d_query = DeviceAlloc(d_query);
    let mut d_key: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d_key, VEC_BYTES) }.result()?;
    let _d_key = DeviceAlloc(d_key);
    let mut d_score: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d_score, F32) }.result()?;
    let _d_score = DeviceAlloc(d_score);

    let query = vec![0.5f32; N];
    let key = vec![0.25f32; N];
    unsafe {
        sys::cuMemcpyHtoD_v2(d_query, query.as_ptr() as *const c_void, VEC_BYTES).result()?;
        sys::cuMemcpyHtoD_v2(d_key, key.as_ptr() as *const c_void, VEC_BYTES).result()?;
        sys::cuCtxSynchronize().result()?;
    }

    unsafe { cublas_sys::cublasSdot_v2(handle, N as i32, d_query as *const f32, 1, d_key as *const f32, 1, d_score as *mut f32) }.result()?;
    let mut score = 0.0f32;
    unsafe { sys::cuMemcpyDtoH_v2(&mut score as *mut f32 as *mut c_void, d_score, F32) }.result()?;
    //~^ missing_sync
    if !score.is_finite() {
        return Err("attention score overflowed".into());
    }
    Ok(())
}

pub fn similarity_dot_host_pointer_mode() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut stream: sys::CUstream = std::ptr::null_mut();
    unsafe { sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }.result()?;
    let _stream = OwnedStream(stream);
    let mut handle: cublas_sys::cublasHandle_t = std::ptr::null_mut();
    unsafe { cublas_sys::cublasCreate_v2(&mut handle) }.result()?;
    let _handle = BlasHandle(handle);
    unsafe { cublas_sys::cublasSetStream_v2(handle, stream as _) }.result()?;

    let mut d_query: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d_query, VEC_BYTES) }.result()?;
    let _d_query = DeviceAlloc(d_query);
    let mut d_key: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d_key, VEC_BYTES) }.result()?;
    let _d_key = DeviceAlloc(d_key);

    let query = vec![0.5f32; N];
    let key = vec![0.25f32; N];
    unsafe {
        sys::cuMemcpyHtoD_v2(d_query, query.as_ptr() as *const c_void, VEC_BYTES).result()?;
        sys::cuMemcpyHtoD_v2(d_key, key.as_ptr() as *const c_void, VEC_BYTES).result()?;
        sys::cuCtxSynchronize().result()?;
    }

    // Default (host) pointer mode: the call returns once `score` is written.
    let mut score = 0.0f32;
    unsafe { cublas_sys::cublasSdot_v2(handle, N as i32, d_query as *const f32, 1, d_key as *const f32, 1, &mut score) }.result()?;
    let scaled = score / (N as f32).sqrt();
    if !scaled.is_finite() {
        return Err("attention score overflowed".into());
    }
    Ok(())
}

pub fn two_layer_mlp_on_two_handles() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut stream_a: sys::CUstream = std::ptr::null_mut();
    unsafe { sys::cuStreamCreate(&mut stream_a, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }.result()?;
    let _stream_a = OwnedStream(stream_a);
    let mut stream_b: sys::CUstream = std::ptr::null_mut();
    unsafe { sys::cuStreamCreate(&mut stream_b, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }.result()?;
    let _stream_b = OwnedStream(stream_b);
    let layer1 = cublas_result::create_handle()?;
    let _layer1 = BlasHandle(layer1);
    let layer2 = cublas_result::create_handle()?;
    let _layer2 = BlasHandle(layer2);
    unsafe { cublas_result::set_stream(layer1, stream_a as _) }?;
    unsafe { cublas_result::set_stream(layer2, stream_b as _) }?;

    let d_w1 = unsafe { result::malloc_sync(MAT_BYTES)? };
    let _d_w1 = DeviceAlloc(d_w1);
    let d_x = unsafe { result::malloc_sync(MAT_BYTES)? };
    let _d_x = DeviceAlloc(d_x);
    let d_hidden = unsafe { result::malloc_sync(MAT_BYTES)? };
    let _d_hidden = DeviceAlloc(d_hidden);
    let d_w2 = unsafe { result::malloc_sync(VEC_BYTES)? };
    let _d_w2 = DeviceAlloc(d_w2);
    let d_out = unsafe { result::malloc_sync(VEC_BYTES)? };
    let _d_out = DeviceAlloc(d_out);

    let w1 = vec![0.03f32; LEN];
    let x = vec![1.0f32; LEN];
    let w2 = vec![0.5f32; N];
    unsafe {
        sys::cuMemcpyHtoD_v2(d_w1, w1.as_ptr() as *const c_void, MAT_BYTES).result()?;
        sys::cuMemcpyHtoD_v2(d_x, x.as_ptr() as *const c_void, MAT_BYTES).result()?;
        sys::cuMemcpyHtoD_v2(d_w2, w2.as_ptr() as *const c_void, VEC_BYTES).result()?;
        sys::cuMemsetD32_v2(d_hidden, 0, LEN).result()?;
        sys::cuMemsetD32_v2(d_out, 0, N).result()?;
        sys::cuCtxSynchronize().result()?;
    }

    let (alpha, beta) = (1.0f32, 0.0f32);
    let n = N as i32;
    unsafe { cublas_result::sgemm(layer1, OP_N, OP_N, n, n, n, &alpha, d_w1 as *const f32, n, d_x as *const f32, n, &beta, d_hidden as *mut f32, n) }?;
    unsafe { cublas_sys::cublasSgemv_v2(layer2, OP_N, n, n, &alpha, d_hidden as *const f32, n, d_w2 as *const f32, 1, &beta, d_out as *mut f32, 1) }.result()?;
    //~^ missing_sync
    unsafe { sys::cuStreamSynchronize(stream_a) }.result()?;
    unsafe { sys::cuStreamSynchronize(stream_b) }.result()?;
    let mut out = vec![0.0f32; N];
    unsafe { sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, d_out, VEC_BYTES) }.result()?;
    check_finite(&out, "mlp output")
}

pub fn two_handles_share_read_only_weights() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut stream_a: sys::CUstream = std::ptr::null_mut();
    unsafe { sys::cuStreamCreate(&mut stream_a, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }.result()?;
    let _stream_a = OwnedStream(stream_a);
    let mut stream_b: sys::CUstream = std::ptr::null_mut();
    unsafe { sys::cuStreamCreate(&mut stream_b, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }.result()?;
    let _stream_b = OwnedStream(stream_b);
    let left = cublas_result::create_handle()?;
    let _left = BlasHandle(left);
    let right = cublas_result::create_handle()?;
    let _right = BlasHandle(right);
    unsafe { cublas_result::set_stream(left, stream_a as _) }?;
    unsafe { cublas_result::set_stream(right, stream_b as _) }?;

    let d_weights = unsafe { result::malloc_sync(MAT_BYTES)? };
    let _d_weights = DeviceAlloc(d_weights);
    let d_query_a = unsafe { result::malloc_sync(VEC_BYTES)? };
    let _d_query_a = DeviceAlloc(d_query_a);
    let d_query_b = unsafe { result::malloc_sync(VEC_BYTES)? };
    let _d_query_b = DeviceAlloc(d_query_b);
    let d_out_a = unsafe { result::malloc_sync(VEC_BYTES)? };
    let _d_out_a = DeviceAlloc(d_out_a);
    let d_out_b = unsafe { result::malloc_sync(VEC_BYTES)? };
    let _d_out_b = DeviceAlloc(d_out_b);

    let weights = vec![0.125f32; LEN];
    let query_a = vec![1.0f32; N];
    let query_b = vec![-1.0f32; N];
    unsafe {
        sys::cuMemcpyHtoD_v2(d_weights, weights.as_ptr() as *const c_void, MAT_BYTES).result()?;
        sys::cuMemcpyHtoD_v2(d_query_a, query_a.as_ptr() as *const c_void, VEC_BYTES).result()?;
        sys::cuMemcpyHtoD_v2(d_query_b, query_b.as_ptr() as *const c_void, VEC_BYTES).result()?;
        sys::cuMemsetD32_v2(d_out_a, 0, N).result()?;
        sys::cuMemsetD32_v2(d_out_b, 0, N).result()?;
        sys::cuCtxSynchronize().result()?;
    }

    // Both routines only read the shared weights; each writes its own output.
    let (alpha, beta) = (1.0f32, 0.0f32);
    let n = N as i32;
    unsafe { cublas_sys::cublasSgemv_v2(left, OP_N, n, n, &alpha, d_weights as *const f32, n, d_query_a as *const f32, 1, &beta, d_out_a as *mut f32, 1) }.result()?;
    unsafe { cublas_sys::cublasSgemv_v2(right, OP_N, n, n, &alpha, d_weights as *const f32, n, d_query_b as *const f32, 1, &beta, d_out_b as *mut f32, 1) }.result()?;
    unsafe { sys::cuStreamSynchronize(stream_a) }.result()?;
    unsafe { sys::cuStreamSynchronize(stream_b) }.result()?;
    let mut out_a = vec![0.0f32; N];
    let mut out_b = vec![0.0f32; N];
    unsafe {
        sys::cuMemcpyDtoH_v2(out_a.as_mut_ptr() as *mut c_void, d_out_a, VEC_BYTES).result()?;
        sys::cuMemcpyDtoH_v2(out_b.as_mut_ptr() as *mut c_void, d_out_b, VEC_BYTES).result()?;
    }
    check_finite(&out_a, "left")?;
    check_finite(&out_b, "right")
}

pub fn prefetch_overwrites_batch_in_use() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut compute: sys::CUstream = std::ptr::null_mut();
    unsafe { sys::cuStreamCreate(&mut compute, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }.result()?;
    let _compute = OwnedStream(compute);
    let mut copy: sys::CUstream = std::ptr::null_mut();
    unsafe { sys::cuStreamCreate(&mut copy, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }.result()?;
    let _copy = OwnedStream(copy);
    let mut handle: cublas_sys::cublasHandle_t = std::ptr::null_mut();
    unsafe { cublas_sys::cublasCreate_v2(&mut handle) }.result()?;
    let _handle = BlasHandle(handle);
    unsafe { cublas_sys::cublasSetStream_v2(handle, compute as _) }.result()?;

    let mut d_weights: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d_weights, MAT_BYTES) }.result()?;
    let _d_weights = DeviceAlloc(d_weights);
    let mut d_batch: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d_batch, MAT_BYTES) }.result()?;
    let _d_batch = DeviceAlloc(d_batch);
    let mut d_out: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d_out, MAT_BYTES) }.result()?;
    let _d_out = DeviceAlloc(d_out);
    let h_next = unsafe { result::malloc_host(MAT_BYTES, 0)? };
    let _h_next = PinnedAlloc(h_next);

    let weights = vec![0.02f32; LEN];
    let first_batch = vec![1.0f32; LEN];
    unsafe {
        sys::cuMemcpyHtoD_v2(d_weights, weights.as_ptr() as *const c_void, MAT_BYTES).result()?;
        sys::cuMemcpyHtoD_v2(d_batch, first_batch.as_ptr() as *const c_void, MAT_BYTES).result()?;
        sys::cuMemsetD32_v2(d_out, 0, LEN).result()?;
        sys::cuCtxSynchronize().result()?;
    }

    let (alpha, beta) = (1.0f32, 0.0f32);
    let n = N as i32;
    unsafe { cublas_sys::cublasSgemm_v2(handle, OP_N, OP_N, n, n, n, &alpha, d_weights as *const f32, n, d_batch as *const f32, n, &beta, d_out as *mut f32, n) }.result()?;
    let staged = unsafe { std::slice::from_raw_parts_mut(h_next as *mut f32, LEN) };
    staged.fill(2.0);
    unsafe { sys::cuMemcpyHtoDAsync_v2(d_batch, h_next, MAT_BYTES, copy) }.result()?;
    //~^ missing_sync
    unsafe { sys::cuStreamSynchronize(compute) }.result()?;
    unsafe { sys::cuStreamSynchronize(copy) }.result()?;
    let mut out = vec![0.0f32; LEN];
    unsafe { sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, d_out, MAT_BYTES) }.result()?;
    check_finite(&out, "batch output")
}

pub fn prefetch_after_event_synchronize() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut compute: sys::CUstream = std::ptr::null_mut();
    unsafe { sys::cuStreamCreate(&mut compute, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }.result()?;
    let _compute = OwnedStream(compute);
    let mut copy: sys::CUstream = std::ptr::null_mut();
    unsafe { sys::cuStreamCreate(&mut copy, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }.result()?;
    let _copy = OwnedStream(copy);
    let mut consumed: sys::CUevent = std::ptr::null_mut();
    unsafe { sys::cuEventCreate(&mut consumed, sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32) }.result()?;
    let _consumed = OwnedEvent(consumed);
    let mut handle: cublas_sys::cublasHandle_t = std::ptr::null_mut();
    unsafe { cublas_sys::cublasCreate_v2(&mut handle) }.result()?;
    let _handle = BlasHandle(handle);
    unsafe { cublas_sys::cublasSetStream_v2(handle, compute as _) }.result()?;

    let mut d_weights: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d_weights, MAT_BYTES) }.result()?;
    let _d_weights = DeviceAlloc(d_weights);
    let mut d_batch: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d_batch, MAT_BYTES) }.result()?;
    let _d_batch = DeviceAlloc(d_batch);
    let mut d_out: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d_out, MAT_BYTES) }.result()?;
    let _d_out = DeviceAlloc(d_out);
    let h_next = unsafe { result::malloc_host(MAT_BYTES, 0)? };
    let _h_next = PinnedAlloc(h_next);

    let weights = vec![0.02f32; LEN];
    let first_batch = vec![1.0f32; LEN];
    unsafe {
        sys::cuMemcpyHtoD_v2(d_weights, weights.as_ptr() as *const c_void, MAT_BYTES).result()?;
        sys::cuMemcpyHtoD_v2(d_batch, first_batch.as_ptr() as *const c_void, MAT_BYTES).result()?;
        sys::cuMemsetD32_v2(d_out, 0, LEN).result()?;
        sys::cuCtxSynchronize().result()?;
    }

    let (alpha, beta) = (1.0f32, 0.0f32);
    let n = N as i32;
    unsafe { cublas_sys::cublasSgemm_v2(handle, OP_N, OP_N, n, n, n, &alpha, d_weights as *const f32, n, d_batch as *const f32, n, &beta, d_out as *mut f32, n) }.result()?;
    unsafe { sys::cuEventRecord(consumed, compute) }.result()?;
    let staged = unsafe { std::slice::from_raw_parts_mut(h_next as *mut f32, LEN) };
    staged.fill(2.0);
    // The GEMM is done with the batch buffer once `consumed` has fired.
    unsafe { sys::cuEventSynchronize(consumed) }.result()?;
    unsafe { sys::cuMemcpyHtoDAsync_v2(d_batch, h_next, MAT_BYTES, copy) }.result()?;
    unsafe { sys::cuStreamSynchronize(copy) }.result()?;
    let mut out = vec![0.0f32; LEN];
    unsafe { sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, d_out, MAT_BYTES) }.result()?;
    check_finite(&out, "batch output")
}

// ---------------------------------------------------------------------------------------
// cudarc kernels (NVRTC) feeding raw cuBLAS handles through raw pointers.
// ---------------------------------------------------------------------------------------

pub fn cudarc_kernel_feeds_legacy_handle() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let handle = cublas_result::create_handle()?;
    let _handle = BlasHandle(handle);

    let d_acc = unsafe { result::malloc_sync(MAT_BYTES)? };
    let _d_acc = DeviceAlloc(d_acc);
    let start = vec![1.0f32; LEN];
    unsafe {
        sys::cuMemcpyHtoD_v2(d_acc, start.as_ptr() as *const c_void, MAT_BYTES).result()?;
        sys::cuCtxSynchronize().result()?;
    }

    let mut grad = stream.alloc_zeros::<f32>(LEN)?;
    let grad_ptr = grad.device_ptr(&stream).0;
    let count = LEN as i32;
    unsafe { stream.launch_builder(&fill).arg(&mut grad).arg(&0.5f32).arg(&count).launch(LaunchConfig::for_num_elems(LEN as u32)) }?;

    let lr = -0.1f32;
    let status = unsafe { cublas_sys::cublasSaxpy_v2(handle, count, &lr, grad_ptr as *const f32, 1, d_acc as *mut f32, 1) };
    //~^ missing_sync
    let synced = unsafe { sys::cuCtxSynchronize() };
    status.result()?;
    synced.result()?;

    let mut acc = vec![0.0f32; LEN];
    unsafe { sys::cuMemcpyDtoH_v2(acc.as_mut_ptr() as *mut c_void, d_acc, MAT_BYTES) }.result()?;
    check_finite(&acc, "accumulator")
}

pub fn cudarc_kernel_synchronized_before_legacy_handle() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let handle = cublas_result::create_handle()?;
    let _handle = BlasHandle(handle);

    let d_acc = unsafe { result::malloc_sync(MAT_BYTES)? };
    let _d_acc = DeviceAlloc(d_acc);
    let start = vec![1.0f32; LEN];
    unsafe {
        sys::cuMemcpyHtoD_v2(d_acc, start.as_ptr() as *const c_void, MAT_BYTES).result()?;
        sys::cuCtxSynchronize().result()?;
    }

    let mut grad = stream.alloc_zeros::<f32>(LEN)?;
    let grad_ptr = grad.device_ptr(&stream).0;
    let count = LEN as i32;
    unsafe { stream.launch_builder(&fill).arg(&mut grad).arg(&0.5f32).arg(&count).launch(LaunchConfig::for_num_elems(LEN as u32)) }?;
    // The handle is on the legacy stream, which does not wait for `stream`: wait here.
    stream.synchronize()?;

    let lr = -0.1f32;
    let status = unsafe { cublas_sys::cublasSaxpy_v2(handle, count, &lr, grad_ptr as *const f32, 1, d_acc as *mut f32, 1) };
    let synced = unsafe { sys::cuCtxSynchronize() };
    status.result()?;
    synced.result()?;

    let mut acc = vec![0.0f32; LEN];
    unsafe { sys::cuMemcpyDtoH_v2(acc.as_mut_ptr() as *mut c_void, d_acc, MAT_BYTES) }.result()?;
    check_finite(&acc, "accumulator")
}

pub fn cudarc_kernel_feeds_handle_on_other_stream() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let prep = ctx.new_stream()?;
    let gemm_stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let mut handle: cublas_sys::cublasHandle_t = std::ptr::null_mut();
    unsafe { cublas_sys::cublasCreate_v2(&mut handle) }.result()?;
    let _handle = BlasHandle(handle);
    unsafe { cublas_sys::cublasSetStream_v2(handle, gemm_stream.cu_stream() as _) }.result()?;

    let cfg = LaunchConfig::for_num_elems(LEN as u32);
    let count = LEN as i32;
    let mut weights = gemm_stream.alloc_zeros::<f32>(LEN)?;
    let mut inputs = prep.alloc_zeros::<f32>(LEN)?;
    let out = gemm_stream.alloc_zeros::<f32>(LEN)?;
    let w_ptr = weights.device_ptr(&gemm_stream).0;
    let x_ptr = inputs.device_ptr(&prep).0;
    let y_ptr = out.device_ptr(&gemm_stream).0;
    unsafe { gemm_stream.launch_builder(&fill).arg(&mut weights).arg(&0.01f32).arg(&count).launch(cfg) }?;
    unsafe { prep.launch_builder(&fill).arg(&mut inputs).arg(&1.0f32).arg(&count).launch(cfg) }?;

    let (alpha, beta) = (1.0f32, 0.0f32);
    let n = N as i32;
    let status = unsafe { cublas_sys::cublasSgemm_v2(handle, OP_N, OP_N, n, n, n, &alpha, w_ptr as *const f32, n, x_ptr as *const f32, n, &beta, y_ptr as *mut f32, n) };
    //~^ missing_sync
    let synced = gemm_stream.synchronize();
    status.result()?;
    synced?;

    let mut host = unsafe { ctx.alloc_pinned_with_flags::<f32>(LEN, 0) }?;
    gemm_stream.memcpy_dtoh(&out, &mut host)?;
    gemm_stream.synchronize()?;
    check_finite(host.as_slice()?, "projection")
}

pub fn cudarc_kernel_feeds_handle_on_same_stream() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let prep = ctx.new_stream()?;
    let gemm_stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let mut handle: cublas_sys::cublasHandle_t = std::ptr::null_mut();
    unsafe { cublas_sys::cublasCreate_v2(&mut handle) }.result()?;
    let _handle = BlasHandle(handle);
    // The handle runs on the stream that produces its input.
    unsafe { cublas_sys::cublasSetStream_v2(handle, prep.cu_stream() as _) }.result()?;

    let cfg = LaunchConfig::for_num_elems(LEN as u32);
    let count = LEN as i32;
    let mut weights = prep.alloc_zeros::<f32>(LEN)?;
    let mut inputs = prep.alloc_zeros::<f32>(LEN)?;
    let out = prep.alloc_zeros::<f32>(LEN)?;
    let w_ptr = weights.device_ptr(&prep).0;
    let x_ptr = inputs.device_ptr(&prep).0;
    let y_ptr = out.device_ptr(&prep).0;
    unsafe { prep.launch_builder(&fill).arg(&mut weights).arg(&0.01f32).arg(&count).launch(cfg) }?;
    unsafe { prep.launch_builder(&fill).arg(&mut inputs).arg(&1.0f32).arg(&count).launch(cfg) }?;

    let (alpha, beta) = (1.0f32, 0.0f32);
    let n = N as i32;
    let status = unsafe { cublas_sys::cublasSgemm_v2(handle, OP_N, OP_N, n, n, n, &alpha, w_ptr as *const f32, n, x_ptr as *const f32, n, &beta, y_ptr as *mut f32, n) };
    let synced = prep.synchronize();
    status.result()?;
    synced?;

    let mut host = unsafe { ctx.alloc_pinned_with_flags::<f32>(LEN, 0) }?;
    gemm_stream.memcpy_dtoh(&out, &mut host)?;
    gemm_stream.synchronize()?;
    check_finite(host.as_slice()?, "projection")
}

// ---------------------------------------------------------------------------------------
// cudarc's safe CudaBlas with raw pointers where its event tracking does not reach.
// ---------------------------------------------------------------------------------------

pub fn cudablas_gemm_raw_readback_on_copy_stream() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let compute = ctx.new_stream()?;
    let copy = ctx.new_stream()?;
    let blas = CudaBlas::new(compute.clone())?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;

    let cfg = LaunchConfig::for_num_elems(LEN as u32);
    let count = LEN as i32;
    let mut a = compute.alloc_zeros::<f32>(LEN)?;
    let mut b = compute.alloc_zeros::<f32>(LEN)?;
    let mut c = compute.alloc_zeros::<f32>(LEN)?;
    unsafe { compute.launch_builder(&fill).arg(&mut a).arg(&0.5f32).arg(&count).launch(cfg) }?;
    unsafe { compute.launch_builder(&fill).arg(&mut b).arg(&2.0f32).arg(&count).launch(cfg) }?;
    let c_ptr = c.device_ptr(&compute).0;
    let h_c = unsafe { result::malloc_host(MAT_BYTES, 0)? };
    let _h_c = PinnedAlloc(h_c);

    unsafe { blas.gemm(square_gemm(), &a, &b, &mut c) }?;
    let copied = unsafe { sys::cuMemcpyDtoHAsync_v2(h_c, c_ptr, MAT_BYTES, copy.cu_stream()) };
    //~^ missing_sync
    let synced = copy.synchronize();
    copied.result()?;
    synced?;
    let product = unsafe { std::slice::from_raw_parts(h_c as *const f32, LEN) };
    check_finite(product, "product")
}

pub fn cudablas_gemm_raw_readback_after_event_wait() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let compute = ctx.new_stream()?;
    let copy = ctx.new_stream()?;
    let blas = CudaBlas::new(compute.clone())?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;

    let cfg = LaunchConfig::for_num_elems(LEN as u32);
    let count = LEN as i32;
    let mut a = compute.alloc_zeros::<f32>(LEN)?;
    let mut b = compute.alloc_zeros::<f32>(LEN)?;
    let mut c = compute.alloc_zeros::<f32>(LEN)?;
    unsafe { compute.launch_builder(&fill).arg(&mut a).arg(&0.5f32).arg(&count).launch(cfg) }?;
    unsafe { compute.launch_builder(&fill).arg(&mut b).arg(&2.0f32).arg(&count).launch(cfg) }?;
    let c_ptr = c.device_ptr(&compute).0;
    let h_c = unsafe { result::malloc_host(MAT_BYTES, 0)? };
    let _h_c = PinnedAlloc(h_c);

    unsafe { blas.gemm(square_gemm(), &a, &b, &mut c) }?;
    let gemm_done = compute.record_event(None)?;
    copy.wait(&gemm_done)?;
    let copied = unsafe { sys::cuMemcpyDtoHAsync_v2(h_c, c_ptr, MAT_BYTES, copy.cu_stream()) };
    let synced = copy.synchronize();
    copied.result()?;
    synced?;
    let product = unsafe { std::slice::from_raw_parts(h_c as *const f32, LEN) };
    check_finite(product, "product")
}

pub fn cudablas_moved_stream_readback_on_loader() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let loader = ctx.new_stream()?;
    let compute = ctx.new_stream()?;
    let mut blas = CudaBlas::new(loader.clone())?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;

    let cfg = LaunchConfig::for_num_elems(LEN as u32);
    let count = LEN as i32;
    let mut a = loader.alloc_zeros::<f32>(LEN)?;
    let mut b = loader.alloc_zeros::<f32>(LEN)?;
    let mut c = loader.alloc_zeros::<f32>(LEN)?;
    unsafe { loader.launch_builder(&fill).arg(&mut a).arg(&0.5f32).arg(&count).launch(cfg) }?;
    unsafe { loader.launch_builder(&fill).arg(&mut b).arg(&2.0f32).arg(&count).launch(cfg) }?;
    let c_ptr = c.device_ptr(&loader).0;
    let h_c = unsafe { result::malloc_host(MAT_BYTES, 0)? };
    let _h_c = PinnedAlloc(h_c);

    // From here on the handle's routines run on `compute`.
    unsafe { blas.set_stream(compute.clone()) }?;
    unsafe { blas.gemm(square_gemm(), &a, &b, &mut c) }?;
    let copied = unsafe { sys::cuMemcpyDtoHAsync_v2(h_c, c_ptr, MAT_BYTES, loader.cu_stream()) };
    //~^ missing_sync
    let synced = loader.synchronize();
    copied.result()?;
    synced?;
    let product = unsafe { std::slice::from_raw_parts(h_c as *const f32, LEN) };
    check_finite(product, "product")
}

pub fn cudablas_moved_stream_readback_on_compute() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let loader = ctx.new_stream()?;
    let compute = ctx.new_stream()?;
    let mut blas = CudaBlas::new(loader.clone())?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;

    let cfg = LaunchConfig::for_num_elems(LEN as u32);
    let count = LEN as i32;
    let mut a = loader.alloc_zeros::<f32>(LEN)?;
    let mut b = loader.alloc_zeros::<f32>(LEN)?;
    let mut c = loader.alloc_zeros::<f32>(LEN)?;
    unsafe { loader.launch_builder(&fill).arg(&mut a).arg(&0.5f32).arg(&count).launch(cfg) }?;
    unsafe { loader.launch_builder(&fill).arg(&mut b).arg(&2.0f32).arg(&count).launch(cfg) }?;
    let c_ptr = c.device_ptr(&loader).0;
    let h_c = unsafe { result::malloc_host(MAT_BYTES, 0)? };
    let _h_c = PinnedAlloc(h_c);

    unsafe { blas.set_stream(compute.clone()) }?;
    unsafe { blas.gemm(square_gemm(), &a, &b, &mut c) }?;
    // The readback follows the handle to its new stream.
    let copied = unsafe { sys::cuMemcpyDtoHAsync_v2(h_c, c_ptr, MAT_BYTES, compute.cu_stream()) };
    let synced = compute.synchronize();
    copied.result()?;
    synced?;
    let product = unsafe { std::slice::from_raw_parts(h_c as *const f32, LEN) };
    check_finite(product, "product")
}

pub fn cudablas_gemm_raw_epilogue_on_side_stream() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let main = ctx.new_stream()?;
    let side = ctx.new_stream()?;
    let blas = CudaBlas::new(main.clone())?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let bias_relu = module.load_function("bias_relu")?;

    let cfg = LaunchConfig::for_num_elems(LEN as u32);
    let count = LEN as i32;
    let rows = N as i32;
    let mut a = main.alloc_zeros::<f32>(LEN)?;
    let mut b = main.alloc_zeros::<f32>(LEN)?;
    let mut c = main.alloc_zeros::<f32>(LEN)?;
    let mut bias = side.alloc_zeros::<f32>(N)?;
    unsafe { main.launch_builder(&fill).arg(&mut a).arg(&0.5f32).arg(&count).launch(cfg) }?;
    unsafe { main.launch_builder(&fill).arg(&mut b).arg(&2.0f32).arg(&count).launch(cfg) }?;
    unsafe { side.launch_builder(&fill).arg(&mut bias).arg(&-1.0f32).arg(&rows).launch(LaunchConfig::for_num_elems(N as u32)) }?;
    let c_ptr = c.device_ptr(&main).0;

    unsafe { blas.gemm(square_gemm(), &a, &b, &mut c) }?;
    let launched = unsafe { side.launch_builder(&bias_relu).arg(&c_ptr).arg(&bias).arg(&rows).arg(&count).launch(cfg) };
    //~^ missing_sync
    let synced = ctx.synchronize();
    launched?;
    synced?;

    let mut host = unsafe { ctx.alloc_pinned_with_flags::<f32>(LEN, 0) }?;
    main.memcpy_dtoh(&c, &mut host)?;
    main.synchronize()?;
    check_finite(host.as_slice()?, "activations")
}

pub fn cudablas_gemm_raw_epilogue_on_same_stream() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let main = ctx.new_stream()?;
    let side = ctx.new_stream()?;
    let blas = CudaBlas::new(main.clone())?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let bias_relu = module.load_function("bias_relu")?;

    let cfg = LaunchConfig::for_num_elems(LEN as u32);
    let count = LEN as i32;
    let rows = N as i32;
    let mut a = main.alloc_zeros::<f32>(LEN)?;
    let mut b = main.alloc_zeros::<f32>(LEN)?;
    let mut c = main.alloc_zeros::<f32>(LEN)?;
    let mut bias = main.alloc_zeros::<f32>(N)?;
    unsafe { main.launch_builder(&fill).arg(&mut a).arg(&0.5f32).arg(&count).launch(cfg) }?;
    unsafe { main.launch_builder(&fill).arg(&mut b).arg(&2.0f32).arg(&count).launch(cfg) }?;
    unsafe { main.launch_builder(&fill).arg(&mut bias).arg(&-1.0f32).arg(&rows).launch(LaunchConfig::for_num_elems(N as u32)) }?;
    let c_ptr = c.device_ptr(&main).0;

    unsafe { blas.gemm(square_gemm(), &a, &b, &mut c) }?;
    // The epilogue is queued behind the GEMM on the handle's own stream.
    let launched = unsafe { main.launch_builder(&bias_relu).arg(&c_ptr).arg(&bias).arg(&rows).arg(&count).launch(cfg) };
    let synced = main.synchronize();
    launched?;
    synced?;

    let mut host = unsafe { ctx.alloc_pinned_with_flags::<f32>(LEN, 0) }?;
    side.memcpy_dtoh(&c, &mut host)?;
    side.synchronize()?;
    check_finite(host.as_slice()?, "activations")
}
