//! `cuda_lint::missing_sync`: fires when the host touches memory that work which may still be in
//! flight uses, with no wait on some path:
//! - a host read of memory in-flight work writes, a host write to (or immediate free of) memory
//!   it reads or writes (device-only memory is `host_deref_device_ptr`'s);
//! - a free in stream order (`cuMemFreeAsync`, a cudarc slice dropped) while work on another
//!   stream, not ordered before it, uses the memory;
//! - new work on one stream that writes memory unordered work on another stream uses, or reads
//!   memory it writes (two mappings of one allocation are `unfenced_vmm_alias`'s).
//!
//! Pageable memory is never in flight (the driver copies it before the call returns) unless
//! page-locked in place; memory of unknown kind is not judged.

use super::{Cx, named, paths_suffix};
use crate::diagnostic::{Child, Diagnostic, Finding, WaitFix};
use crate::events::{Event, InFlight};
use crate::memory::{Access, MemKind};
use crate::ops::{Op, OpId, OpKind};
use crate::regions::{Loc, LocSet};
use crate::state::Ext;

declare_lint! {
    /// ### What it does
    /// Checks for host code that touches memory an operation still in flight uses: a host read
    /// of memory an asynchronous copy or a kernel writes, a host write to memory one reads or
    /// writes, freeing it, or reusing it from another stream, with no synchronization in between
    /// on some path. Synchronization is a stream, event or context synchronize, a blocking copy
    /// on the same stream, or a stream wait on an event that orders the work. It is reported
    /// once per operation in a function, at the first access that races it.
    ///
    /// ### Why is this bad?
    /// Asynchronous copies and kernel launches return before the work is done. The host then
    /// reads whatever the memory held before (stale data), or its write races with the copy
    /// that is still reading. Nothing crashes and compute-sanitizer reports nothing: a
    /// 256 MiB device-to-host copy read before `cudaStreamSynchronize` gave stale data in 5 runs
    /// out of 5 on an H200.
    ///
    /// cudarc waits for you only while its context has more than one stream and event tracking
    /// is on: with one stream (`ctx.default_stream()` alone), `PinnedHostSlice::as_slice`,
    /// `UnifiedSlice::as_slice` and `as_ptr` after an async copy into them wait for nothing (5 of
    /// 5 runs stale on an H200); so does any work enqueued through a raw pointer after the guard
    /// of `device_ptr` was dropped. Those are reported; what cudarc orders is not.
    ///
    /// cudarc records events only on its own types: a copy given a plain slice
    /// (`pinned.as_slice()?`, `&mut [T]`) records none on it, and a launch given a raw device
    /// pointer (`x.device_ptr(&s).0`) records none on that memory, so the slice's accessors, its
    /// drop and other streams do not wait for that work (vortex PRs #6673 and #7980).
    ///
    /// Blocking copies (`cuMemcpyDtoH`, `cudaMemcpy`, cudarc's `memcpy_*_sync`) and memsets, and
    /// work given the null stream (`null_mut()`, `0 as CUstream`), run on the legacy default
    /// stream, which does not wait for non-blocking streams
    /// (`CU_STREAM_NON_BLOCKING`, `cudaStreamNonBlocking`, every stream cudarc's `new_stream`
    /// makes), nor they for it; and a blocking copy from pageable memory returns once the data is
    /// staged, before it reaches the device (vortex PR #6157, RustaCUDA #41).
    ///
    /// The CUDA libraries' routines are work on a stream, like a kernel that reads their inputs
    /// and writes their outputs: cuBLAS (`cublasSgemm`, `cublasGemmEx`, `cublasSaxpy`, ...),
    /// cuBLASLt (`cublasLtMatmul`), cuFFT (`cufftExecC2C`, ...), cuRAND (`curandGenerateUniform`,
    /// ...), cuDNN (`cudnnConvolutionForward`, ...), NCCL (`ncclAllReduce`, `ncclSend`, ...), and
    /// in Rust cudarc's `CudaBlas` (`gemm`, `gemv`). A handle runs its routines on the legacy
    /// default stream until `cublasSetStream` (`cudnnSetStream`, `cufftSetStream`,
    /// `curandSetStream`) gives it one: synchronizing or ordering only the stream the program
    /// meant leaves the routine running (pytorch #31537, "a common error"). A reduction whose
    /// result is a host variable (`cublasSdot` in host pointer mode) returns once it is written.
    ///
    /// A graph launch (`cudaGraphLaunch`, `cuGraphLaunch`) runs the work captured into the graph
    /// again, on the launch's stream, on the memory it named when captured, host memory
    /// included: reading its output, or refilling its input, before a wait for that stream is
    /// reported as for a kernel. Capture itself runs nothing.
    ///
    /// CUDA-aware MPI (Open MPI, MVAPICH2, MPICH with CUDA) takes device pointers and uses them
    /// on the host's timeline, in no stream's order: a blocking call (`MPI_Send`, `MPI_Recv`,
    /// `MPI_Sendrecv`, `MPI_Bcast`, `MPI_Allreduce` and the other collectives) reads its send
    /// buffer and writes its receive buffer before it returns, so it races with a kernel, copy or
    /// memset still in flight on that memory, as a host access does (CuSan's MPI tests). A
    /// nonblocking one (`MPI_Isend`, `MPI_Irecv`, `MPI_Iallreduce`, ...) uses its buffers until
    /// its request is completed (`MPI_Wait`, `MPI_Waitall`, `MPI_Test` polled until done): CUDA
    /// work on them, a host access or a free before that is reported. CUDA waits do not complete
    /// MPI requests, and MPI waits do not wait for CUDA work; `MPI_Barrier` does neither.
    ///
    /// `cargo cuda-lint --fix` inserts `stream.synchronize()?;` before the access where that is
    /// certain to compile (the function returns a `Result` that takes the stream's error).
    ///
    /// ### Known problems
    /// Routines of the libraries not listed above (cuSPARSE, cuSOLVER, CUB, Thrust, CUTLASS)
    /// are not modelled, nor what cuBLAS's batched routines reach through their arrays of
    /// pointers; a handle's stream is followed within a function and the functions it calls,
    /// not through another method of the object that holds it. A handle's pointer mode is the
    /// one last set along the code (a device result on some path counts as device memory). A
    /// query (`cuEventQuery`, `cuStreamQuery`, `event.is_complete()`, `stream.query()`) is taken
    /// as a wait, since programs poll it until the work is done: an access made after a query
    /// that said "not ready" is not reported. A wrapper the analysis cannot see into hides what
    /// it does unless it carries an effect attribute or a `cuda-lint.toml` entry. A stream whose
    /// flags are not a constant here (a parameter, a stream made elsewhere) is taken as blocking.
    /// The streams of a collection (its elements, streams made in a loop or by `map`) are one
    /// stream to the analysis: a loop that waits for each (`for s in &streams {
    /// s.synchronize()? }`) is taken to wait for the work on any of them, also when the loop
    /// itself sits under an `if` that may skip it. `cuCtxSynchronize` and `cudaDeviceSynchronize`
    /// wait for the current context or device, which the analysis does not follow
    /// (`cuCtxSetCurrent`, `cudaSetDevice`): they are taken to wait for all work (cudarc's
    /// `CudaContext::synchronize` waits for its own context's streams only).
    /// Buffers made by one call in a loop, or kept in one array or `Vec` and chosen by an index
    /// at run time (a pool, a double buffer), are one buffer to the analysis: an access to one
    /// of them is reported against work on one of them only where that work was never waited
    /// for on any path (a ring refilled with no wait at all). Where the program waits on some
    /// turns (`if k >= 2 { stream.synchronize()? }`), whether the slot it reuses is the one
    /// waited for depends on the index, which the analysis does not follow: not reported. Nor
    /// are two places of a VMM reservation at offsets that are not constants (`base + head`).
    /// Memory a kernel polls through a `volatile` pointer parameter (a flag the host sets while
    /// it spins), or touches only through system-scope atomics (`atomicAdd_system`), is shared
    /// with the host by design: host accesses to it while the kernel runs are not reported.
    /// In C++, two places of one buffer at offsets written differently (`d` and `d + half`,
    /// `h + lo` and `h + hi`) are two parts of it, whose bytes the analysis does not compare:
    /// work on one part and work on another stream, or a host access, through another part is
    /// not reported, also where the one through the buffer itself covers it all (a copy of the
    /// whole buffer, a host loop over every element while a copy into `h + half` runs). `h[k]`
    /// is the part `h + k` where the program names that part.
    /// CUDA-aware MPI: `MPI_Waitany`/`MPI_Waitsome` are taken to complete every request they
    /// are given, and `MPI_Test` polled in a loop the requests it tests (in Rust, any `MPI_Test`
    /// in a loop; in C++, one in a loop that ends on its flag); in Rust the requests of one array
    /// are one request (`MPI_Wait(&mut reqs[0])` completes `reqs[1]`'s operation too; in C++,
    /// `&reqs[1]` is a request of its own). Where the function asks a collection of requests
    /// whether it is empty (`if reqs.is_empty() { return; }`), a path that skips the
    /// `MPI_Waitall` over it is taken to have held none. A `goto` is not followed in C++ (a
    /// `goto cleanup` that frees a buffer a receive still fills is not reported). Work a
    /// synchronous call may leave running (a `cudaMemset` of device memory) is not taken to race
    /// with MPI. rsmpi's safe API (the `mpi` crate's `process.send(&buf)`) is not modelled.
    /// A value sent over a channel (`Sender::send`) is the receiver's at once: where it carries
    /// nothing to wait on (an event, a stream), the send counts as a read of what an
    /// asynchronous copy may still write, even where the receiver waits on something else
    /// first (a context synchronize); the receiver's own reads are not followed.
    ///
    /// ### Example
    /// ```rust,ignore
    /// unsafe { stream.copy_dtoh_async(&mut host, &dev)? };
    /// let sum: f32 = host.iter().sum();
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// unsafe { stream.copy_dtoh_async(&mut host, &dev)? };
    /// stream.synchronize()?;
    /// let sum: f32 = host.iter().sum();
    /// ```
    pub MISSING_SYNC = "missing_sync", Deny, Correctness, "host access to memory an in-flight copy or kernel uses, with no synchronization in between"
}

pub fn check<S: Copy + PartialEq, X: Ext>(event: &Event<'_, S>, cx: &Cx<'_, S, X>, out: &mut Vec<Finding<S>>) {
    match *event {
        Event::HostAccess { regions, access } => {
            // Device-only memory the host touches is `host_deref_device_ptr`'s finding.
            if matches!(access, Access::Read | Access::Write)
                && !super::host_deref_device_ptr::device_only(regions, cx).is_empty()
            {
                return;
            }
            conflicts(regions, access, None, cx, out);
        }
        // CUDA-aware MPI takes device memory too: no access of its is `host_deref_device_ptr`'s.
        // What a synchronous call left running (a `cudaMemset` of device memory) is no work the
        // code is expected to wait for (as `relies_on_implicit_sync` says).
        Event::LibraryAccess { regions, access, call } => {
            let running = |op| cx.machine.may_be_running(cx.state, op) && !cx.machine.op(op).blocking;
            if let Some((l, op)) = access_conflict(regions, access, cx, &running) {
                out.push(report(cx, access, Some(call), l, op));
            }
        }
        // A free the driver makes wait for the device does not wait for a library's requests.
        Event::ImplicitWait { regions } => {
            let running = |op| cx.machine.may_be_running(cx.state, op) && cx.machine.op(op).kind == OpKind::Request;
            if let Some((l, op)) = access_conflict(regions, Access::Free, cx, &running) {
                out.push(report(cx, Access::Free, None, l, op));
            }
        }
        Event::FreeOnStreams {
            regions,
            streams,
            exempt,
        } => {
            let running = |op| cx.machine.may_be_running(cx.state, op);
            if let Some((l, op)) = free_conflict(regions, streams, exempt, cx, &running) {
                out.push(report(cx, Access::Free, None, l, op));
            }
        }
        // A library's operation is judged where its call uses the memory (`LibraryAccess`).
        Event::Enqueue { op } if cx.machine.op(op).kind == OpKind::Request => {}
        Event::Enqueue { op } => {
            let running = |op| cx.machine.may_be_running(cx.state, op);
            if let Some((other, l)) = reuse_conflict(op, cx, &running) {
                let mut finding = report(cx, Access::Reuse, None, l, other);
                if legacy_apart(cx.machine.op(op), cx.machine.op(other), cx) {
                    finding.diagnostic.note(LEGACY_APART);
                }
                out.push(finding);
            }
        }
        _ => {}
    }
}

/// Work that counts as running for the question asked: what may be in flight
/// ([`crate::Machine::may_be_running`]), or what only an implicit wait finished.
pub(super) type Running<'r> = dyn Fn(OpId) -> bool + 'r;

/// Of the work `running` says runs, the first that a free of `regions` in the order of `streams`
/// (`cuMemFreeAsync`, a cudarc slice dropped) races with, and the memory it uses.
pub(super) fn free_conflict<S: Copy + PartialEq, X: Ext>(
    regions: &LocSet,
    streams: &LocSet,
    exempt: &crate::ops::OpSet,
    cx: &Cx<'_, S, X>,
    running: &Running<'_>,
) -> Option<(Loc, OpId)> {
    if streams.is_empty() {
        return None;
    }
    for op in cx.state.inflight_may.iter() {
        if !running(op) || exempt.contains(op) || cx.machine.ordered_before(cx.state, op, streams) {
            continue;
        }
        let used = cx.machine.op(op);
        let Some(l) = regions.iter().find(|d| {
            used.uses_any(&LocSet::single(*d), cx.regions) && cx.machine.uses_current(cx.state, op, *d, cx.regions)
        }) else {
            continue;
        };
        return Some((l, op));
    }
    None
}

/// The first in-flight operation that `access` to `regions` (by the host, or by the library
/// function `call`) races with.
fn conflicts<S: Copy + PartialEq, X: Ext>(
    regions: &LocSet,
    access: Access,
    call: Option<&str>,
    cx: &Cx<'_, S, X>,
    out: &mut Vec<Finding<S>>,
) {
    let running = |op| cx.machine.may_be_running(cx.state, op);
    if let Some((l, op)) = access_conflict(regions, access, cx, &running) {
        out.push(report(cx, access, call, l, op));
    }
}

/// Of the work `running` says runs, the first that `access` to `regions` races with, and where.
pub(super) fn access_conflict<S: Copy + PartialEq, X: Ext>(
    regions: &LocSet,
    access: Access,
    cx: &Cx<'_, S, X>,
    running: &Running<'_>,
) -> Option<(Loc, OpId)> {
    for l in regions.iter() {
        let Some(kind) = cx.regions.mem_kind(l) else {
            continue;
        };
        if kind == MemKind::Unknown {
            continue;
        }
        // Memory that work keeps only while the call runs (pageable memory, not page-locked):
        // only work that uses host memory in stream order (a batch copy) still holds it.
        let stream_ordered_only = !cx.machine.can_be_in_flight(cx.state, l, cx.regions) && access != Access::Free;
        for op in cx.state.inflight_may.iter() {
            if !running(op) {
                continue;
            }
            let info = cx.machine.op(op);
            if stream_ordered_only && !info.host_in_stream_order || !cx.machine.uses_current(cx.state, op, l, cx.regions) {
                continue;
            }
            // Work the host waited for on some path, on one of several buffers the analysis does
            // not tell apart (a pool's slot chosen by an index, synchronized before the slot
            // comes round again): no evidence that this access races it. (Never waited for, as
            // in a ring refilled with no wait at all, it is.)
            if cx.regions.one_of_many(l) && cx.state.may_have_finished(op) {
                continue;
            }
            // The host through one part of a buffer, the work on another (`h` and `h + half`,
            // `h + lo` and `h + hi`): no evidence of the same bytes. (A free releases every part.)
            let same = |w: Loc| cx.regions.overlaps(w, l) && (access == Access::Free || !cx.regions.apart(w, l));
            let hit = match access {
                // Writes assumed of a kernel whose source was not seen are no evidence:
                // `unverified` says so.
                Access::Read => !info.writes_unseen && info.writes.iter().any(same),
                Access::Write | Access::Free | Access::Reuse => info.writes.iter().chain(info.reads.iter()).any(same),
            };
            if hit {
                return Some((l, op));
            }
        }
    }
    None
}

/// Of the work `running` says runs, the most recent that new work `new` on another stream,
/// unordered with it, reuses memory of (one finding per call), and that memory.
pub(super) fn reuse_conflict<S: Copy + PartialEq, X: Ext>(
    new: OpId,
    cx: &Cx<'_, S, X>,
    running: &Running<'_>,
) -> Option<(OpId, Loc)> {
    let op = cx.machine.op(new);
    let mut found: Option<(OpId, Loc)> = None;
    for other in cx.state.inflight_may.iter() {
        if other == new || !running(other) || cx.machine.ordered_before(cx.state, other, &op.streams) {
            continue;
        }
        let prev = cx.machine.op(other);
        // Two mappings of one allocation used by the two: `unfenced_vmm_alias` reports it.
        if super::unfenced_vmm_alias::alias_between(op, prev, cx).is_some() {
            continue;
        }
        let current = |l: &Loc| cx.machine.uses_current(cx.state, other, *l, cx.regions);
        // Writes assumed of a kernel whose source was not seen are no evidence; its reads are.
        let (op_writes, prev_writes) = (
            if op.writes_unseen { LocSet::new() } else { op.writes.clone() },
            if prev.writes_unseen { LocSet::new() } else { prev.writes.clone() },
        );
        // Two places at offsets of a VMM reservation the analysis does not know (`base + head`,
        // `base + self.size`) are no evidence of the same memory: they may be apart, or two
        // mappings of one allocation (`unfenced_vmm_alias`'s).
        let unknown_offset = |l: Loc| cx.regions.at_unknown_offset(cx.regions.mapping(l));
        let maybe_done = cx.state.may_have_finished(other);
        let same = |a: Loc, b: Loc| {
            cx.regions.overlaps(a, b)
                && !cx.regions.apart(a, b)
                && !(unknown_offset(a) && unknown_offset(b))
                && !(maybe_done && cx.regions.one_of_many(a))
        };
        let conflict = op_writes
            .iter()
            .filter(current)
            .find(|w| prev.reads.iter().chain(prev_writes.iter()).any(|p| same(*w, p)))
            .or_else(|| {
                op.reads
                    .iter()
                    .filter(current)
                    .find(|r| prev_writes.iter().any(|p| same(*r, p)))
            });
        if let Some(l) = conflict
            && cx.regions.mem_kind(l).is_some_and(|k| k != MemKind::Unknown)
        {
            found = Some((other, l));
        }
    }
    found
}

/// Why CUDA-aware MPI races with CUDA work.
const MPI_TIMELINE: &str = "CUDA-aware MPI uses host and device memory on the host's timeline, in no stream's \
                            order: the device's work on a buffer must be waited for before MPI gets it, and \
                            an MPI request completed (`MPI_Wait`) before CUDA work or the host uses its \
                            buffer; neither kind of wait does the other's";

/// Why work on the legacy default stream and on a non-blocking stream may overlap.
const LEGACY_APART: &str = "the legacy default stream (the null stream: blocking copies such as \
                            `cuMemcpyDtoH`/`cudaMemcpy` and memsets run there) does not wait for work on a \
                            non-blocking stream (`CU_STREAM_NON_BLOCKING`, `cudaStreamNonBlocking`, every \
                            stream cudarc's or the runtime layer's `new_stream` makes), nor does that stream \
                            wait for it";

/// Whether one of two operations runs on the legacy default stream and the other only on
/// non-blocking streams.
fn legacy_apart<X: Ext>(a: &Op, b: &Op, cx: &Cx<'_, impl Copy + PartialEq, X>) -> bool {
    let legacy = |o: &Op| !o.streams.is_empty() && o.streams.iter().all(|s| cx.machine.is_legacy(s));
    let non_blocking = |o: &Op| !o.streams.is_empty() && o.streams.iter().all(|s| cx.machine.is_non_blocking(s));
    (legacy(a) && non_blocking(b)) || (legacy(b) && non_blocking(a))
}

/// The finding: `access` to the memory at `l` (by the host, or by the library function `call`)
/// while operation `op` may still use it.
fn report<S: Copy + PartialEq, X: Ext>(
    cx: &Cx<'_, S, X>,
    access: Access,
    call: Option<&str>,
    l: Loc,
    op: OpId,
) -> Finding<S> {
    let target = cx.describe.region(cx.regions.root(l));
    let op_desc = cx.describe.in_flight(op);
    let some_paths = !cx.state.surely_running(op);
    let name = named(&target.name, "memory");
    let request = cx.machine.op(op).kind == OpKind::Request;
    let (verb, uses) = match (access, call) {
        (Access::Read, Some(call)) => (format!("`{call}` reads {name}"), "may still write it"),
        (Access::Write, Some(call)) => (format!("`{call}` writes {name}"), "may still use it"),
        (_, _) if request && access == Access::Reuse => (format!("new work uses {name}"), "may still use it"),
        (Access::Read, _) => (format!("host read of {name}"), "may still write it"),
        (Access::Write, _) => (format!("host write to {name}"), "may still use it"),
        (Access::Free, _) => (format!("{name} is freed"), "may still use it"),
        (Access::Reuse, _) => (
            format!("{name} is reused by work on another stream"),
            "may still use it",
        ),
    };
    let article = if op_desc.what.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    let mut diag = Diagnostic::new(format!(
        "{verb} while {article} {} {uses}{}",
        op_desc.what,
        paths_suffix(some_paths)
    ));
    let on = op_desc
        .stream
        .as_ref()
        .map(|s| {
            if request {
                format!(" on request `{s}`")
            } else {
                format!(" on stream `{s}`")
            }
        })
        .unwrap_or_default();
    if op_desc.span != cx.span {
        diag.label(op_desc.span, format!("{} started here{on}", op_desc.what));
    }
    diag.via("the access happens");
    for note in &op_desc.notes {
        diag.note(*note);
    }
    if call.is_some() || request {
        diag.note(MPI_TIMELINE);
    }
    match access {
        Access::Reuse if request => {
            diag.help(op_desc.advice.order_streams.to_string());
        }
        Access::Reuse => {
            diag.help(format!(
                "order the streams: {}, or synchronize in between",
                op_desc.advice.order_streams
            ));
        }
        _ => {
            let help = wait_help(&op_desc, &name, request);
            match wait_fix(&op_desc, &name, &help) {
                Some(fix) => diag.children.push(Child::WaitBefore(fix)),
                None => {
                    diag.help(help);
                }
            }
        }
    }
    cx.finding(&MISSING_SYNC, "missing_sync", some_paths, diag)
}

fn wait_help<S>(op: &InFlight<S>, name: &str, request: bool) -> String {
    let how = match &op.stream {
        // A stream one of a collection's (`streams[..]`): the call names one element.
        Some(s) if s.contains("[..]") => {
            let one = s.replacen("[..]", "[i]", 1).replace("[..]", "[j]");
            format!(
                "call {} for the element the {} ran on",
                op.advice.sync_stream.replace("{stream}", &one),
                op.what
            )
        }
        Some(s) => format!("call {}", op.advice.sync_stream.replace("{stream}", s)),
        None => "synchronize the stream".to_string(),
    };
    if request {
        return format!("{how} before touching {name}");
    }
    format!(
        "{how} (or wait on an event recorded after the {}) before touching {name}",
        op.what
    )
}

/// The waiting statement, when the API has one and the stream has a plain name.
fn wait_fix<S>(op: &InFlight<S>, name: &str, help: &str) -> Option<WaitFix> {
    let template = op.advice.sync_statement?;
    let stream = op.stream.as_deref()?;
    if stream.is_empty() || !stream.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.') {
        return None;
    }
    Some(WaitFix {
        statement: template.replace("{stream}", stream),
        error_type: op.advice.error_type,
        stream: stream.to_string(),
        message: format!("wait for the {} before touching {name}", op.what),
        help: help.to_string(),
    })
}
