//! `cuda_lint::uncapturable_call`: fires at a call that stream capture does not permit, made
//! while a stream captures. The front end tells the kind of call and the capture's mode
//! (`Event::DuringCapture`); which kinds fail in which modes is decided here.

use super::Cx;
use crate::diagnostic::{Diagnostic, Finding};
use crate::events::{CaptureRule, Event};
use crate::state::Ext;

declare_lint! {
    /// ### What it does
    /// Checks for calls made between `cudaStreamBeginCapture` and `cudaStreamEndCapture` (or
    /// `cuStreamBeginCapture`/`cuStreamEndCapture`) that stream capture does not permit:
    /// - synchronizing or querying what is being captured: `cudaStreamSynchronize` or
    ///   `cudaStreamQuery` of a capturing stream, `cudaDeviceSynchronize`, `cuCtxSynchronize`,
    ///   `cudaEventSynchronize`/`cudaEventQuery` of an event recorded during the capture;
    /// - in global or thread-local mode (the default, `cudaStreamCaptureModeGlobal`), the
    ///   allocations and frees that are not stream-ordered: `cudaMalloc`, `cudaMallocHost`,
    ///   `cudaHostAlloc`, `cudaMallocManaged`, `cudaFree`, `cudaFreeHost` and their driver forms;
    /// - work on the legacy default stream (a launch or copy on stream `0`, a synchronous copy
    ///   or memset such as `cudaMemcpy`, `cudaMemset`, `cuMemcpyHtoD`) while a blocking stream
    ///   captures, in any mode, and capture begun on the legacy stream itself;
    /// - `cudaMemcpyBatchAsync`/`cuMemcpyBatchAsync` on a capturing stream.
    ///
    /// ### Why is this bad?
    /// The call fails (`cudaErrorStreamCaptureUnsupported`, `cudaErrorStreamCaptureImplicit`)
    /// and invalidates the whole capture: `cudaStreamEndCapture` fails and no graph is made.
    /// Where statuses are not checked, the program goes on without the work it meant to
    /// capture (rapidsai/rmm #2518: a batched copy that failed silently in capture; PaddlePaddle
    /// switches to relaxed mode around its allocations for this reason).
    ///
    /// Which calls fail was measured on an H200 (driver 580): a synchronous copy or memset
    /// beside a non-blocking capturing stream succeeds even in global mode, and is not
    /// reported (`runtime/gpu-results/2026-11-27-capture-rules.md`).
    ///
    /// ### Known problems
    /// `cudaThreadExchangeStreamCaptureMode` anywhere in the capture is taken to make it
    /// relaxed; a mode given as a parameter is not known to be strict. Another thread's capture
    /// is not followed, nor a capture begun in a function the analysis does not run. In Rust,
    /// cudarc's safe calls that synchronize inside (`memcpy_dtov`) are reported where their
    /// table says they wait.
    ///
    /// ### Example
    /// ```cpp
    /// cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    /// cudaMalloc(&d_tmp, bytes);
    /// step<<<blocks, threads, 0, s>>>(d_tmp, n);
    /// cudaStreamEndCapture(s, &graph);
    /// ```
    ///
    /// Use instead:
    /// ```cpp
    /// cudaMalloc(&d_tmp, bytes);
    /// cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    /// step<<<blocks, threads, 0, s>>>(d_tmp, n);
    /// cudaStreamEndCapture(s, &graph);
    /// ```
    pub UNCAPTURABLE_CALL = "uncapturable_call", Deny, Correctness, "a call stream capture does not permit, made while a stream captures"
}

pub fn check<S: Copy + PartialEq, X: Ext>(event: &Event<'_, S>, cx: &Cx<'_, S, X>, out: &mut Vec<Finding<S>>) {
    let Event::DuringCapture {
        call,
        rule,
        strict,
        blocking,
        captured,
    } = *event
    else {
        return;
    };
    let (fails, why, help) = match rule {
        CaptureRule::SyncsCapture => (
            true,
            "it waits for work that is being captured, which does not run until the graph is launched",
            "synchronize after `cudaStreamEndCapture`, on the stream the graph is launched on",
        ),
        CaptureRule::PotentiallyUnsafe => (
            strict,
            "it may synchronize implicitly, which global and thread-local capture modes prohibit",
            "allocate and free before the capture begins, use `cudaMallocAsync`/`cudaFreeAsync` on the \
             capturing stream, or begin the capture with `cudaStreamCaptureModeRelaxed`",
        ),
        CaptureRule::LegacyStreamWork => (
            blocking,
            "it runs on the legacy default stream, which would have to wait for a capturing blocking stream",
            "enqueue it on the capturing stream, or capture on a stream made with `cudaStreamNonBlocking`",
        ),
        // Measured (H200, driver 580): refused beside a blocking capturing stream only, in any
        // mode; beside a non-blocking one, allowed even in global mode.
        CaptureRule::SynchronousWork => (
            blocking,
            "it is synchronous: it runs on the legacy default stream and makes the host wait",
            "use `cudaMemcpyAsync`/`cudaMemsetAsync` on the capturing stream",
        ),
        CaptureRule::CaptureOnLegacy => (
            true,
            "the legacy default stream cannot be captured",
            "capture on a stream the program made (`cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)`)",
        ),
        CaptureRule::Unsupported => (
            true,
            "stream capture does not support it",
            "issue the copies one by one (`cudaMemcpyAsync`), or make them before or after the capture",
        ),
    };
    if !fails {
        return;
    }
    let mut diag = Diagnostic::new(format!("`{call}` is not permitted while a stream is capturing"));
    if let Some(at) = captured
        && at != cx.span
    {
        diag.label(at, "the capture begins here".to_string());
    }
    diag.note(format!(
        "{why}: the call fails and invalidates the capture, so `cudaStreamEndCapture` fails and no graph is made"
    ));
    diag.help(help.to_string());
    out.push(cx.finding(&UNCAPTURABLE_CALL, "uncapturable_call", false, diag));
}
