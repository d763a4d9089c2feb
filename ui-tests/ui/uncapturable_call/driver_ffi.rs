//@no-rustfix
//! (This file holds the cases written through cudarc's `driver::result` and raw `driver::sys` calls; the list below, of the helper's
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


/// Raw driver capture with a raw wait on the capturing stream.
fn fires_raw_stream_synchronize_inside_raw_capture() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let smooth = module.load_function("smooth")?;
    let cs = stream.cu_stream();
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;

    let mut u = stream.alloc_zeros::<f32>(N)?;
    let mut tmp = stream.alloc_zeros::<f32>(N)?;
    unsafe { stream.launch_builder(&fill).arg(&mut u).arg(&1.0f32).arg(&n).launch(cfg) }?;
    stream.synchronize()?;

    let mut graph: sys::CUgraph = std::ptr::null_mut();
    let mut exec: sys::CUgraphExec = std::ptr::null_mut();
    let status: Result<(), DriverError> = 'run: {
        or_break!('run, unsafe { sys::cuStreamBeginCapture_v2(cs, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL) }.result());
        let forward = unsafe { stream.launch_builder(&smooth).arg(&u).arg(&mut tmp).arg(&n).launch(cfg) };
        let waited = unsafe { sys::cuStreamSynchronize(cs) }.result();
        //~^ uncapturable_call
        let back = unsafe { stream.launch_builder(&smooth).arg(&tmp).arg(&mut u).arg(&n).launch(cfg) };
        let ended = unsafe { sys::cuStreamEndCapture(cs, &mut graph) }.result();
        or_break!('run, forward);
        or_break!('run, waited);
        or_break!('run, back);
        or_break!('run, ended);
        or_break!('run, unsafe { sys::cuGraphInstantiateWithFlags(&mut exec, graph, 0) }.result());
        for _ in 0..STEPS {
            or_break!('run, unsafe { sys::cuGraphLaunch(exec, cs) }.result());
        }
        or_break!('run, stream.synchronize());
        Ok(())
    };

    let drained = stream.synchronize();
    let released = destroy_graph(exec, graph);
    status?;
    drained?;
    released?;
    let total = checksum(&ctx, &stream, &u)?;
    if !total.is_finite() {
        return Err("bad field".into());
    }
    Ok(())
}


/// Lazily allocates the smoother's temporary the first time the step is recorded.
fn fires_scratch_malloc_sync_inside_global_capture() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let smooth = module.load_function("smooth")?;
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;
    let bytes = N * std::mem::size_of::<f32>();

    let mut u = stream.alloc_zeros::<f32>(N)?;
    unsafe { stream.launch_builder(&fill).arg(&mut u).arg(&1.0f32).arg(&n).launch(cfg) }?;
    stream.synchronize()?;

    let mut d_tmp: sys::CUdeviceptr = 0;
    let status: Result<(), DriverError> = 'run: {
        // Errors are checked once the capture is closed, so no early return leaves it open.
        or_break!('run, stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL));
        let allocated = unsafe { result::malloc_sync(bytes) };
        //~^ uncapturable_call
        let recorded = match allocated {
            Ok(ptr) => {
                d_tmp = ptr;
                let forward = unsafe { stream.launch_builder(&smooth).arg(&u).arg(&d_tmp).arg(&n).launch(cfg) };
                let back = unsafe { stream.launch_builder(&smooth).arg(&d_tmp).arg(&mut u).arg(&n).launch(cfg) };
                forward.and(back)
            }
            Err(err) => Err(err),
        };
        let captured = stream.end_capture(sys::CUgraphInstantiate_flags(0));
        or_break!('run, recorded);
        let graph = match or_break!('run, captured) {
            Some(graph) => graph,
            None => break 'run Err(DriverError(sys::CUresult::CUDA_ERROR_INVALID_VALUE)),
        };
        for _ in 0..STEPS {
            or_break!('run, graph.launch());
        }
        or_break!('run, stream.synchronize());
        Ok(())
    };

    let drained = stream.synchronize();
    let mut released = Ok(());
    if d_tmp != 0 {
        released = unsafe { result::free_sync(d_tmp) };
    }
    status?;
    drained?;
    released?;
    let total = checksum(&ctx, &stream, &u)?;
    if !total.is_finite() {
        return Err("bad field".into());
    }
    Ok(())
}


/// Raw driver API: the begin is raw too, in global mode, and the workspace is allocated inside.
fn fires_raw_mem_alloc_inside_raw_global_capture() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let smooth = module.load_function("smooth")?;
    let cs = stream.cu_stream();
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;
    let bytes = N * std::mem::size_of::<f32>();

    let mut d_u: sys::CUdeviceptr = 0;
    let mut d_ws: sys::CUdeviceptr = 0;
    let mut graph: sys::CUgraph = std::ptr::null_mut();
    let mut exec: sys::CUgraphExec = std::ptr::null_mut();
    let status: Result<(), DriverError> = 'run: {
        or_break!('run, unsafe { sys::cuMemAlloc_v2(&mut d_u, bytes) }.result());
        or_break!('run, unsafe { stream.launch_builder(&fill).arg(&d_u).arg(&1.0f32).arg(&n).launch(cfg) });
        or_break!('run, stream.synchronize());

        or_break!('run, unsafe { sys::cuStreamBeginCapture_v2(cs, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL) }.result());
        let allocated = unsafe { sys::cuMemAlloc_v2(&mut d_ws, bytes) }.result();
        //~^ uncapturable_call
        let forward = unsafe { stream.launch_builder(&smooth).arg(&d_u).arg(&d_ws).arg(&n).launch(cfg) };
        let back = unsafe { stream.launch_builder(&smooth).arg(&d_ws).arg(&d_u).arg(&n).launch(cfg) };
        let ended = unsafe { sys::cuStreamEndCapture(cs, &mut graph) }.result();
        or_break!('run, allocated);
        or_break!('run, forward);
        or_break!('run, back);
        or_break!('run, ended);
        or_break!('run, unsafe { sys::cuGraphInstantiateWithFlags(&mut exec, graph, 0) }.result());
        for _ in 0..STEPS {
            or_break!('run, unsafe { sys::cuGraphLaunch(exec, cs) }.result());
        }
        or_break!('run, stream.synchronize());
        Ok(())
    };

    let drained = stream.synchronize();
    let mut released = destroy_graph(exec, graph);
    if d_ws != 0 {
        released = released.and(unsafe { sys::cuMemFree_v2(d_ws) }.result());
    }
    if d_u != 0 {
        released = released.and(unsafe { sys::cuMemFree_v2(d_u) }.result());
    }
    status?;
    drained?;
    released?;
    Ok(())
}


/// A readback buffer in page-locked memory, allocated while the step is being recorded.
fn fires_readback_malloc_host_inside_global_capture() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let scale = module.load_function("scale")?;
    let cs = stream.cu_stream();
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;
    let bytes = N * std::mem::size_of::<f32>();

    let mut d_x: sys::CUdeviceptr = 0;
    let mut h_out: *mut c_void = std::ptr::null_mut();
    let mut graph: sys::CUgraph = std::ptr::null_mut();
    let mut exec: sys::CUgraphExec = std::ptr::null_mut();
    let status: Result<f32, DriverError> = 'run: {
        d_x = or_break!('run, unsafe { result::malloc_sync(bytes) });
        or_break!('run, unsafe { stream.launch_builder(&fill).arg(&d_x).arg(&1.0f32).arg(&n).launch(cfg) });
        or_break!('run, stream.synchronize());

        or_break!('run, unsafe { sys::cuStreamBeginCapture_v2(cs, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL) }.result());
        let scaled = unsafe { stream.launch_builder(&scale).arg(&d_x).arg(&0.5f32).arg(&n).launch(cfg) };
        let allocated = unsafe { result::malloc_host(bytes, 0) };
        //~^ uncapturable_call
        let copied = match allocated {
            Ok(ptr) => {
                h_out = ptr;
                let out = unsafe { std::slice::from_raw_parts_mut(h_out as *mut f32, N) };
                unsafe { result::memcpy_dtoh_async(out, d_x, cs) }
            }
            Err(err) => Err(err),
        };
        let ended = unsafe { sys::cuStreamEndCapture(cs, &mut graph) }.result();
        or_break!('run, scaled);
        or_break!('run, copied);
        or_break!('run, ended);
        or_break!('run, unsafe { sys::cuGraphInstantiateWithFlags(&mut exec, graph, 0) }.result());
        or_break!('run, unsafe { sys::cuGraphLaunch(exec, cs) }.result());
        or_break!('run, stream.synchronize());
        let out = unsafe { std::slice::from_raw_parts(h_out as *const f32, N) };
        Ok(out.iter().sum())
    };

    let drained = stream.synchronize();
    let mut released = destroy_graph(exec, graph);
    if !h_out.is_null() {
        released = released.and(unsafe { result::free_host(h_out) });
    }
    if d_x != 0 {
        released = released.and(unsafe { result::free_sync(d_x) });
    }
    let total = status?;
    drained?;
    released?;
    if !total.is_finite() {
        return Err("bad readback".into());
    }
    Ok(())
}


/// The previous iterate is released while the next step is being recorded.
fn fires_previous_buffer_free_sync_inside_global_capture() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let smooth = module.load_function("smooth")?;
    let scale = module.load_function("scale")?;
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;
    let bytes = N * std::mem::size_of::<f32>();

    let mut d_prev: sys::CUdeviceptr = 0;
    let mut d_next: sys::CUdeviceptr = 0;
    let status: Result<(), DriverError> = 'run: {
        d_prev = or_break!('run, unsafe { result::malloc_sync(bytes) });
        d_next = or_break!('run, unsafe { result::malloc_sync(bytes) });
        or_break!('run, unsafe { stream.launch_builder(&fill).arg(&d_prev).arg(&1.0f32).arg(&n).launch(cfg) });
        or_break!('run, unsafe { stream.launch_builder(&smooth).arg(&d_prev).arg(&d_next).arg(&n).launch(cfg) });
        or_break!('run, stream.synchronize());

        or_break!('run, stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL));
        let freed = unsafe { result::free_sync(d_prev) };
        //~^ uncapturable_call
        if freed.is_ok() {
            d_prev = 0;
        }
        let scaled = unsafe { stream.launch_builder(&scale).arg(&d_next).arg(&0.5f32).arg(&n).launch(cfg) };
        let captured = stream.end_capture(sys::CUgraphInstantiate_flags(0));
        or_break!('run, freed);
        or_break!('run, scaled);
        let graph = match or_break!('run, captured) {
            Some(graph) => graph,
            None => break 'run Err(DriverError(sys::CUresult::CUDA_ERROR_INVALID_VALUE)),
        };
        for _ in 0..STEPS {
            or_break!('run, graph.launch());
        }
        or_break!('run, stream.synchronize());
        Ok(())
    };

    let drained = stream.synchronize();
    let mut released = Ok(());
    if d_prev != 0 {
        released = released.and(unsafe { result::free_sync(d_prev) });
    }
    if d_next != 0 {
        released = released.and(unsafe { result::free_sync(d_next) });
    }
    status?;
    drained?;
    released?;
    Ok(())
}


/// Polynomial coefficients uploaded with a blocking copy while the step is being recorded.
fn fires_blocking_coefficient_upload_inside_global_capture() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let poly = module.load_function("poly")?;
    let cs = stream.cu_stream();
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;

    let mut x = stream.alloc_zeros::<f32>(N)?;
    let coeffs = stream.alloc_zeros::<f32>(3)?;
    unsafe { stream.launch_builder(&fill).arg(&mut x).arg(&0.5f32).arg(&n).launch(cfg) }?;
    stream.synchronize()?;
    let host_coeffs = [0.1f32, 0.9, -0.05];
    let (d_coeffs, _coeffs_guard) = coeffs.device_ptr(&stream);

    let mut graph: sys::CUgraph = std::ptr::null_mut();
    let mut exec: sys::CUgraphExec = std::ptr::null_mut();
    let status: Result<(), DriverError> = 'run: {
        or_break!('run, unsafe { sys::cuStreamBeginCapture_v2(cs, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL) }.result());
        // Relabelled a near miss: the helper's own GPU run, and ours
        // (runtime/gpu-results/2026-11-27-capture-rules.md), showed a blocking copy beside a
        // non-blocking capturing stream is allowed, even in global mode.
        let uploaded = unsafe { sys::cuMemcpyHtoD_v2(d_coeffs, host_coeffs.as_ptr() as *const c_void, std::mem::size_of_val(&host_coeffs)) }.result();
        let evaluated = unsafe { stream.launch_builder(&poly).arg(&mut x).arg(&coeffs).arg(&n).launch(cfg) };
        let ended = unsafe { sys::cuStreamEndCapture(cs, &mut graph) }.result();
        or_break!('run, uploaded);
        or_break!('run, evaluated);
        or_break!('run, ended);
        or_break!('run, unsafe { sys::cuGraphInstantiateWithFlags(&mut exec, graph, 0) }.result());
        // The blocking copy from the stack array above ran eagerly on the legacy stream, which
        // returns once the data is staged: the launch on a non-blocking stream may read
        // `coeffs` first (missing_sync's documented rule).
        or_break!('run, unsafe { sys::cuGraphLaunch(exec, cs) }.result());
        //~^ missing_sync
        or_break!('run, stream.synchronize());
        Ok(())
    };

    let drained = stream.synchronize();
    let released = destroy_graph(exec, graph);
    status?;
    drained?;
    released?;
    let total = checksum(&ctx, &stream, &x)?;
    if !total.is_finite() {
        return Err("bad polynomial".into());
    }
    Ok(())
}


/// Thread-local mode forbids on this thread what global mode forbids: here a page-locked
/// buffer for the step's statistics, allocated while the step is being recorded.
fn fires_thread_local_capture_mem_alloc_host() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let axpy = module.load_function("axpy")?;
    let cs = stream.cu_stream();
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;
    let bytes = N * std::mem::size_of::<f32>();

    let mut grad = stream.alloc_zeros::<f32>(N)?;
    let mut acc = stream.alloc_zeros::<f32>(N)?;
    unsafe { stream.launch_builder(&fill).arg(&mut grad).arg(&0.01f32).arg(&n).launch(cfg) }?;
    stream.synchronize()?;

    let mut h_stats: *mut c_void = std::ptr::null_mut();
    let status: Result<f32, DriverError> = 'run: {
        or_break!('run, stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
        let accumulated = unsafe { stream.launch_builder(&axpy).arg(&grad).arg(&mut acc).arg(&1.0f32).arg(&n).launch(cfg) };
        let allocated = unsafe { sys::cuMemAllocHost_v2(&mut h_stats, bytes) }.result();
        //~^ uncapturable_call
        let copied = match allocated {
            Ok(()) => {
                let (d_acc, _acc_guard) = acc.device_ptr(&stream);
                let stats = unsafe { std::slice::from_raw_parts_mut(h_stats as *mut f32, N) };
                unsafe { result::memcpy_dtoh_async(stats, d_acc, cs) }
            }
            Err(err) => Err(err),
        };
        let captured = stream.end_capture(sys::CUgraphInstantiate_flags(0));
        or_break!('run, accumulated);
        or_break!('run, copied);
        let graph = match or_break!('run, captured) {
            Some(graph) => graph,
            None => break 'run Err(DriverError(sys::CUresult::CUDA_ERROR_INVALID_VALUE)),
        };
        for _ in 0..STEPS {
            or_break!('run, graph.launch());
        }
        or_break!('run, stream.synchronize());
        let stats = unsafe { std::slice::from_raw_parts(h_stats as *const f32, N) };
        Ok(stats.iter().sum())
    };

    let drained = stream.synchronize();
    let mut released = Ok(());
    if !h_stats.is_null() {
        released = unsafe { sys::cuMemFreeHost(h_stats) }.result();
    }
    let total = status?;
    drained?;
    released?;
    if !total.is_finite() {
        return Err("bad statistics".into());
    }
    Ok(())
}


// ---------------------------------------------------------------------------------------------
// Near misses
// ---------------------------------------------------------------------------------------------

/// Relaxed mode: the lazily allocated temporary is permitted inside the capture.
fn ok_relaxed_capture_allocates_scratch() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let smooth = module.load_function("smooth")?;
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;
    let bytes = N * std::mem::size_of::<f32>();

    let mut u = stream.alloc_zeros::<f32>(N)?;
    unsafe { stream.launch_builder(&fill).arg(&mut u).arg(&1.0f32).arg(&n).launch(cfg) }?;
    stream.synchronize()?;

    let mut d_tmp: sys::CUdeviceptr = 0;
    let status: Result<(), DriverError> = 'run: {
        or_break!('run, stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED));
        let allocated = unsafe { result::malloc_sync(bytes) };
        let recorded = match allocated {
            Ok(ptr) => {
                d_tmp = ptr;
                let forward = unsafe { stream.launch_builder(&smooth).arg(&u).arg(&d_tmp).arg(&n).launch(cfg) };
                let back = unsafe { stream.launch_builder(&smooth).arg(&d_tmp).arg(&mut u).arg(&n).launch(cfg) };
                forward.and(back)
            }
            Err(err) => Err(err),
        };
        let captured = stream.end_capture(sys::CUgraphInstantiate_flags(0));
        or_break!('run, recorded);
        let graph = match or_break!('run, captured) {
            Some(graph) => graph,
            None => break 'run Err(DriverError(sys::CUresult::CUDA_ERROR_INVALID_VALUE)),
        };
        for _ in 0..STEPS {
            or_break!('run, graph.launch());
        }
        or_break!('run, stream.synchronize());
        Ok(())
    };

    let drained = stream.synchronize();
    let mut released = Ok(());
    if d_tmp != 0 {
        released = unsafe { result::free_sync(d_tmp) };
    }
    status?;
    drained?;
    released?;
    let total = checksum(&ctx, &stream, &u)?;
    if !total.is_finite() {
        return Err("bad field".into());
    }
    Ok(())
}


/// Raw relaxed capture with a raw allocation inside it.
fn ok_raw_relaxed_capture_mem_alloc() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let smooth = module.load_function("smooth")?;
    let cs = stream.cu_stream();
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;
    let bytes = N * std::mem::size_of::<f32>();

    let mut d_u: sys::CUdeviceptr = 0;
    let mut d_ws: sys::CUdeviceptr = 0;
    let mut graph: sys::CUgraph = std::ptr::null_mut();
    let mut exec: sys::CUgraphExec = std::ptr::null_mut();
    let status: Result<(), DriverError> = 'run: {
        or_break!('run, unsafe { sys::cuMemAlloc_v2(&mut d_u, bytes) }.result());
        or_break!('run, unsafe { stream.launch_builder(&fill).arg(&d_u).arg(&1.0f32).arg(&n).launch(cfg) });
        or_break!('run, stream.synchronize());

        or_break!('run, unsafe { sys::cuStreamBeginCapture_v2(cs, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED) }.result());
        let allocated = unsafe { sys::cuMemAlloc_v2(&mut d_ws, bytes) }.result();
        let forward = unsafe { stream.launch_builder(&smooth).arg(&d_u).arg(&d_ws).arg(&n).launch(cfg) };
        let back = unsafe { stream.launch_builder(&smooth).arg(&d_ws).arg(&d_u).arg(&n).launch(cfg) };
        let ended = unsafe { sys::cuStreamEndCapture(cs, &mut graph) }.result();
        or_break!('run, allocated);
        or_break!('run, forward);
        or_break!('run, back);
        or_break!('run, ended);
        or_break!('run, unsafe { sys::cuGraphInstantiateWithFlags(&mut exec, graph, 0) }.result());
        for _ in 0..STEPS {
            or_break!('run, unsafe { sys::cuGraphLaunch(exec, cs) }.result());
        }
        or_break!('run, stream.synchronize());
        Ok(())
    };

    let drained = stream.synchronize();
    let mut released = destroy_graph(exec, graph);
    if d_ws != 0 {
        released = released.and(unsafe { sys::cuMemFree_v2(d_ws) }.result());
    }
    if d_u != 0 {
        released = released.and(unsafe { sys::cuMemFree_v2(d_u) }.result());
    }
    status?;
    drained?;
    released?;
    Ok(())
}


/// Raw driver API: the blocking upload and the waits happen outside the raw capture.
fn ok_raw_blocking_upload_before_capture() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let poly = module.load_function("poly")?;
    let cs = stream.cu_stream();
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;

    let mut x = stream.alloc_zeros::<f32>(N)?;
    let coeffs = stream.alloc_zeros::<f32>(3)?;
    unsafe { stream.launch_builder(&fill).arg(&mut x).arg(&0.5f32).arg(&n).launch(cfg) }?;
    stream.synchronize()?;
    let host_coeffs = [0.1f32, 0.9, -0.05];
    let (d_coeffs, _coeffs_guard) = coeffs.device_ptr(&stream);

    let mut graph: sys::CUgraph = std::ptr::null_mut();
    let mut exec: sys::CUgraphExec = std::ptr::null_mut();
    let status: Result<(), DriverError> = 'run: {
        or_break!('run, unsafe { sys::cuMemcpyHtoD_v2(d_coeffs, host_coeffs.as_ptr() as *const c_void, std::mem::size_of_val(&host_coeffs)) }.result());
        or_break!('run, unsafe { sys::cuStreamSynchronize(cs) }.result());
        or_break!('run, unsafe { sys::cuStreamBeginCapture_v2(cs, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL) }.result());
        let evaluated = unsafe { stream.launch_builder(&poly).arg(&mut x).arg(&coeffs).arg(&n).launch(cfg) };
        let ended = unsafe { sys::cuStreamEndCapture(cs, &mut graph) }.result();
        or_break!('run, evaluated);
        or_break!('run, ended);
        or_break!('run, unsafe { sys::cuCtxSynchronize() }.result());
        or_break!('run, unsafe { sys::cuGraphInstantiateWithFlags(&mut exec, graph, 0) }.result());
        or_break!('run, unsafe { sys::cuGraphLaunch(exec, cs) }.result());
        or_break!('run, stream.synchronize());
        Ok(())
    };

    let drained = stream.synchronize();
    let released = destroy_graph(exec, graph);
    status?;
    drained?;
    released?;
    let total = checksum(&ctx, &stream, &x)?;
    if !total.is_finite() {
        return Err("bad polynomial".into());
    }
    Ok(())
}


/// Raw driver API: page-locked staging allocated before the capture, copied from inside it.
fn ok_raw_pinned_async_copy_inside_capture() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let scale = module.load_function("scale")?;
    let cs = stream.cu_stream();
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;
    let bytes = N * std::mem::size_of::<f32>();

    let mut h_in: *mut c_void = std::ptr::null_mut();
    let mut d_x: sys::CUdeviceptr = 0;
    let mut graph: sys::CUgraph = std::ptr::null_mut();
    let mut exec: sys::CUgraphExec = std::ptr::null_mut();
    let status: Result<(), DriverError> = 'run: {
        h_in = or_break!('run, unsafe { result::malloc_host(bytes, 0) });
        d_x = or_break!('run, unsafe { result::malloc_sync(bytes) });
        let input = unsafe { std::slice::from_raw_parts_mut(h_in as *mut f32, N) };
        for (i, v) in input.iter_mut().enumerate() {
            *v = (i % 100) as f32;
        }

        or_break!('run, unsafe { sys::cuStreamBeginCapture_v2(cs, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL) }.result());
        let copied = unsafe { result::memcpy_htod_async(d_x, &input[..], cs) };
        let scaled = unsafe { stream.launch_builder(&scale).arg(&d_x).arg(&0.01f32).arg(&n).launch(cfg) };
        let ended = unsafe { sys::cuStreamEndCapture(cs, &mut graph) }.result();
        or_break!('run, copied);
        or_break!('run, scaled);
        or_break!('run, ended);
        or_break!('run, unsafe { sys::cuGraphInstantiateWithFlags(&mut exec, graph, 0) }.result());
        for _ in 0..STEPS {
            or_break!('run, unsafe { sys::cuGraphLaunch(exec, cs) }.result());
        }
        or_break!('run, stream.synchronize());
        Ok(())
    };

    let drained = stream.synchronize();
    let mut released = destroy_graph(exec, graph);
    if d_x != 0 {
        released = released.and(unsafe { result::free_sync(d_x) });
    }
    if !h_in.is_null() {
        released = released.and(unsafe { result::free_host(h_in) });
    }
    status?;
    drained?;
    released?;
    Ok(())
}


/// Stream-ordered allocation on the capturing stream: recorded as graph memory nodes.
fn ok_stream_ordered_scratch_inside_capture() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let smooth = module.load_function("smooth")?;
    let cs = stream.cu_stream();
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;
    let bytes = N * std::mem::size_of::<f32>();

    let mut u = stream.alloc_zeros::<f32>(N)?;
    unsafe { stream.launch_builder(&fill).arg(&mut u).arg(&1.0f32).arg(&n).launch(cfg) }?;
    stream.synchronize()?;

    // Errors are checked once the capture is closed, so no early return leaves it open.
    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    let recorded = match unsafe { result::malloc_async(cs, bytes) } {
        Ok(d_tmp) => {
            let forward = unsafe { stream.launch_builder(&smooth).arg(&u).arg(&d_tmp).arg(&n).launch(cfg) };
            let back = unsafe { stream.launch_builder(&smooth).arg(&d_tmp).arg(&mut u).arg(&n).launch(cfg) };
            let freed = unsafe { result::free_async(d_tmp, cs) };
            forward.and(back).and(freed)
        }
        Err(err) => Err(err),
    };
    let captured = stream.end_capture(sys::CUgraphInstantiate_flags(0));
    recorded?;
    let graph = captured?.ok_or("capture recorded no work")?;

    for _ in 0..STEPS {
        graph.launch()?;
    }
    stream.synchronize()?;
    let total = checksum(&ctx, &stream, &u)?;
    if !total.is_finite() {
        return Err("bad field".into());
    }
    Ok(())
}


/// Global mode with every allocation made before the begin and freed after the graph is gone.
fn ok_allocations_before_capture_frees_after() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let scale = module.load_function("scale")?;
    let cs = stream.cu_stream();
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;
    let bytes = N * std::mem::size_of::<f32>();

    let mut d_x: sys::CUdeviceptr = 0;
    let mut h_out: *mut c_void = std::ptr::null_mut();
    let status: Result<f32, DriverError> = 'run: {
        d_x = or_break!('run, unsafe { result::malloc_sync(bytes) });
        h_out = or_break!('run, unsafe { result::malloc_host(bytes, 0) });
        or_break!('run, unsafe { stream.launch_builder(&fill).arg(&d_x).arg(&1.0f32).arg(&n).launch(cfg) });
        or_break!('run, stream.synchronize());

        or_break!('run, stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL));
        let scaled = unsafe { stream.launch_builder(&scale).arg(&d_x).arg(&0.5f32).arg(&n).launch(cfg) };
        let out = unsafe { std::slice::from_raw_parts_mut(h_out as *mut f32, N) };
        let copied = unsafe { result::memcpy_dtoh_async(out, d_x, cs) };
        let captured = stream.end_capture(sys::CUgraphInstantiate_flags(0));
        or_break!('run, scaled);
        or_break!('run, copied);
        let graph = match or_break!('run, captured) {
            Some(graph) => graph,
            None => break 'run Err(DriverError(sys::CUresult::CUDA_ERROR_INVALID_VALUE)),
        };
        or_break!('run, graph.launch());
        or_break!('run, stream.synchronize());
        drop(graph);
        let out = unsafe { std::slice::from_raw_parts(h_out as *const f32, N) };
        Ok(out.iter().sum())
    };

    let drained = stream.synchronize();
    let mut released = Ok(());
    if !h_out.is_null() {
        released = released.and(unsafe { result::free_host(h_out) });
    }
    if d_x != 0 {
        released = released.and(unsafe { result::free_sync(d_x) });
    }
    let total = status?;
    drained?;
    released?;
    if !total.is_finite() {
        return Err("bad readback".into());
    }
    Ok(())
}

