//@no-rustfix
//! `uncapturable_call` through the CUDA runtime API (`cudarc::runtime::sys`).
//!
//! Fires (at the call made between `cudaStreamBeginCapture` and `cudaStreamEndCapture`):
//! - `fires_malloc_in_global_capture`: `cudaMalloc` in a global-mode capture.
//! - `fires_free_in_global_capture`: `cudaFree` in a global-mode capture.
//! - `fires_malloc_host_in_global_capture`: `cudaMallocHost` in a global-mode capture.
//! - `fires_malloc_in_thread_local_capture`: `cudaMalloc` in a thread-local-mode capture.
//! - `fires_stream_sync_in_relaxed_capture`: `cudaStreamSynchronize` of the capturing
//!   stream, even in relaxed mode.
//! - `fires_device_sync_in_capture`: `cudaDeviceSynchronize` during a capture.
//! - `fires_sync_memset_beside_blocking_capture`: a synchronous `cudaMemset` (legacy-stream
//!   work) while a blocking stream (`cudaStreamCreate`) captures, relaxed mode.
//! - `fires_legacy_stream_copy_beside_blocking_capture`: `cudaMemcpyAsync` on stream `0`
//!   while a blocking stream captures.
//!
//! Does not fire:
//! - `ok_malloc_in_relaxed_capture`: `cudaMalloc` in a relaxed-mode capture.
//! - `ok_malloc_host_in_relaxed_capture_blocking_stream`: `cudaMallocHost` in a relaxed
//!   capture of a blocking stream (an allocation is not legacy-stream work).
//! - `ok_sync_memset_beside_nonblocking_capture`: a synchronous `cudaMemset` while a
//!   non-blocking stream captures in global mode (measured: succeeds).
//! - `ok_sync_after_end_capture`: stream and device synchronization after
//!   `cudaStreamEndCapture`.
//! - `ok_alloc_before_begin`: `cudaMalloc` and `cudaMallocHost` before the capture begins.
//! - `ok_async_work_on_blocking_capturing_stream`: `cudaMemsetAsync`/`cudaMemcpyAsync` on
//!   the capturing (blocking) stream itself.
//! - `ok_legacy_stream_copy_beside_nonblocking_capture`: `cudaMemcpyAsync` on stream `0`
//!   while only a non-blocking stream captures (measured: succeeds).
//! - `ok_free_after_end_capture`: `cudaFree` after `cudaStreamEndCapture`, before the launch.

#![allow(dead_code)]

use std::error::Error;
use std::ffi::c_void;
use std::ptr;

use cudarc::runtime::sys::*;

fn ok(e: cudaError_t) -> Result<(), Box<dyn Error>> {
    if e == cudaError_t::cudaSuccess {
        Ok(())
    } else {
        Err(format!("CUDA runtime call failed: {e:?}").into())
    }
}

fn all_ok(statuses: &[cudaError_t]) -> Result<(), Box<dyn Error>> {
    for &e in statuses {
        ok(e)?;
    }
    Ok(())
}

/// Fills a pinned host buffer with `value` (a no-op when the allocation failed).
fn fill_pinned(h: *mut c_void, count: usize, value: f32) {
    if !h.is_null() {
        unsafe { std::slice::from_raw_parts_mut(h.cast::<f32>(), count) }.fill(value);
    }
}

const N: usize = 1 << 18;
const BYTES: usize = N * std::mem::size_of::<f32>();

fn fires_malloc_in_global_capture() -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut d_out: *mut c_void = ptr::null_mut();
    let mut d_workspace: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        let created = cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking);
        let out_allocated = cudaMalloc(&mut d_out, BYTES);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeGlobal);
        let workspace_allocated = cudaMalloc(&mut d_workspace, BYTES);
        //~^ uncapturable_call
        let workspace_cleared = cudaMemsetAsync(d_workspace, 0, BYTES, stream);
        let out_copied = cudaMemcpyAsync(d_out, d_workspace, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToDevice, stream);
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        let launched = cudaGraphLaunch(exec, stream);
        let synced = cudaStreamSynchronize(stream);
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let workspace_freed = cudaFree(d_workspace);
        let out_freed = cudaFree(d_out);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, out_allocated, begun, workspace_allocated, workspace_cleared, out_copied,
            ended, instantiated, launched, synced, exec_destroyed, graph_destroyed,
            workspace_freed, out_freed, stream_destroyed,
        ]
    };
    all_ok(&statuses)
}

fn fires_free_in_global_capture() -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut d_prev: *mut c_void = ptr::null_mut();
    let mut d_state: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        let created = cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking);
        let prev_allocated = cudaMalloc(&mut d_prev, BYTES);
        let state_allocated = cudaMalloc(&mut d_state, BYTES);
        let prev_cleared = cudaMemsetAsync(d_prev, 0, BYTES, stream);
        let prev_synced = cudaStreamSynchronize(stream);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeGlobal);
        let state_cleared = cudaMemsetAsync(d_state, 0, BYTES, stream);
        // Releasing the previous generation's buffer "while we're at it".
        let prev_freed = cudaFree(d_prev);
        //~^ uncapturable_call
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        let launched = cudaGraphLaunch(exec, stream);
        let synced = cudaStreamSynchronize(stream);
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let state_freed = cudaFree(d_state);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, prev_allocated, state_allocated, prev_cleared, prev_synced, begun,
            state_cleared, prev_freed, ended, instantiated, launched, synced, exec_destroyed,
            graph_destroyed, state_freed, stream_destroyed,
        ]
    };
    all_ok(&statuses)
}

fn fires_malloc_host_in_global_capture() -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut d_loss: *mut c_void = ptr::null_mut();
    let mut h_loss: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        let created = cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking);
        let allocated = cudaMalloc(&mut d_loss, BYTES);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeGlobal);
        let cleared = cudaMemsetAsync(d_loss, 0, BYTES, stream);
        let pinned = cudaMallocHost(&mut h_loss, BYTES);
        //~^ uncapturable_call
        let downloaded = cudaMemcpyAsync(h_loss, d_loss, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost, stream);
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        let launched = cudaGraphLaunch(exec, stream);
        let synced = cudaStreamSynchronize(stream);
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let host_freed = cudaFreeHost(h_loss);
        let freed = cudaFree(d_loss);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, allocated, begun, cleared, pinned, downloaded, ended, instantiated, launched,
            synced, exec_destroyed, graph_destroyed, host_freed, freed, stream_destroyed,
        ]
    };
    all_ok(&statuses)
}

fn fires_malloc_in_thread_local_capture(len: usize) -> Result<(), Box<dyn Error>> {
    let bytes = len * std::mem::size_of::<f32>();
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut d_keys: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        let created = cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeThreadLocal);
        let allocated = cudaMalloc(&mut d_keys, bytes);
        //~^ uncapturable_call
        let cleared = cudaMemsetAsync(d_keys, 0xff, bytes, stream);
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        let launched = cudaGraphLaunch(exec, stream);
        let synced = cudaStreamSynchronize(stream);
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let freed = cudaFree(d_keys);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, begun, allocated, cleared, ended, instantiated, launched, synced,
            exec_destroyed, graph_destroyed, freed, stream_destroyed,
        ]
    };
    all_ok(&statuses)
}

fn fires_stream_sync_in_relaxed_capture() -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut h_input: *mut c_void = ptr::null_mut();
    let mut d_input: *mut c_void = ptr::null_mut();
    let mut d_output: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        let created = cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking);
        let pinned = cudaMallocHost(&mut h_input, BYTES);
        let input_allocated = cudaMalloc(&mut d_input, BYTES);
        let output_allocated = cudaMalloc(&mut d_output, BYTES);
        fill_pinned(h_input, N, 3.0);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeRelaxed);
        let uploaded = cudaMemcpyAsync(d_input, h_input, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, stream);
        // "Make sure the upload landed" — but nothing runs during a capture.
        let waited = cudaStreamSynchronize(stream);
        //~^ uncapturable_call
        let forwarded = cudaMemcpyAsync(d_output, d_input, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToDevice, stream);
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        let launched = cudaGraphLaunch(exec, stream);
        let synced = cudaStreamSynchronize(stream);
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let host_freed = cudaFreeHost(h_input);
        let input_freed = cudaFree(d_input);
        let output_freed = cudaFree(d_output);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, pinned, input_allocated, output_allocated, begun, uploaded, waited,
            forwarded, ended, instantiated, launched, synced, exec_destroyed, graph_destroyed,
            host_freed, input_freed, output_freed, stream_destroyed,
        ]
    };
    all_ok(&statuses)
}

fn fires_device_sync_in_capture() -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut d_a: *mut c_void = ptr::null_mut();
    let mut d_b: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        let created = cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking);
        let a_allocated = cudaMalloc(&mut d_a, BYTES);
        let b_allocated = cudaMalloc(&mut d_b, BYTES);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeThreadLocal);
        let a_cleared = cudaMemsetAsync(d_a, 0, BYTES, stream);
        let barrier = cudaDeviceSynchronize();
        //~^ uncapturable_call
        let b_copied = cudaMemcpyAsync(d_b, d_a, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToDevice, stream);
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        let launched = cudaGraphLaunch(exec, stream);
        let synced = cudaStreamSynchronize(stream);
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let a_freed = cudaFree(d_a);
        let b_freed = cudaFree(d_b);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, a_allocated, b_allocated, begun, a_cleared, barrier, b_copied, ended,
            instantiated, launched, synced, exec_destroyed, graph_destroyed, a_freed, b_freed,
            stream_destroyed,
        ]
    };
    all_ok(&statuses)
}

fn fires_sync_memset_beside_blocking_capture() -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut d_flags: *mut c_void = ptr::null_mut();
    let mut d_counts: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        // cudaStreamCreate: a blocking stream, which synchronizes with the legacy stream.
        let created = cudaStreamCreate(&mut stream);
        let flags_allocated = cudaMalloc(&mut d_flags, BYTES);
        let counts_allocated = cudaMalloc(&mut d_counts, BYTES);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeRelaxed);
        let counts_cleared = cudaMemsetAsync(d_counts, 0, BYTES, stream);
        let flags_reset = cudaMemset(d_flags, 0, BYTES);
        //~^ uncapturable_call
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        let launched = cudaGraphLaunch(exec, stream);
        let synced = cudaStreamSynchronize(stream);
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let flags_freed = cudaFree(d_flags);
        let counts_freed = cudaFree(d_counts);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, flags_allocated, counts_allocated, begun, counts_cleared, flags_reset, ended,
            instantiated, launched, synced, exec_destroyed, graph_destroyed, flags_freed,
            counts_freed, stream_destroyed,
        ]
    };
    all_ok(&statuses)
}

fn fires_legacy_stream_copy_beside_blocking_capture() -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut h_cfg: *mut c_void = ptr::null_mut();
    let mut d_cfg: *mut c_void = ptr::null_mut();
    let mut d_acc: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        let created = cudaStreamCreate(&mut stream);
        let pinned = cudaMallocHost(&mut h_cfg, BYTES);
        let cfg_allocated = cudaMalloc(&mut d_cfg, BYTES);
        let acc_allocated = cudaMalloc(&mut d_acc, BYTES);
        fill_pinned(h_cfg, N, 1.5);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeGlobal);
        let acc_cleared = cudaMemsetAsync(d_acc, 0, BYTES, stream);
        let cfg_uploaded = cudaMemcpyAsync(d_cfg, h_cfg, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, 0 as cudaStream_t);
        //~^ uncapturable_call
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        let launched = cudaGraphLaunch(exec, stream);
        let device_synced = cudaDeviceSynchronize();
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let host_freed = cudaFreeHost(h_cfg);
        let cfg_freed = cudaFree(d_cfg);
        let acc_freed = cudaFree(d_acc);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, pinned, cfg_allocated, acc_allocated, begun, acc_cleared, cfg_uploaded,
            ended, instantiated, launched, device_synced, exec_destroyed, graph_destroyed,
            host_freed, cfg_freed, acc_freed, stream_destroyed,
        ]
    };
    all_ok(&statuses)
}

fn ok_malloc_in_relaxed_capture() -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut d_out: *mut c_void = ptr::null_mut();
    let mut d_workspace: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        let created = cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking);
        let out_allocated = cudaMalloc(&mut d_out, BYTES);
        // Relaxed mode: the lazily sized workspace may be allocated during the capture.
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeRelaxed);
        let workspace_allocated = cudaMalloc(&mut d_workspace, BYTES);
        let workspace_cleared = cudaMemsetAsync(d_workspace, 0, BYTES, stream);
        let out_copied = cudaMemcpyAsync(d_out, d_workspace, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToDevice, stream);
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        let launched = cudaGraphLaunch(exec, stream);
        let synced = cudaStreamSynchronize(stream);
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let workspace_freed = cudaFree(d_workspace);
        let out_freed = cudaFree(d_out);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, out_allocated, begun, workspace_allocated, workspace_cleared, out_copied,
            ended, instantiated, launched, synced, exec_destroyed, graph_destroyed,
            workspace_freed, out_freed, stream_destroyed,
        ]
    };
    all_ok(&statuses)
}

fn ok_malloc_host_in_relaxed_capture_blocking_stream() -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut d_loss: *mut c_void = ptr::null_mut();
    let mut h_loss: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        let created = cudaStreamCreate(&mut stream);
        let allocated = cudaMalloc(&mut d_loss, BYTES);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeRelaxed);
        let cleared = cudaMemsetAsync(d_loss, 0, BYTES, stream);
        let pinned = cudaMallocHost(&mut h_loss, BYTES);
        let downloaded = cudaMemcpyAsync(h_loss, d_loss, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost, stream);
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        let launched = cudaGraphLaunch(exec, stream);
        let synced = cudaStreamSynchronize(stream);
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let host_freed = cudaFreeHost(h_loss);
        let freed = cudaFree(d_loss);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, allocated, begun, cleared, pinned, downloaded, ended, instantiated, launched,
            synced, exec_destroyed, graph_destroyed, host_freed, freed, stream_destroyed,
        ]
    };
    all_ok(&statuses)
}

fn ok_sync_memset_beside_nonblocking_capture() -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut d_flags: *mut c_void = ptr::null_mut();
    let mut d_counts: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        let created = cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking);
        let flags_allocated = cudaMalloc(&mut d_flags, BYTES);
        let counts_allocated = cudaMalloc(&mut d_counts, BYTES);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeGlobal);
        let counts_cleared = cudaMemsetAsync(d_counts, 0, BYTES, stream);
        // Legacy-stream work, but the capturing stream does not synchronize with it.
        let flags_reset = cudaMemset(d_flags, 0, BYTES);
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        let launched = cudaGraphLaunch(exec, stream);
        let synced = cudaStreamSynchronize(stream);
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let flags_freed = cudaFree(d_flags);
        let counts_freed = cudaFree(d_counts);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, flags_allocated, counts_allocated, begun, counts_cleared, flags_reset, ended,
            instantiated, launched, synced, exec_destroyed, graph_destroyed, flags_freed,
            counts_freed, stream_destroyed,
        ]
    };
    all_ok(&statuses)
}

fn ok_sync_after_end_capture() -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut h_input: *mut c_void = ptr::null_mut();
    let mut d_input: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        let created = cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking);
        let pinned = cudaMallocHost(&mut h_input, BYTES);
        let allocated = cudaMalloc(&mut d_input, BYTES);
        fill_pinned(h_input, N, 3.0);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeRelaxed);
        let uploaded = cudaMemcpyAsync(d_input, h_input, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, stream);
        let ended = cudaStreamEndCapture(stream, &mut graph);
        // The capture is over: waiting on the stream and the device is allowed again.
        let stream_idle = cudaStreamSynchronize(stream);
        let device_idle = cudaDeviceSynchronize();
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        let launched = cudaGraphLaunch(exec, stream);
        let synced = cudaStreamSynchronize(stream);
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let host_freed = cudaFreeHost(h_input);
        let freed = cudaFree(d_input);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, pinned, allocated, begun, uploaded, ended, stream_idle, device_idle,
            instantiated, launched, synced, exec_destroyed, graph_destroyed, host_freed, freed,
            stream_destroyed,
        ]
    };
    all_ok(&statuses)
}

fn ok_alloc_before_begin() -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut d_workspace: *mut c_void = ptr::null_mut();
    let mut h_result: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        let created = cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking);
        // Everything the graph needs is allocated up front.
        let allocated = cudaMalloc(&mut d_workspace, BYTES);
        let pinned = cudaMallocHost(&mut h_result, BYTES);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeGlobal);
        let cleared = cudaMemsetAsync(d_workspace, 0, BYTES, stream);
        let downloaded = cudaMemcpyAsync(h_result, d_workspace, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost, stream);
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        let launched = cudaGraphLaunch(exec, stream);
        let synced = cudaStreamSynchronize(stream);
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let host_freed = cudaFreeHost(h_result);
        let freed = cudaFree(d_workspace);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, allocated, pinned, begun, cleared, downloaded, ended, instantiated, launched,
            synced, exec_destroyed, graph_destroyed, host_freed, freed, stream_destroyed,
        ]
    };
    all_ok(&statuses)
}

fn ok_async_work_on_blocking_capturing_stream() -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut h_cfg: *mut c_void = ptr::null_mut();
    let mut d_cfg: *mut c_void = ptr::null_mut();
    let mut d_acc: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        let created = cudaStreamCreate(&mut stream);
        let pinned = cudaMallocHost(&mut h_cfg, BYTES);
        let cfg_allocated = cudaMalloc(&mut d_cfg, BYTES);
        let acc_allocated = cudaMalloc(&mut d_acc, BYTES);
        fill_pinned(h_cfg, N, 1.5);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeGlobal);
        let acc_cleared = cudaMemsetAsync(d_acc, 0, BYTES, stream);
        let cfg_uploaded = cudaMemcpyAsync(d_cfg, h_cfg, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, stream);
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        let launched = cudaGraphLaunch(exec, stream);
        let synced = cudaStreamSynchronize(stream);
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let host_freed = cudaFreeHost(h_cfg);
        let cfg_freed = cudaFree(d_cfg);
        let acc_freed = cudaFree(d_acc);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, pinned, cfg_allocated, acc_allocated, begun, acc_cleared, cfg_uploaded,
            ended, instantiated, launched, synced, exec_destroyed, graph_destroyed, host_freed,
            cfg_freed, acc_freed, stream_destroyed,
        ]
    };
    all_ok(&statuses)
}

fn ok_legacy_stream_copy_beside_nonblocking_capture() -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut h_cfg: *mut c_void = ptr::null_mut();
    let mut d_cfg: *mut c_void = ptr::null_mut();
    let mut d_acc: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        let created = cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking);
        let pinned = cudaMallocHost(&mut h_cfg, BYTES);
        let cfg_allocated = cudaMalloc(&mut d_cfg, BYTES);
        let acc_allocated = cudaMalloc(&mut d_acc, BYTES);
        fill_pinned(h_cfg, N, 1.5);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeGlobal);
        let acc_cleared = cudaMemsetAsync(d_acc, 0, BYTES, stream);
        // Stream 0 is not ordered with a non-blocking stream: this copy is not captured
        // and does not disturb the capture.
        let cfg_uploaded = cudaMemcpyAsync(d_cfg, h_cfg, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, 0 as cudaStream_t);
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        let launched = cudaGraphLaunch(exec, stream);
        let device_synced = cudaDeviceSynchronize();
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let host_freed = cudaFreeHost(h_cfg);
        let cfg_freed = cudaFree(d_cfg);
        let acc_freed = cudaFree(d_acc);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, pinned, cfg_allocated, acc_allocated, begun, acc_cleared, cfg_uploaded,
            ended, instantiated, launched, device_synced, exec_destroyed, graph_destroyed,
            host_freed, cfg_freed, acc_freed, stream_destroyed,
        ]
    };
    all_ok(&statuses)
}

fn ok_free_after_end_capture() -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut d_prev: *mut c_void = ptr::null_mut();
    let mut d_state: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        let created = cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking);
        let prev_allocated = cudaMalloc(&mut d_prev, BYTES);
        let state_allocated = cudaMalloc(&mut d_state, BYTES);
        let prev_cleared = cudaMemsetAsync(d_prev, 0, BYTES, stream);
        let prev_synced = cudaStreamSynchronize(stream);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeGlobal);
        let state_cleared = cudaMemsetAsync(d_state, 0, BYTES, stream);
        let ended = cudaStreamEndCapture(stream, &mut graph);
        // The previous generation's buffer goes once the capture has ended.
        let prev_freed = cudaFree(d_prev);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        let launched = cudaGraphLaunch(exec, stream);
        let synced = cudaStreamSynchronize(stream);
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let state_freed = cudaFree(d_state);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, prev_allocated, state_allocated, prev_cleared, prev_synced, begun,
            state_cleared, ended, prev_freed, instantiated, launched, synced, exec_destroyed,
            graph_destroyed, state_freed, stream_destroyed,
        ]
    };
    all_ok(&statuses)
}
