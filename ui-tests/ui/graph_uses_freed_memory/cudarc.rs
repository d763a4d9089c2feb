//@no-rustfix
//! (This file holds the cases written through cudarc's safe graph API; the list below, of the helper's
//! original file, covers this file and its sibling. Case names carry `fires_`/`ok_`.)
//!
//! `graph_uses_freed_memory`: a CUDA graph launched after memory that its captured work reads
//! or writes was released. Capture records addresses, not data: every launch runs the recorded
//! kernels and copies again on the memory they named when they were captured.
//!
//! Fires (one finding each, at the first launch after the release):
//! - `forcing_dropped_before_replay`: the input of a captured kernel, a `CudaSlice`, is
//!   `drop`ped once the graph exists, then the graph is launched.
//! - `stencil_temporary_scoped_to_capture_block`: the captured stencil's temporary is a local
//!   of the block that builds the graph; it is freed at the block's end, before the launch.
//! - `pinned_staging_dropped_after_capture`: the pinned (`PinnedHostSlice`) source of a captured
//!   host-to-device copy is dropped before the launch.
//! - `snapshot_readback_buffer_scoped_to_builder`: the pinned destination of a captured
//!   device-to-host copy is a local of the builder block, freed before the launch.
//! - `raw_temporary_freed_after_instantiate`: `result::free_sync` of the captured smoother's
//!   temporary right after `cuGraphInstantiateWithFlags`, then `sys::cuGraphLaunch` in a loop.
//! - `raw_input_freed_after_warmup`: `sys::cuMemFree_v2` of the captured `axpy`'s input after a
//!   warm-up launch, then `sys::cuGraphLaunch` again.
//! - `raw_pinned_source_freed_host`: `result::free_host` of the pinned source of a captured
//!   `result::memcpy_htod_async`, then `sys::cuGraphLaunch`.
//! - `residual_released_by_helper`: a helper that waits and then drops the captured kernel's
//!   output buffer, called before `graph.launch()`.
//! - `raw_bias_released_by_helper`: a helper that calls `result::free_sync` on the raw bias a
//!   cudarc-captured kernel reads, called before `graph.launch()`.
//! - `optimizer_workspace_dropped`: a struct whose `CudaSlice` field (the momentum) the graph
//!   uses is dropped before the replay loop.
//!
//! Near misses (no finding):
//! - `field_freed_after_last_replay`: buffers freed after the last launch and `stream.synchronize()`.
//! - `graph_dropped_before_buffers`: the graph is dropped (after a synchronize) before the memory it
//!   uses, and never launched again.
//! - `recaptured_after_resize`: the buffer is reallocated, the graph re-captured on the new buffer,
//!   and only the new graph is launched.
//! - `preprocessing_scratch_freed`: memory used only before the capture (not by the graph) is freed
//!   before the launches.
//! - `raw_freed_after_exec_destroy`: `result::free_sync` after the last `cuGraphLaunch`, a
//!   synchronize and `cuGraphExecDestroy`.
//! - `raw_seed_buffer_freed_before_launch`: `sys::cuMemFree_v2` of a buffer the graph does not use
//!   (it only seeded the state before the capture), then `sys::cuGraphLaunch`.
//! - `pinned_staging_refilled_between_replays`: the pinned source of a captured copy is refilled
//!   between launches after a synchronize, and freed after the last one.
//! - `raw_pinned_freed_after_exec_destroy`: `result::free_host` of a captured copy's source after
//!   `cuGraphExecDestroy`, with no launch in between.
//! - `eval_graph_retired_train_graph_continues`: one graph and its buffers are released; another
//!   graph, which uses none of them, goes on launching.
//! - `replay_struct_drops_graph_first`: a struct holding the graph before its buffers is dropped
//!   after a synchronize (fields drop in declaration order).

use std::error::Error;
use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::{sys, CudaContext, CudaGraph, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
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

extern "C" __global__ void add_bias(float *x, const float *bias, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += bias[i];
}
"#;

const N: usize = 1 << 16;
const STEPS: usize = 8;

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

/// Waits for the work that may still use `buf`, then hands its memory back.
fn release_residual(stream: &Arc<CudaStream>, buf: CudaSlice<f32>) -> Result<(), DriverError> {
    stream.synchronize()?;
    drop(buf);
    Ok(())
}

/// Frees raw device memory (the caller has synchronized).
fn release_device(ptr: sys::CUdeviceptr) -> Result<(), DriverError> {
    unsafe { result::free_sync(ptr) }
}

/// Copies `buf` back through pinned memory that is not write-combined and sums it.
fn checksum(ctx: &Arc<CudaContext>, stream: &Arc<CudaStream>, buf: &CudaSlice<f32>) -> Result<f32, DriverError> {
    let mut host = unsafe { ctx.alloc_pinned_with_flags::<f32>(buf.len(), 0) }?;
    stream.memcpy_dtoh(buf, &mut host)?;
    stream.synchronize()?;
    Ok(host.as_slice()?.iter().sum())
}

/// Optimizer state kept together; the workspace goes out before the replay loop.
struct Workspace {
    momentum: CudaSlice<f32>,
    beta: f32,
    lr: f32,
}

/// A recorded step that owns its graph and buffers; the graph field is declared (and dropped) first.
struct Replay {
    graph: CudaGraph,
    state: CudaSlice<f32>,
    tmp: CudaSlice<f32>,
}


// ---------------------------------------------------------------------------------------------
// Firing
// ---------------------------------------------------------------------------------------------

/// Explicit Euler steps of `field += dt * forcing`, recorded once and replayed.
fn fires_forcing_dropped_before_replay() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    // One stream, synchronized by hand: cudarc's per-buffer events are not wanted in a graph.
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let axpy = module.load_function("axpy")?;
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;
    let dt = 0.01f32;

    let mut forcing = stream.alloc_zeros::<f32>(N)?;
    let mut field = stream.alloc_zeros::<f32>(N)?;
    unsafe { stream.launch_builder(&fill).arg(&mut forcing).arg(&0.5f32).arg(&n).launch(cfg) }?;
    stream.synchronize()?;

    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    unsafe { stream.launch_builder(&axpy).arg(&forcing).arg(&mut field).arg(&dt).arg(&n).launch(cfg) }?;
    let graph = stream.end_capture(sys::CUgraphInstantiate_flags(0))?.ok_or("capture recorded no work")?;

    // The author believed the graph kept its own copy of the forcing term.
    drop(forcing);
    for _ in 0..STEPS {
        graph.launch()?;
        //~^ graph_uses_freed_memory
    }
    stream.synchronize()?;
    let total = checksum(&ctx, &stream, &field)?;
    if !total.is_finite() {
        return Err("field diverged".into());
    }
    Ok(())
}


/// A smoothing pass whose temporary lives in the block that records the graph.
fn fires_stencil_temporary_scoped_to_capture_block() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let smooth = module.load_function("smooth")?;
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;

    let mut u = stream.alloc_zeros::<f32>(N)?;
    unsafe { stream.launch_builder(&fill).arg(&mut u).arg(&1.0f32).arg(&n).launch(cfg) }?;
    stream.synchronize()?;

    let graph = {
        let mut tmp = stream.alloc_zeros::<f32>(N)?;
        stream.synchronize()?;
        stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
        unsafe { stream.launch_builder(&smooth).arg(&u).arg(&mut tmp).arg(&n).launch(cfg) }?;
        stream.memcpy_dtod(&tmp, &mut u)?;
        stream.end_capture(sys::CUgraphInstantiate_flags(0))?.ok_or("capture recorded no work")?
    };

    graph.launch()?;
    //~^ graph_uses_freed_memory
    stream.synchronize()?;
    let total = checksum(&ctx, &stream, &u)?;
    if !total.is_finite() {
        return Err("smoothing diverged".into());
    }
    Ok(())
}


/// Uploads layer weights from a pinned staging buffer inside the graph, then rescales them.
fn fires_pinned_staging_dropped_after_capture() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let scale = module.load_function("scale")?;
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;

    let mut weights = stream.alloc_zeros::<f32>(N)?;
    let mut staging = unsafe { ctx.alloc_pinned::<f32>(N) }?;
    for (i, w) in staging.as_mut_slice()?.iter_mut().enumerate() {
        *w = ((i % 31) as f32 - 15.0) * 0.02;
    }
    stream.synchronize()?;

    // Errors are checked once the capture is closed, so no early return leaves it open.
    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    let copied = stream.memcpy_htod(&staging, &mut weights);
    let scaled = unsafe { stream.launch_builder(&scale).arg(&mut weights).arg(&0.5f32).arg(&n).launch(cfg) };
    let captured = stream.end_capture(sys::CUgraphInstantiate_flags(0));
    copied?;
    scaled?;
    let graph = captured?.ok_or("capture recorded no work")?;

    drop(staging);
    graph.launch()?;
    //~^ graph_uses_freed_memory
    stream.synchronize()?;
    let total = checksum(&ctx, &stream, &weights)?;
    if !total.is_finite() {
        return Err("bad weights".into());
    }
    Ok(())
}


/// Records a step plus a snapshot of its state into pinned memory local to the builder block.
fn fires_snapshot_readback_buffer_scoped_to_builder() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let scale = module.load_function("scale")?;
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;

    let mut state = stream.alloc_zeros::<f32>(N)?;
    unsafe { stream.launch_builder(&fill).arg(&mut state).arg(&2.0f32).arg(&n).launch(cfg) }?;
    stream.synchronize()?;

    let graph = {
        let mut snapshot = unsafe { ctx.alloc_pinned_with_flags::<f32>(N, 0) }?;
        stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
        let decayed = unsafe { stream.launch_builder(&scale).arg(&mut state).arg(&0.9f32).arg(&n).launch(cfg) };
        let copied = stream.memcpy_dtoh(&state, &mut snapshot);
        let captured = stream.end_capture(sys::CUgraphInstantiate_flags(0));
        decayed?;
        copied?;
        captured?.ok_or("capture recorded no work")?
    };

    graph.launch()?;
    //~^ graph_uses_freed_memory
    stream.synchronize()?;
    let total = checksum(&ctx, &stream, &state)?;
    if !total.is_finite() {
        return Err("bad state".into());
    }
    Ok(())
}


/// A residual update whose output buffer is handed back by a helper before the replay.
fn fires_residual_released_by_helper() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let axpy = module.load_function("axpy")?;
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;

    let mut solution = stream.alloc_zeros::<f32>(N)?;
    let mut residual = stream.alloc_zeros::<f32>(N)?;
    unsafe { stream.launch_builder(&fill).arg(&mut solution).arg(&1.0f32).arg(&n).launch(cfg) }?;
    stream.synchronize()?;

    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    unsafe { stream.launch_builder(&axpy).arg(&solution).arg(&mut residual).arg(&-1.0f32).arg(&n).launch(cfg) }?;
    let graph = stream.end_capture(sys::CUgraphInstantiate_flags(0))?.ok_or("capture recorded no work")?;

    release_residual(&stream, residual)?;
    graph.launch()?;
    //~^ graph_uses_freed_memory
    stream.synchronize()?;
    let total = checksum(&ctx, &stream, &solution)?;
    if !total.is_finite() {
        return Err("bad solution".into());
    }
    Ok(())
}


fn fires_optimizer_workspace_dropped() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let scale = module.load_function("scale")?;
    let axpy = module.load_function("axpy")?;
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;

    let mut params = stream.alloc_zeros::<f32>(N)?;
    let mut grad = stream.alloc_zeros::<f32>(N)?;
    let mut ws = Workspace { momentum: stream.alloc_zeros::<f32>(N)?, beta: 0.9, lr: 0.1 };
    unsafe { stream.launch_builder(&fill).arg(&mut params).arg(&1.0f32).arg(&n).launch(cfg) }?;
    unsafe { stream.launch_builder(&fill).arg(&mut grad).arg(&0.01f32).arg(&n).launch(cfg) }?;
    stream.synchronize()?;

    // momentum = beta * momentum + grad; params -= lr * momentum
    let step = -ws.lr;
    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    unsafe { stream.launch_builder(&scale).arg(&mut ws.momentum).arg(&ws.beta).arg(&n).launch(cfg) }?;
    unsafe { stream.launch_builder(&axpy).arg(&grad).arg(&mut ws.momentum).arg(&1.0f32).arg(&n).launch(cfg) }?;
    unsafe { stream.launch_builder(&axpy).arg(&ws.momentum).arg(&mut params).arg(&step).arg(&n).launch(cfg) }?;
    let graph = stream.end_capture(sys::CUgraphInstantiate_flags(0))?.ok_or("capture recorded no work")?;

    drop(ws);
    for _ in 0..STEPS {
        graph.launch()?;
        //~^ graph_uses_freed_memory
    }
    stream.synchronize()?;
    let total = checksum(&ctx, &stream, &params)?;
    if !total.is_finite() {
        return Err("optimizer diverged".into());
    }
    Ok(())
}


// ---------------------------------------------------------------------------------------------
// Near misses
// ---------------------------------------------------------------------------------------------

/// The Euler loop again, with the buffers released once the last replay is done.
fn ok_field_freed_after_last_replay() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let axpy = module.load_function("axpy")?;
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;

    let mut forcing = stream.alloc_zeros::<f32>(N)?;
    let mut field = stream.alloc_zeros::<f32>(N)?;
    unsafe { stream.launch_builder(&fill).arg(&mut forcing).arg(&0.5f32).arg(&n).launch(cfg) }?;
    stream.synchronize()?;

    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    unsafe { stream.launch_builder(&axpy).arg(&forcing).arg(&mut field).arg(&0.01f32).arg(&n).launch(cfg) }?;
    let graph = stream.end_capture(sys::CUgraphInstantiate_flags(0))?.ok_or("capture recorded no work")?;

    for _ in 0..STEPS {
        graph.launch()?;
    }
    stream.synchronize()?;
    drop(forcing);
    let total = checksum(&ctx, &stream, &field)?;
    drop(field);
    if !total.is_finite() {
        return Err("field diverged".into());
    }
    Ok(())
}


/// The graph goes first, then its memory; the stream keeps working on other memory.
fn ok_graph_dropped_before_buffers() -> Result<(), Box<dyn Error>> {
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
    let mut tmp = stream.alloc_zeros::<f32>(N)?;
    unsafe { stream.launch_builder(&fill).arg(&mut u).arg(&1.0f32).arg(&n).launch(cfg) }?;
    stream.synchronize()?;

    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    unsafe { stream.launch_builder(&smooth).arg(&u).arg(&mut tmp).arg(&n).launch(cfg) }?;
    stream.memcpy_dtod(&tmp, &mut u)?;
    let graph = stream.end_capture(sys::CUgraphInstantiate_flags(0))?.ok_or("capture recorded no work")?;
    for _ in 0..STEPS {
        graph.launch()?;
    }
    stream.synchronize()?;
    let smoothed = checksum(&ctx, &stream, &u)?;

    drop(graph);
    drop(tmp);
    drop(u);

    // The stream goes on with memory the graph never saw.
    let mut report = stream.alloc_zeros::<f32>(N)?;
    unsafe { stream.launch_builder(&fill).arg(&mut report).arg(&smoothed).arg(&n).launch(cfg) }?;
    unsafe { stream.launch_builder(&scale).arg(&mut report).arg(&0.5f32).arg(&n).launch(cfg) }?;
    stream.synchronize()?;
    let total = checksum(&ctx, &stream, &report)?;
    if !total.is_finite() {
        return Err("bad report".into());
    }
    Ok(())
}


/// A growing problem: the buffer is reallocated and the graph recorded again on the new one.
fn ok_recaptured_after_resize() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let scale = module.load_function("scale")?;

    let mut len = N / 2;
    let mut state = stream.alloc_zeros::<f32>(len)?;
    let cfg = LaunchConfig::for_num_elems(len as u32);
    let n = len as i32;
    unsafe { stream.launch_builder(&fill).arg(&mut state).arg(&1.0f32).arg(&n).launch(cfg) }?;
    stream.synchronize()?;

    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    unsafe { stream.launch_builder(&scale).arg(&mut state).arg(&0.5f32).arg(&n).launch(cfg) }?;
    let mut graph = stream.end_capture(sys::CUgraphInstantiate_flags(0))?.ok_or("capture recorded no work")?;
    graph.launch()?;
    stream.synchronize()?;

    // The problem doubled: new state, new graph; the old graph is replaced before any launch.
    len *= 2;
    let cfg = LaunchConfig::for_num_elems(len as u32);
    let n = len as i32;
    state = stream.alloc_zeros::<f32>(len)?;
    unsafe { stream.launch_builder(&fill).arg(&mut state).arg(&1.0f32).arg(&n).launch(cfg) }?;
    stream.synchronize()?;
    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    unsafe { stream.launch_builder(&scale).arg(&mut state).arg(&0.5f32).arg(&n).launch(cfg) }?;
    graph = stream.end_capture(sys::CUgraphInstantiate_flags(0))?.ok_or("capture recorded no work")?;

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


/// A scratch buffer used to build the initial condition, before the capture, is freed early.
fn ok_preprocessing_scratch_freed() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let smooth = module.load_function("smooth")?;
    let scale = module.load_function("scale")?;
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;

    let mut field = stream.alloc_zeros::<f32>(N)?;
    let mut raw = stream.alloc_zeros::<f32>(N)?;
    unsafe { stream.launch_builder(&fill).arg(&mut raw).arg(&3.0f32).arg(&n).launch(cfg) }?;
    unsafe { stream.launch_builder(&smooth).arg(&raw).arg(&mut field).arg(&n).launch(cfg) }?;
    stream.synchronize()?;
    drop(raw);

    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    unsafe { stream.launch_builder(&scale).arg(&mut field).arg(&0.99f32).arg(&n).launch(cfg) }?;
    let graph = stream.end_capture(sys::CUgraphInstantiate_flags(0))?.ok_or("capture recorded no work")?;
    for _ in 0..STEPS {
        graph.launch()?;
    }
    stream.synchronize()?;
    let total = checksum(&ctx, &stream, &field)?;
    if !total.is_finite() {
        return Err("bad field".into());
    }
    Ok(())
}


/// Streaming batches through one pinned staging buffer that a captured copy reads: each refill
/// waits for the launch before it.
fn ok_pinned_staging_refilled_between_replays() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let scale = module.load_function("scale")?;
    let axpy = module.load_function("axpy")?;
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;

    let mut batch = stream.alloc_zeros::<f32>(N)?;
    let mut acc = stream.alloc_zeros::<f32>(N)?;
    let mut staging = unsafe { ctx.alloc_pinned::<f32>(N) }?;
    for v in staging.as_mut_slice()?.iter_mut() {
        *v = 1.0;
    }
    stream.synchronize()?;

    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    let copied = stream.memcpy_htod(&staging, &mut batch);
    let normalized = unsafe { stream.launch_builder(&scale).arg(&mut batch).arg(&0.5f32).arg(&n).launch(cfg) };
    let accumulated = unsafe { stream.launch_builder(&axpy).arg(&batch).arg(&mut acc).arg(&1.0f32).arg(&n).launch(cfg) };
    let captured = stream.end_capture(sys::CUgraphInstantiate_flags(0));
    copied?;
    normalized?;
    accumulated?;
    let graph = captured?.ok_or("capture recorded no work")?;

    for batch_no in 0..STEPS {
        graph.launch()?;
        stream.synchronize()?;
        for (i, v) in staging.as_mut_slice()?.iter_mut().enumerate() {
            *v = (batch_no + i % 7) as f32;
        }
    }
    graph.launch()?;
    stream.synchronize()?;
    let total = checksum(&ctx, &stream, &acc)?;
    drop(graph);
    drop(staging);
    if !total.is_finite() {
        return Err("bad accumulator".into());
    }
    Ok(())
}


/// Training and evaluation graphs: evaluation is retired with its buffers, training goes on.
fn ok_eval_graph_retired_train_graph_continues() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let scale = module.load_function("scale")?;
    let smooth = module.load_function("smooth")?;
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;

    let mut params = stream.alloc_zeros::<f32>(N)?;
    let mut eval_out = stream.alloc_zeros::<f32>(N)?;
    unsafe { stream.launch_builder(&fill).arg(&mut params).arg(&1.0f32).arg(&n).launch(cfg) }?;
    stream.synchronize()?;

    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    unsafe { stream.launch_builder(&scale).arg(&mut params).arg(&0.999f32).arg(&n).launch(cfg) }?;
    let train = stream.end_capture(sys::CUgraphInstantiate_flags(0))?.ok_or("capture recorded no work")?;

    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    unsafe { stream.launch_builder(&smooth).arg(&params).arg(&mut eval_out).arg(&n).launch(cfg) }?;
    let eval = stream.end_capture(sys::CUgraphInstantiate_flags(0))?.ok_or("capture recorded no work")?;

    train.launch()?;
    eval.launch()?;
    stream.synchronize()?;
    let score = checksum(&ctx, &stream, &eval_out)?;

    // Evaluation is over for this run: its graph, then its output buffer.
    drop(eval);
    drop(eval_out);
    for _ in 0..STEPS {
        train.launch()?;
    }
    stream.synchronize()?;
    let total = checksum(&ctx, &stream, &params)?;
    if !(score.is_finite() && total.is_finite()) {
        return Err("training diverged".into());
    }
    Ok(())
}


fn ok_replay_struct_drops_graph_first() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let smooth = module.load_function("smooth")?;
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;

    let mut state = stream.alloc_zeros::<f32>(N)?;
    let mut tmp = stream.alloc_zeros::<f32>(N)?;
    unsafe { stream.launch_builder(&fill).arg(&mut state).arg(&1.0f32).arg(&n).launch(cfg) }?;
    stream.synchronize()?;

    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    unsafe { stream.launch_builder(&smooth).arg(&state).arg(&mut tmp).arg(&n).launch(cfg) }?;
    stream.memcpy_dtod(&tmp, &mut state)?;
    let graph = stream.end_capture(sys::CUgraphInstantiate_flags(0))?.ok_or("capture recorded no work")?;

    let replay = Replay { graph, state, tmp };
    for _ in 0..STEPS {
        replay.graph.launch()?;
    }
    stream.synchronize()?;
    let total = checksum(&ctx, &stream, &replay.state)?;
    if replay.tmp.len() != replay.state.len() {
        return Err("mismatched buffers".into());
    }
    drop(replay);
    if !total.is_finite() {
        return Err("bad state".into());
    }
    Ok(())
}

