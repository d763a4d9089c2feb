//@no-rustfix
//! `graph_uses_freed_memory` through the CUDA runtime API (`cudarc::runtime::sys`).
//!
//! Fires (at the `cudaGraphLaunch` after the free):
//! - `fires_free_memset_target_before_launch`: `cudaFree` of the buffer a captured
//!   `cudaMemsetAsync` clears, then the graph is launched.
//! - `fires_free_pinned_staging_before_launch`: `cudaFreeHost` of the pinned source of a
//!   captured `cudaMemcpyAsync`, then the graph is launched.
//! - `fires_free_between_launches`: the graph runs, the stream is synchronized, the copy
//!   destination is freed, and the graph is launched again.
//! - `fires_launch_loop_after_free`: the memset target is freed before a loop of launches.
//! - `fires_free_second_of_two_targets`: the graph clears two buffers; one is freed.
//! - `fires_free_device_copy_source`: `cudaFree` of the device source of a captured
//!   device-to-device copy (memory the graph reads).
//! - `fires_free_after_graph_destroy`: the graph is destroyed (legitimately, the exec
//!   lives on), the memset target is freed, and the exec is launched.
//! - `fires_relaxed_capture_staging_freed`: a relaxed-mode capture of an upload whose
//!   pinned source is freed before the launch.
//!
//! Does not fire:
//! - `ok_free_after_last_launch_and_sync`: frees after the last launch and a synchronize.
//! - `ok_exec_destroyed_before_free`: exec and graph destroyed before the free, no launch
//!   after it.
//! - `ok_free_unrelated_scratch_before_launch`: memory the graph does not use is freed.
//! - `ok_free_pinned_staging_after_sync`: the pinned source is freed after the launches
//!   and a synchronize.
//! - `ok_recapture_after_reallocation`: the buffer is reallocated, captured again, and
//!   only the new exec is launched (the old one is kept but never launched again).
//! - `ok_launch_loop_then_free`: a loop of launches, one synchronize, then the frees.
//! - `ok_resize_before_capture`: an old buffer is freed and a new one allocated before
//!   the capture; the graph uses only the new one.
//! - `ok_free_unused_pinned_buffer`: of two pinned buffers, the one the graph does not
//!   copy from is freed before the launch.

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

const N: usize = 1 << 20;
const BYTES: usize = N * std::mem::size_of::<f32>();

fn fires_free_memset_target_before_launch() -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut d_accum: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        let created = cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking);
        let allocated = cudaMalloc(&mut d_accum, BYTES);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeGlobal);
        let cleared = cudaMemsetAsync(d_accum, 0, BYTES, stream);
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        let freed = cudaFree(d_accum);
        let launched = cudaGraphLaunch(exec, stream);
        //~^ graph_uses_freed_memory
        let synced = cudaStreamSynchronize(stream);
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, allocated, begun, cleared, ended, instantiated, freed, launched, synced,
            exec_destroyed, graph_destroyed, stream_destroyed,
        ]
    };
    all_ok(&statuses)
}

fn fires_free_pinned_staging_before_launch() -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut h_staging: *mut c_void = ptr::null_mut();
    let mut d_input: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        let created = cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking);
        let pinned = cudaMallocHost(&mut h_staging, BYTES);
        let allocated = cudaMalloc(&mut d_input, BYTES);
        fill_pinned(h_staging, N, 0.5);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeGlobal);
        let uploaded = cudaMemcpyAsync(d_input, h_staging, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, stream);
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        let host_freed = cudaFreeHost(h_staging);
        let launched = cudaGraphLaunch(exec, stream);
        //~^ graph_uses_freed_memory
        let synced = cudaStreamSynchronize(stream);
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let freed = cudaFree(d_input);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, pinned, allocated, begun, uploaded, ended, instantiated, host_freed, launched,
            synced, exec_destroyed, graph_destroyed, freed, stream_destroyed,
        ]
    };
    all_ok(&statuses)
}

fn fires_free_between_launches() -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut h_batch: *mut c_void = ptr::null_mut();
    let mut d_batch: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        let created = cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking);
        let pinned = cudaMallocHost(&mut h_batch, BYTES);
        let allocated = cudaMalloc(&mut d_batch, BYTES);
        fill_pinned(h_batch, N, 1.0);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeGlobal);
        let uploaded = cudaMemcpyAsync(d_batch, h_batch, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, stream);
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        let first_run = cudaGraphLaunch(exec, stream);
        let first_synced = cudaStreamSynchronize(stream);
        // The "epoch finished" clean-up runs one step too early.
        let freed = cudaFree(d_batch);
        let second_run = cudaGraphLaunch(exec, stream);
        //~^ graph_uses_freed_memory
        let second_synced = cudaStreamSynchronize(stream);
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let host_freed = cudaFreeHost(h_batch);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, pinned, allocated, begun, uploaded, ended, instantiated, first_run,
            first_synced, freed, second_run, second_synced, exec_destroyed, graph_destroyed,
            host_freed, stream_destroyed,
        ]
    };
    all_ok(&statuses)
}

fn fires_launch_loop_after_free(steps: usize) -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut d_grad: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let mut launches = Vec::with_capacity(steps);
    let statuses = unsafe {
        let created = cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking);
        let allocated = cudaMalloc(&mut d_grad, BYTES);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeGlobal);
        let zeroed = cudaMemsetAsync(d_grad, 0, BYTES, stream);
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        let freed = cudaFree(d_grad);
        for _ in 0..steps {
            let launched = cudaGraphLaunch(exec, stream);
            //~^ graph_uses_freed_memory
            launches.push(launched);
        }
        let synced = cudaStreamSynchronize(stream);
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, allocated, begun, zeroed, ended, instantiated, freed, synced, exec_destroyed,
            graph_destroyed, stream_destroyed,
        ]
    };
    all_ok(&statuses)?;
    all_ok(&launches)
}

fn fires_free_second_of_two_targets() -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut d_sum: *mut c_void = ptr::null_mut();
    let mut d_count: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        let created = cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking);
        let sum_allocated = cudaMalloc(&mut d_sum, BYTES);
        let count_allocated = cudaMalloc(&mut d_count, BYTES);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeGlobal);
        let sum_cleared = cudaMemsetAsync(d_sum, 0, BYTES, stream);
        let count_cleared = cudaMemsetAsync(d_count, 0, BYTES, stream);
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        let count_freed = cudaFree(d_count);
        let launched = cudaGraphLaunch(exec, stream);
        //~^ graph_uses_freed_memory
        let synced = cudaStreamSynchronize(stream);
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let sum_freed = cudaFree(d_sum);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, sum_allocated, count_allocated, begun, sum_cleared, count_cleared, ended,
            instantiated, count_freed, launched, synced, exec_destroyed, graph_destroyed, sum_freed,
            stream_destroyed,
        ]
    };
    all_ok(&statuses)
}

fn fires_free_device_copy_source() -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut d_weights: *mut c_void = ptr::null_mut();
    let mut d_shadow: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        let created = cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking);
        let weights_allocated = cudaMalloc(&mut d_weights, BYTES);
        let shadow_allocated = cudaMalloc(&mut d_shadow, BYTES);
        let initialised = cudaMemsetAsync(d_weights, 0, BYTES, stream);
        let init_synced = cudaStreamSynchronize(stream);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeGlobal);
        let mirrored = cudaMemcpyAsync(d_shadow, d_weights, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToDevice, stream);
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        let weights_freed = cudaFree(d_weights);
        let launched = cudaGraphLaunch(exec, stream);
        //~^ graph_uses_freed_memory
        let synced = cudaStreamSynchronize(stream);
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let shadow_freed = cudaFree(d_shadow);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, weights_allocated, shadow_allocated, initialised, init_synced, begun, mirrored,
            ended, instantiated, weights_freed, launched, synced, exec_destroyed, graph_destroyed,
            shadow_freed, stream_destroyed,
        ]
    };
    all_ok(&statuses)
}

fn fires_free_after_graph_destroy() -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut d_hist: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        let created = cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking);
        let allocated = cudaMalloc(&mut d_hist, BYTES);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeGlobal);
        let cleared = cudaMemsetAsync(d_hist, 0, BYTES, stream);
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        // The template graph is no longer needed once instantiated; the exec still names d_hist.
        let graph_destroyed = cudaGraphDestroy(graph);
        let freed = cudaFree(d_hist);
        let launched = cudaGraphLaunch(exec, stream);
        //~^ graph_uses_freed_memory
        let synced = cudaStreamSynchronize(stream);
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, allocated, begun, cleared, ended, instantiated, graph_destroyed, freed,
            launched, synced, exec_destroyed, stream_destroyed,
        ]
    };
    all_ok(&statuses)
}

fn fires_relaxed_capture_staging_freed() -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut h_params: *mut c_void = ptr::null_mut();
    let mut d_params: *mut c_void = ptr::null_mut();
    let mut d_out: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        let created = cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking);
        let pinned = cudaMallocHost(&mut h_params, BYTES);
        let params_allocated = cudaMalloc(&mut d_params, BYTES);
        let out_allocated = cudaMalloc(&mut d_out, BYTES);
        fill_pinned(h_params, N, 0.25);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeRelaxed);
        let uploaded = cudaMemcpyAsync(d_params, h_params, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, stream);
        let cleared = cudaMemsetAsync(d_out, 0, BYTES, stream);
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        let host_freed = cudaFreeHost(h_params);
        let launched = cudaGraphLaunch(exec, stream);
        //~^ graph_uses_freed_memory
        let synced = cudaStreamSynchronize(stream);
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let params_freed = cudaFree(d_params);
        let out_freed = cudaFree(d_out);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, pinned, params_allocated, out_allocated, begun, uploaded, cleared, ended,
            instantiated, host_freed, launched, synced, exec_destroyed, graph_destroyed,
            params_freed, out_freed, stream_destroyed,
        ]
    };
    all_ok(&statuses)
}

fn ok_free_after_last_launch_and_sync() -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut d_accum: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        let created = cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking);
        let allocated = cudaMalloc(&mut d_accum, BYTES);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeGlobal);
        let cleared = cudaMemsetAsync(d_accum, 0, BYTES, stream);
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        let launched = cudaGraphLaunch(exec, stream);
        let synced = cudaStreamSynchronize(stream);
        let freed = cudaFree(d_accum);
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, allocated, begun, cleared, ended, instantiated, launched, synced, freed,
            exec_destroyed, graph_destroyed, stream_destroyed,
        ]
    };
    all_ok(&statuses)
}

fn ok_exec_destroyed_before_free() -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut h_batch: *mut c_void = ptr::null_mut();
    let mut d_batch: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        let created = cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking);
        let pinned = cudaMallocHost(&mut h_batch, BYTES);
        let allocated = cudaMalloc(&mut d_batch, BYTES);
        fill_pinned(h_batch, N, 2.0);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeGlobal);
        let uploaded = cudaMemcpyAsync(d_batch, h_batch, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, stream);
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        let launched = cudaGraphLaunch(exec, stream);
        let synced = cudaStreamSynchronize(stream);
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let freed = cudaFree(d_batch);
        let host_freed = cudaFreeHost(h_batch);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, pinned, allocated, begun, uploaded, ended, instantiated, launched, synced,
            exec_destroyed, graph_destroyed, freed, host_freed, stream_destroyed,
        ]
    };
    all_ok(&statuses)
}

fn ok_free_unrelated_scratch_before_launch() -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut d_scratch: *mut c_void = ptr::null_mut();
    let mut d_state: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        let created = cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking);
        let scratch_allocated = cudaMalloc(&mut d_scratch, BYTES);
        let state_allocated = cudaMalloc(&mut d_state, BYTES);
        // Warm-up work on the scratch buffer, outside any capture.
        let scratch_cleared = cudaMemsetAsync(d_scratch, 0, BYTES, stream);
        let warmup_synced = cudaStreamSynchronize(stream);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeGlobal);
        let state_cleared = cudaMemsetAsync(d_state, 0, BYTES, stream);
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        let scratch_freed = cudaFree(d_scratch);
        let launched = cudaGraphLaunch(exec, stream);
        let synced = cudaStreamSynchronize(stream);
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let state_freed = cudaFree(d_state);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, scratch_allocated, state_allocated, scratch_cleared, warmup_synced, begun,
            state_cleared, ended, instantiated, scratch_freed, launched, synced, exec_destroyed,
            graph_destroyed, state_freed, stream_destroyed,
        ]
    };
    all_ok(&statuses)
}

fn ok_free_pinned_staging_after_sync(steps: usize) -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut h_staging: *mut c_void = ptr::null_mut();
    let mut d_input: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let mut step_statuses = Vec::with_capacity(2 * steps);
    let statuses = unsafe {
        let created = cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking);
        let pinned = cudaMallocHost(&mut h_staging, BYTES);
        let allocated = cudaMalloc(&mut d_input, BYTES);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeGlobal);
        let uploaded = cudaMemcpyAsync(d_input, h_staging, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, stream);
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        for step in 0..steps {
            // Refill the staging buffer once the previous upload has completed.
            fill_pinned(h_staging, N, step as f32);
            step_statuses.push(cudaGraphLaunch(exec, stream));
            step_statuses.push(cudaStreamSynchronize(stream));
        }
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let host_freed = cudaFreeHost(h_staging);
        let freed = cudaFree(d_input);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, pinned, allocated, begun, uploaded, ended, instantiated, exec_destroyed,
            graph_destroyed, host_freed, freed, stream_destroyed,
        ]
    };
    all_ok(&statuses)?;
    all_ok(&step_statuses)
}

fn ok_recapture_after_reallocation(new_len: usize) -> Result<(), Box<dyn Error>> {
    let new_bytes = new_len * std::mem::size_of::<f32>();
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut d_small: *mut c_void = ptr::null_mut();
    let mut d_large: *mut c_void = ptr::null_mut();
    let mut old_graph: cudaGraph_t = ptr::null_mut();
    let mut old_exec: cudaGraphExec_t = ptr::null_mut();
    let mut new_graph: cudaGraph_t = ptr::null_mut();
    let mut new_exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        let created = cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking);
        let small_allocated = cudaMalloc(&mut d_small, BYTES);
        let old_begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeGlobal);
        let old_cleared = cudaMemsetAsync(d_small, 0, BYTES, stream);
        let old_ended = cudaStreamEndCapture(stream, &mut old_graph);
        let old_instantiated = cudaGraphInstantiate(&mut old_exec, old_graph, 0);
        let old_launched = cudaGraphLaunch(old_exec, stream);
        let old_synced = cudaStreamSynchronize(stream);
        // The problem grew: replace the buffer and capture the graph again. The old exec is
        // kept until shutdown but never launched again.
        let small_freed = cudaFree(d_small);
        let large_allocated = cudaMalloc(&mut d_large, new_bytes);
        let new_begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeGlobal);
        let new_cleared = cudaMemsetAsync(d_large, 0, new_bytes, stream);
        let new_ended = cudaStreamEndCapture(stream, &mut new_graph);
        let new_instantiated = cudaGraphInstantiate(&mut new_exec, new_graph, 0);
        let new_launched = cudaGraphLaunch(new_exec, stream);
        let new_synced = cudaStreamSynchronize(stream);
        let new_exec_destroyed = cudaGraphExecDestroy(new_exec);
        let new_graph_destroyed = cudaGraphDestroy(new_graph);
        let old_exec_destroyed = cudaGraphExecDestroy(old_exec);
        let old_graph_destroyed = cudaGraphDestroy(old_graph);
        let large_freed = cudaFree(d_large);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, small_allocated, old_begun, old_cleared, old_ended, old_instantiated,
            old_launched, old_synced, small_freed, large_allocated, new_begun, new_cleared,
            new_ended, new_instantiated, new_launched, new_synced, new_exec_destroyed,
            new_graph_destroyed, old_exec_destroyed, old_graph_destroyed, large_freed,
            stream_destroyed,
        ]
    };
    all_ok(&statuses)
}

fn ok_launch_loop_then_free(steps: usize) -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut d_grad: *mut c_void = ptr::null_mut();
    let mut d_moment: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let mut launches = Vec::with_capacity(steps);
    let statuses = unsafe {
        let created = cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking);
        let grad_allocated = cudaMalloc(&mut d_grad, BYTES);
        let moment_allocated = cudaMalloc(&mut d_moment, BYTES);
        let moment_cleared = cudaMemsetAsync(d_moment, 0, BYTES, stream);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeThreadLocal);
        let grad_zeroed = cudaMemsetAsync(d_grad, 0, BYTES, stream);
        let moment_copied = cudaMemcpyAsync(d_moment, d_grad, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToDevice, stream);
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        for _ in 0..steps {
            launches.push(cudaGraphLaunch(exec, stream));
        }
        let synced = cudaStreamSynchronize(stream);
        let grad_freed = cudaFree(d_grad);
        let moment_freed = cudaFree(d_moment);
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, grad_allocated, moment_allocated, moment_cleared, begun, grad_zeroed,
            moment_copied, ended, instantiated, synced, grad_freed, moment_freed, exec_destroyed,
            graph_destroyed, stream_destroyed,
        ]
    };
    all_ok(&statuses)?;
    all_ok(&launches)
}

fn ok_resize_before_capture(new_len: usize) -> Result<(), Box<dyn Error>> {
    let new_bytes = new_len * std::mem::size_of::<f32>();
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut d_old: *mut c_void = ptr::null_mut();
    let mut d_new: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        let created = cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking);
        let old_allocated = cudaMalloc(&mut d_old, BYTES);
        let old_cleared = cudaMemsetAsync(d_old, 0, BYTES, stream);
        let old_synced = cudaStreamSynchronize(stream);
        // Resize: the old buffer goes before the graph is captured on the new one.
        let old_freed = cudaFree(d_old);
        let new_allocated = cudaMalloc(&mut d_new, new_bytes);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeGlobal);
        let new_cleared = cudaMemsetAsync(d_new, 0, new_bytes, stream);
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        let launched = cudaGraphLaunch(exec, stream);
        let synced = cudaStreamSynchronize(stream);
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let new_freed = cudaFree(d_new);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, old_allocated, old_cleared, old_synced, old_freed, new_allocated, begun,
            new_cleared, ended, instantiated, launched, synced, exec_destroyed, graph_destroyed,
            new_freed, stream_destroyed,
        ]
    };
    all_ok(&statuses)
}

fn ok_free_unused_pinned_buffer() -> Result<(), Box<dyn Error>> {
    let mut stream: cudaStream_t = ptr::null_mut();
    let mut h_bias: *mut c_void = ptr::null_mut();
    let mut h_inputs: *mut c_void = ptr::null_mut();
    let mut d_bias: *mut c_void = ptr::null_mut();
    let mut d_inputs: *mut c_void = ptr::null_mut();
    let mut graph: cudaGraph_t = ptr::null_mut();
    let mut exec: cudaGraphExec_t = ptr::null_mut();
    let statuses = unsafe {
        let created = cudaStreamCreateWithFlags(&mut stream, cudaStreamNonBlocking);
        let bias_pinned = cudaMallocHost(&mut h_bias, BYTES);
        let inputs_pinned = cudaMallocHost(&mut h_inputs, BYTES);
        let bias_allocated = cudaMalloc(&mut d_bias, BYTES);
        let inputs_allocated = cudaMalloc(&mut d_inputs, BYTES);
        fill_pinned(h_bias, N, 0.1);
        fill_pinned(h_inputs, N, 1.0);
        // The bias is uploaded once, eagerly; only the per-step input upload is captured.
        let bias_uploaded = cudaMemcpyAsync(d_bias, h_bias, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, stream);
        let bias_synced = cudaStreamSynchronize(stream);
        let begun = cudaStreamBeginCapture(stream, cudaStreamCaptureMode::cudaStreamCaptureModeGlobal);
        let inputs_uploaded = cudaMemcpyAsync(d_inputs, h_inputs, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, stream);
        let ended = cudaStreamEndCapture(stream, &mut graph);
        let instantiated = cudaGraphInstantiate(&mut exec, graph, 0);
        let bias_host_freed = cudaFreeHost(h_bias);
        let launched = cudaGraphLaunch(exec, stream);
        let synced = cudaStreamSynchronize(stream);
        let exec_destroyed = cudaGraphExecDestroy(exec);
        let graph_destroyed = cudaGraphDestroy(graph);
        let inputs_host_freed = cudaFreeHost(h_inputs);
        let bias_freed = cudaFree(d_bias);
        let inputs_freed = cudaFree(d_inputs);
        let stream_destroyed = cudaStreamDestroy(stream);
        [
            created, bias_pinned, inputs_pinned, bias_allocated, inputs_allocated, bias_uploaded,
            bias_synced, begun, inputs_uploaded, ended, instantiated, bias_host_freed, launched,
            synced, exec_destroyed, graph_destroyed, inputs_host_freed, bias_freed, inputs_freed,
            stream_destroyed,
        ]
    };
    all_ok(&statuses)
}
