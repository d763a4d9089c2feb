//@no-rustfix
//! (This file holds the cases written through cudarc's safe graph API; the list below, of the helper's
//! original file, covers this file and its sibling. Case names carry `fires_`/`ok_`.)
//!
//! `uncapturable_call`: a call that stream capture does not permit, made between the begin and
//! the end of a capture on the same thread. The call fails and invalidates the capture, so the
//! end of the capture fails too and no graph is made.
//!
//! Fires (one finding each, at the call):
//! - `synchronize_capturing_stream_between_kernels`: `stream.synchronize()` of the capturing
//!   stream (global mode).
//! - `relaxed_capture_still_cannot_synchronize`: the same in relaxed mode, where synchronizing
//!   what is being captured is still invalid.
//! - `context_synchronize_inside_capture`: `ctx.synchronize()` (`cuCtxSynchronize`).
//! - `raw_stream_synchronize_inside_raw_capture`: `sys::cuStreamSynchronize` of the stream that
//!   `sys::cuStreamBeginCapture_v2(.., CU_STREAM_CAPTURE_MODE_GLOBAL)` put in capture.
//! - `event_recorded_in_capture_synchronized`: `event.synchronize()` of an event recorded on the
//!   capturing stream during the capture.
//! - `scratch_malloc_sync_inside_global_capture`: `result::malloc_sync` in global mode.
//! - `raw_mem_alloc_inside_raw_global_capture`: `sys::cuMemAlloc_v2` in global mode (raw begin).
//! - `readback_malloc_host_inside_global_capture`: `result::malloc_host` in global mode.
//! - `previous_buffer_free_sync_inside_global_capture`: `result::free_sync` in global mode.
//! - `blocking_coefficient_upload_inside_global_capture`: a blocking `sys::cuMemcpyHtoD_v2` in
//!   global mode.
//! - `thread_local_capture_mem_alloc_host`: `sys::cuMemAllocHost_v2` in thread-local mode.
//!
//! Near misses (no finding):
//! - `relaxed_capture_allocates_scratch`: `result::malloc_sync` inside a capture begun with
//!   `CU_STREAM_CAPTURE_MODE_RELAXED`.
//! - `raw_relaxed_capture_mem_alloc`: `sys::cuMemAlloc_v2` inside a raw relaxed capture.
//! - `synchronize_before_begin_and_after_end`: `stream.synchronize()` and `ctx.synchronize()`
//!   before `begin_capture` and after `end_capture`.
//! - `raw_blocking_upload_before_capture`: a blocking `sys::cuMemcpyHtoD_v2` and
//!   `sys::cuStreamSynchronize` before the raw begin, `sys::cuCtxSynchronize` after the raw end.
//! - `pinned_async_copies_inside_capture`: `stream.memcpy_htod` from and `stream.memcpy_dtoh` into
//!   pinned memory inside a global capture.
//! - `kernel_pipeline_inside_capture`: only `launch_builder` launches and a device-to-device copy
//!   inside the capture; every allocation is made before it.
//! - `raw_pinned_async_copy_inside_capture`: `result::malloc_host` before the capture,
//!   `result::memcpy_htod_async` inside it, `result::free_host` after the last launch.
//! - `stream_ordered_scratch_inside_capture`: `result::malloc_async`/`result::free_async` on the
//!   capturing stream inside the capture (graph memory nodes).
//! - `legacy_stream_kernel_while_nonblocking_stream_captures`: a kernel on the legacy default
//!   stream while a non-blocking stream captures.
//! - `allocations_before_capture_frees_after`: `result::malloc_sync`, `result::malloc_host` before
//!   a global capture, `result::free_sync`, `result::free_host` after the graph is gone.

use std::error::Error;
use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::{sys, CudaContext, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const KERNELS: &str = r#"
extern "C" __global__ void fill(float *x, float value, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = value + 0.001f * (float)(i % 64);
}

extern "C" __global__ void scale(float *x, float alpha, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= alpha;
}

extern "C" __global__ void axpy(const float *x, float *y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}

extern "C" __global__ void smooth(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float l = in[i > 0 ? i - 1 : i];
        float r = in[i + 1 < n ? i + 1 : i];
        out[i] = 0.25f * l + 0.5f * in[i] + 0.25f * r;
    }
}

extern "C" __global__ void poly(float *x, const float *coeffs, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        x[i] = coeffs[0] + v * (coeffs[1] + v * coeffs[2]);
    }
}
"#;

const N: usize = 1 << 16;
const STEPS: usize = 4;

/// Leaves the labelled block with the driver error, so that the cleanup after the block runs on
/// every path (the `goto cleanup` of C code).
macro_rules! or_break {
    ($block:lifetime, $call:expr) => {
        match $call {
            Ok(value) => value,
            Err(err) => break $block Err(err),
        }
    };
}

/// Destroys a raw executable graph and the graph it was made from, where they exist.
fn destroy_graph(exec: sys::CUgraphExec, graph: sys::CUgraph) -> Result<(), DriverError> {
    let mut status = Ok(());
    if !exec.is_null() {
        status = status.and(unsafe { sys::cuGraphExecDestroy(exec) }.result());
    }
    if !graph.is_null() {
        status = status.and(unsafe { sys::cuGraphDestroy(graph) }.result());
    }
    status
}

/// Copies `buf` back through pinned memory that is not write-combined and sums it.
fn checksum(ctx: &Arc<CudaContext>, stream: &Arc<CudaStream>, buf: &CudaSlice<f32>) -> Result<f32, DriverError> {
    let mut host = unsafe { ctx.alloc_pinned_with_flags::<f32>(buf.len(), 0) }?;
    stream.memcpy_dtoh(buf, &mut host)?;
    stream.synchronize()?;
    Ok(host.as_slice()?.iter().sum())
}


// ---------------------------------------------------------------------------------------------
// Firing
// ---------------------------------------------------------------------------------------------

/// A two-kernel step whose author waited between the kernels "to be safe".
fn fires_synchronize_capturing_stream_between_kernels() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    // One stream, synchronized by hand: cudarc's per-buffer events are not wanted in a graph.
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let smooth = module.load_function("smooth")?;
    let scale = module.load_function("scale")?;
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;

    let mut u = stream.alloc_zeros::<f32>(N)?;
    let mut v = stream.alloc_zeros::<f32>(N)?;
    unsafe { stream.launch_builder(&fill).arg(&mut u).arg(&1.0f32).arg(&n).launch(cfg) }?;
    stream.synchronize()?;

    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    unsafe { stream.launch_builder(&smooth).arg(&u).arg(&mut v).arg(&n).launch(cfg) }?;
    stream.synchronize()?;
    //~^ uncapturable_call
    unsafe { stream.launch_builder(&scale).arg(&mut v).arg(&0.5f32).arg(&n).launch(cfg) }?;
    let graph = stream.end_capture(sys::CUgraphInstantiate_flags(0))?.ok_or("capture recorded no work")?;

    graph.launch()?;
    stream.synchronize()?;
    let total = checksum(&ctx, &stream, &v)?;
    if !total.is_finite() {
        return Err("bad step".into());
    }
    Ok(())
}


/// Relaxed mode permits allocations, not a wait on the stream being captured.
fn fires_relaxed_capture_still_cannot_synchronize() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let axpy = module.load_function("axpy")?;
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;

    let mut x = stream.alloc_zeros::<f32>(N)?;
    let mut y = stream.alloc_zeros::<f32>(N)?;
    unsafe { stream.launch_builder(&fill).arg(&mut x).arg(&1.0f32).arg(&n).launch(cfg) }?;
    stream.synchronize()?;

    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED)?;
    unsafe { stream.launch_builder(&axpy).arg(&x).arg(&mut y).arg(&2.0f32).arg(&n).launch(cfg) }?;
    stream.synchronize()?;
    //~^ uncapturable_call
    unsafe { stream.launch_builder(&axpy).arg(&y).arg(&mut x).arg(&-0.5f32).arg(&n).launch(cfg) }?;
    let graph = stream.end_capture(sys::CUgraphInstantiate_flags(0))?.ok_or("capture recorded no work")?;

    graph.launch()?;
    stream.synchronize()?;
    let total = checksum(&ctx, &stream, &x)?;
    if !total.is_finite() {
        return Err("bad update".into());
    }
    Ok(())
}


/// A context-wide wait in the middle of the recorded work.
fn fires_context_synchronize_inside_capture() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let scale = module.load_function("scale")?;
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;

    let mut state = stream.alloc_zeros::<f32>(N)?;
    unsafe { stream.launch_builder(&fill).arg(&mut state).arg(&3.0f32).arg(&n).launch(cfg) }?;
    stream.synchronize()?;

    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    unsafe { stream.launch_builder(&scale).arg(&mut state).arg(&0.9f32).arg(&n).launch(cfg) }?;
    ctx.synchronize()?;
    //~^ uncapturable_call
    let graph = stream.end_capture(sys::CUgraphInstantiate_flags(0))?.ok_or("capture recorded no work")?;

    for _ in 0..STEPS {
        graph.launch()?;
    }
    stream.synchronize()?;
    let total = checksum(&ctx, &stream, &state)?;
    if !total.is_finite() {
        return Err("bad state".into());
    }
    Ok(())
}


/// A progress marker recorded inside the capture and waited on before the capture ends.
fn fires_event_recorded_in_capture_synchronized() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let scale = module.load_function("scale")?;
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;

    let mut x = stream.alloc_zeros::<f32>(N)?;
    unsafe { stream.launch_builder(&fill).arg(&mut x).arg(&1.0f32).arg(&n).launch(cfg) }?;
    stream.synchronize()?;
    let marker = ctx.new_event(None)?;

    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    unsafe { stream.launch_builder(&scale).arg(&mut x).arg(&2.0f32).arg(&n).launch(cfg) }?;
    marker.record(&stream)?;
    marker.synchronize()?;
    //~^ uncapturable_call
    unsafe { stream.launch_builder(&scale).arg(&mut x).arg(&0.25f32).arg(&n).launch(cfg) }?;
    let graph = stream.end_capture(sys::CUgraphInstantiate_flags(0))?.ok_or("capture recorded no work")?;

    graph.launch()?;
    stream.synchronize()?;
    let total = checksum(&ctx, &stream, &x)?;
    if !total.is_finite() {
        return Err("bad values".into());
    }
    Ok(())
}


/// The waits the first firing case wanted, placed where capture permits them.
fn ok_synchronize_before_begin_and_after_end() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let smooth = module.load_function("smooth")?;
    let scale = module.load_function("scale")?;
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;

    let mut u = stream.alloc_zeros::<f32>(N)?;
    let mut v = stream.alloc_zeros::<f32>(N)?;
    unsafe { stream.launch_builder(&fill).arg(&mut u).arg(&1.0f32).arg(&n).launch(cfg) }?;
    stream.synchronize()?;
    ctx.synchronize()?;

    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    unsafe { stream.launch_builder(&smooth).arg(&u).arg(&mut v).arg(&n).launch(cfg) }?;
    unsafe { stream.launch_builder(&scale).arg(&mut v).arg(&0.5f32).arg(&n).launch(cfg) }?;
    let graph = stream.end_capture(sys::CUgraphInstantiate_flags(0))?.ok_or("capture recorded no work")?;
    stream.synchronize()?;
    ctx.synchronize()?;

    graph.launch()?;
    stream.synchronize()?;
    let total = checksum(&ctx, &stream, &v)?;
    if !total.is_finite() {
        return Err("bad step".into());
    }
    Ok(())
}


/// Upload, compute and download recorded together, through pinned memory, in global mode.
fn ok_pinned_async_copies_inside_capture() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let scale = module.load_function("scale")?;
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;

    let mut dev = stream.alloc_zeros::<f32>(N)?;
    let mut upload = unsafe { ctx.alloc_pinned::<f32>(N) }?;
    let mut download = unsafe { ctx.alloc_pinned_with_flags::<f32>(N, 0) }?;
    for (i, v) in upload.as_mut_slice()?.iter_mut().enumerate() {
        *v = (i % 13) as f32;
    }
    stream.synchronize()?;

    // Errors are checked once the capture is closed, so no early return leaves it open.
    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    let uploaded = stream.memcpy_htod(&upload, &mut dev);
    let scaled = unsafe { stream.launch_builder(&scale).arg(&mut dev).arg(&0.5f32).arg(&n).launch(cfg) };
    let downloaded = stream.memcpy_dtoh(&dev, &mut download);
    let captured = stream.end_capture(sys::CUgraphInstantiate_flags(0));
    uploaded?;
    scaled?;
    downloaded?;
    let graph = captured?.ok_or("capture recorded no work")?;

    graph.launch()?;
    stream.synchronize()?;
    let total: f32 = download.as_slice()?.iter().sum();
    if !total.is_finite() {
        return Err("bad download".into());
    }
    Ok(())
}


/// Several kernels and a device-to-device copy recorded; all memory exists before the capture.
fn ok_kernel_pipeline_inside_capture() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let smooth = module.load_function("smooth")?;
    let scale = module.load_function("scale")?;
    let axpy = module.load_function("axpy")?;
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;

    let mut u = stream.alloc_zeros::<f32>(N)?;
    let mut tmp = stream.alloc_zeros::<f32>(N)?;
    let mut acc = stream.alloc_zeros::<f32>(N)?;
    unsafe { stream.launch_builder(&fill).arg(&mut u).arg(&1.0f32).arg(&n).launch(cfg) }?;
    stream.synchronize()?;

    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    unsafe { stream.launch_builder(&smooth).arg(&u).arg(&mut tmp).arg(&n).launch(cfg) }?;
    unsafe { stream.launch_builder(&scale).arg(&mut tmp).arg(&0.99f32).arg(&n).launch(cfg) }?;
    unsafe { stream.launch_builder(&axpy).arg(&tmp).arg(&mut acc).arg(&1.0f32).arg(&n).launch(cfg) }?;
    stream.memcpy_dtod(&tmp, &mut u)?;
    let graph = stream.end_capture(sys::CUgraphInstantiate_flags(0))?.ok_or("capture recorded no work")?;

    for _ in 0..STEPS {
        graph.launch()?;
    }
    stream.synchronize()?;
    let total = checksum(&ctx, &stream, &acc)?;
    if !total.is_finite() {
        return Err("bad accumulator".into());
    }
    Ok(())
}


/// Logging work on the legacy default stream while a non-blocking stream records: no implicit
/// dependency ties the two, and a kernel launch is not a call capture forbids.
fn ok_legacy_stream_kernel_while_nonblocking_stream_captures() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let legacy = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let scale = module.load_function("scale")?;
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;

    let mut state = stream.alloc_zeros::<f32>(N)?;
    let mut log = stream.alloc_zeros::<f32>(N)?;
    unsafe { stream.launch_builder(&fill).arg(&mut state).arg(&1.0f32).arg(&n).launch(cfg) }?;
    stream.synchronize()?;

    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    unsafe { stream.launch_builder(&scale).arg(&mut state).arg(&0.5f32).arg(&n).launch(cfg) }?;
    unsafe { legacy.launch_builder(&fill).arg(&mut log).arg(&7.0f32).arg(&n).launch(cfg) }?;
    let graph = stream.end_capture(sys::CUgraphInstantiate_flags(0))?.ok_or("capture recorded no work")?;

    legacy.synchronize()?;
    graph.launch()?;
    stream.synchronize()?;
    let total = checksum(&ctx, &stream, &state)? + checksum(&ctx, &stream, &log)?;
    if !total.is_finite() {
        return Err("bad state".into());
    }
    Ok(())
}

