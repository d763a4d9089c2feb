//@no-rustfix
//! (This file holds the cases written through cudarc's `driver::result` and raw `driver::sys` calls; the list below, of the helper's
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


/// Raw driver API: two smoothing sweeps through a temporary, freed once the graph is instantiated.
fn fires_raw_temporary_freed_after_instantiate() -> Result<(), Box<dyn Error>> {
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
    let mut d_tmp: sys::CUdeviceptr = 0;
    let mut graph: sys::CUgraph = std::ptr::null_mut();
    let mut exec: sys::CUgraphExec = std::ptr::null_mut();
    let status: Result<(), DriverError> = 'run: {
        d_u = or_break!('run, unsafe { result::malloc_sync(bytes) });
        d_tmp = or_break!('run, unsafe { result::malloc_sync(bytes) });
        or_break!('run, unsafe { stream.launch_builder(&fill).arg(&d_u).arg(&1.0f32).arg(&n).launch(cfg) });
        or_break!('run, stream.synchronize());

        or_break!('run, unsafe { sys::cuStreamBeginCapture_v2(cs, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL) }.result());
        let forward = unsafe { stream.launch_builder(&smooth).arg(&d_u).arg(&d_tmp).arg(&n).launch(cfg) };
        let back = unsafe { stream.launch_builder(&smooth).arg(&d_tmp).arg(&d_u).arg(&n).launch(cfg) };
        let ended = unsafe { sys::cuStreamEndCapture(cs, &mut graph) }.result();
        or_break!('run, forward);
        or_break!('run, back);
        or_break!('run, ended);
        or_break!('run, unsafe { sys::cuGraphInstantiateWithFlags(&mut exec, graph, 0) }.result());

        // "The executable graph is self-contained now": the temporary is given back early.
        or_break!('run, unsafe { result::free_sync(d_tmp) });
        d_tmp = 0;
        for _ in 0..STEPS {
            or_break!('run, unsafe { sys::cuGraphLaunch(exec, cs) }.result());
            //~^ graph_uses_freed_memory
        }
        or_break!('run, stream.synchronize());
        Ok(())
    };

    // Cleanup, on every path: wait, then release in reverse order.
    let drained = stream.synchronize();
    let mut released = destroy_graph(exec, graph);
    if d_tmp != 0 {
        released = released.and(unsafe { result::free_sync(d_tmp) });
    }
    if d_u != 0 {
        released = released.and(unsafe { result::free_sync(d_u) });
    }
    status?;
    drained?;
    released?;
    Ok(())
}


/// Raw driver API: `y += a * x` recorded once; `x` is freed after a warm-up launch.
fn fires_raw_input_freed_after_warmup() -> Result<(), Box<dyn Error>> {
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

    let mut d_x: sys::CUdeviceptr = 0;
    let mut d_y: sys::CUdeviceptr = 0;
    let mut graph: sys::CUgraph = std::ptr::null_mut();
    let mut exec: sys::CUgraphExec = std::ptr::null_mut();
    let status: Result<(), DriverError> = 'run: {
        or_break!('run, unsafe { sys::cuMemAlloc_v2(&mut d_x, bytes) }.result());
        or_break!('run, unsafe { sys::cuMemAlloc_v2(&mut d_y, bytes) }.result());
        or_break!('run, unsafe { stream.launch_builder(&fill).arg(&d_x).arg(&1.0f32).arg(&n).launch(cfg) });
        or_break!('run, unsafe { stream.launch_builder(&fill).arg(&d_y).arg(&0.0f32).arg(&n).launch(cfg) });
        or_break!('run, stream.synchronize());

        or_break!('run, unsafe { sys::cuStreamBeginCapture_v2(cs, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL) }.result());
        let recorded = unsafe { stream.launch_builder(&axpy).arg(&d_x).arg(&d_y).arg(&0.25f32).arg(&n).launch(cfg) };
        let ended = unsafe { sys::cuStreamEndCapture(cs, &mut graph) }.result();
        or_break!('run, recorded);
        or_break!('run, ended);
        or_break!('run, unsafe { sys::cuGraphInstantiateWithFlags(&mut exec, graph, 0) }.result());

        // Warm-up launch, then `x` is released on the belief that the graph is now resident.
        or_break!('run, unsafe { sys::cuGraphLaunch(exec, cs) }.result());
        or_break!('run, stream.synchronize());
        or_break!('run, unsafe { sys::cuMemFree_v2(d_x) }.result());
        d_x = 0;
        or_break!('run, unsafe { sys::cuGraphLaunch(exec, cs) }.result());
        //~^ graph_uses_freed_memory
        or_break!('run, stream.synchronize());
        Ok(())
    };

    let drained = stream.synchronize();
    let mut released = destroy_graph(exec, graph);
    if d_x != 0 {
        released = released.and(unsafe { sys::cuMemFree_v2(d_x) }.result());
    }
    if d_y != 0 {
        released = released.and(unsafe { sys::cuMemFree_v2(d_y) }.result());
    }
    status?;
    drained?;
    released?;
    Ok(())
}


/// Raw driver API: a captured upload from page-locked memory; the page-locked buffer is freed.
fn fires_raw_pinned_source_freed_host() -> Result<(), Box<dyn Error>> {
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

        // The input was "consumed" by the capture, or so the author thought.
        or_break!('run, unsafe { result::free_host(h_in) });
        h_in = std::ptr::null_mut();
        or_break!('run, unsafe { sys::cuGraphLaunch(exec, cs) }.result());
        //~^ graph_uses_freed_memory
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


/// A bias kept in raw memory; a helper frees it between the capture and the replay.
fn fires_raw_bias_released_by_helper() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let add_bias = module.load_function("add_bias")?;
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;
    let bytes = N * std::mem::size_of::<f32>();

    let mut activations = stream.alloc_zeros::<f32>(N)?;
    let mut d_bias: sys::CUdeviceptr = 0;
    let status: Result<(), DriverError> = 'run: {
        d_bias = or_break!('run, unsafe { result::malloc_sync(bytes) });
        or_break!('run, unsafe { stream.launch_builder(&fill).arg(&d_bias).arg(&0.1f32).arg(&n).launch(cfg) });
        or_break!('run, stream.synchronize());

        or_break!('run, stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL));
        let biased = unsafe { stream.launch_builder(&add_bias).arg(&mut activations).arg(&d_bias).arg(&n).launch(cfg) };
        let captured = stream.end_capture(sys::CUgraphInstantiate_flags(0));
        or_break!('run, biased);
        let graph = match or_break!('run, captured) {
            Some(graph) => graph,
            None => break 'run Err(DriverError(sys::CUresult::CUDA_ERROR_INVALID_VALUE)),
        };

        or_break!('run, release_device(d_bias));
        d_bias = 0;
        or_break!('run, graph.launch());
        //~^ graph_uses_freed_memory
        or_break!('run, stream.synchronize());
        Ok(())
    };

    let drained = stream.synchronize();
    let mut released = Ok(());
    if d_bias != 0 {
        released = release_device(d_bias);
    }
    status?;
    drained?;
    released?;
    let total = checksum(&ctx, &stream, &activations)?;
    if !total.is_finite() {
        return Err("bad activations".into());
    }
    Ok(())
}


/// Raw driver API: the smoother's temporary is freed after the exec is destroyed.
fn ok_raw_freed_after_exec_destroy() -> Result<(), Box<dyn Error>> {
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
    let mut d_tmp: sys::CUdeviceptr = 0;
    let mut graph: sys::CUgraph = std::ptr::null_mut();
    let mut exec: sys::CUgraphExec = std::ptr::null_mut();
    let status: Result<(), DriverError> = 'run: {
        d_u = or_break!('run, unsafe { result::malloc_sync(bytes) });
        d_tmp = or_break!('run, unsafe { result::malloc_sync(bytes) });
        or_break!('run, unsafe { stream.launch_builder(&fill).arg(&d_u).arg(&1.0f32).arg(&n).launch(cfg) });
        or_break!('run, stream.synchronize());

        or_break!('run, unsafe { sys::cuStreamBeginCapture_v2(cs, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL) }.result());
        let forward = unsafe { stream.launch_builder(&smooth).arg(&d_u).arg(&d_tmp).arg(&n).launch(cfg) };
        let back = unsafe { stream.launch_builder(&smooth).arg(&d_tmp).arg(&d_u).arg(&n).launch(cfg) };
        let ended = unsafe { sys::cuStreamEndCapture(cs, &mut graph) }.result();
        or_break!('run, forward);
        or_break!('run, back);
        or_break!('run, ended);
        or_break!('run, unsafe { sys::cuGraphInstantiateWithFlags(&mut exec, graph, 0) }.result());
        for _ in 0..STEPS {
            or_break!('run, unsafe { sys::cuGraphLaunch(exec, cs) }.result());
        }
        or_break!('run, stream.synchronize());

        // Done smoothing: the graph goes first, then the temporary it used.
        let destroyed = destroy_graph(exec, graph);
        exec = std::ptr::null_mut();
        graph = std::ptr::null_mut();
        or_break!('run, destroyed);
        or_break!('run, unsafe { result::free_sync(d_tmp) });
        d_tmp = 0;
        Ok(())
    };

    let drained = stream.synchronize();
    let mut released = destroy_graph(exec, graph);
    if d_tmp != 0 {
        released = released.and(unsafe { result::free_sync(d_tmp) });
    }
    if d_u != 0 {
        released = released.and(unsafe { result::free_sync(d_u) });
    }
    status?;
    drained?;
    released?;
    Ok(())
}


/// Raw driver API: a seed buffer used only before the capture is freed; the graph never names it.
fn ok_raw_seed_buffer_freed_before_launch() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill")?;
    let smooth = module.load_function("smooth")?;
    let scale = module.load_function("scale")?;
    let cs = stream.cu_stream();
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;
    let bytes = N * std::mem::size_of::<f32>();

    let mut d_seed: sys::CUdeviceptr = 0;
    let mut d_state: sys::CUdeviceptr = 0;
    let mut graph: sys::CUgraph = std::ptr::null_mut();
    let mut exec: sys::CUgraphExec = std::ptr::null_mut();
    let status: Result<(), DriverError> = 'run: {
        or_break!('run, unsafe { sys::cuMemAlloc_v2(&mut d_seed, bytes) }.result());
        or_break!('run, unsafe { sys::cuMemAlloc_v2(&mut d_state, bytes) }.result());
        or_break!('run, unsafe { stream.launch_builder(&fill).arg(&d_seed).arg(&4.0f32).arg(&n).launch(cfg) });
        or_break!('run, unsafe { stream.launch_builder(&smooth).arg(&d_seed).arg(&d_state).arg(&n).launch(cfg) });
        or_break!('run, stream.synchronize());
        or_break!('run, unsafe { sys::cuMemFree_v2(d_seed) }.result());
        d_seed = 0;

        or_break!('run, unsafe { sys::cuStreamBeginCapture_v2(cs, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL) }.result());
        let recorded = unsafe { stream.launch_builder(&scale).arg(&d_state).arg(&0.95f32).arg(&n).launch(cfg) };
        let ended = unsafe { sys::cuStreamEndCapture(cs, &mut graph) }.result();
        or_break!('run, recorded);
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
    if d_seed != 0 {
        released = released.and(unsafe { sys::cuMemFree_v2(d_seed) }.result());
    }
    if d_state != 0 {
        released = released.and(unsafe { sys::cuMemFree_v2(d_state) }.result());
    }
    status?;
    drained?;
    released?;
    Ok(())
}


/// Raw driver API: the page-locked source of a captured upload outlives the executable graph.
fn ok_raw_pinned_freed_after_exec_destroy() -> Result<(), Box<dyn Error>> {
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
        or_break!('run, unsafe { sys::cuGraphLaunch(exec, cs) }.result());
        or_break!('run, stream.synchronize());

        let destroyed = destroy_graph(exec, graph);
        exec = std::ptr::null_mut();
        graph = std::ptr::null_mut();
        or_break!('run, destroyed);
        or_break!('run, unsafe { result::free_host(h_in) });
        h_in = std::ptr::null_mut();
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

