//! `cuda_lint::relies_on_implicit_sync`: fires where an ordering the program needs holds only
//! because a CUDA call happens to synchronize, which no CUDA documentation promises:
//! - a free that waits for the device only by the driver's accident (`cudaFree`, `cuMemFree`,
//!   `cudaFreeHost`, `cuMemFreeHost`: [`crate::FreeKind::WaitsImplicitly`]) of memory work in
//!   flight uses ([`Event::ImplicitWait`]);
//! - a host access, a stream-ordered free or new work on another stream that races with work
//!   only such a free waited for ([`crate::Machine::only_implicitly_waited`]), with the
//!   questions `missing_sync` asks of work in flight;
//! - a host access to pageable memory an asynchronous device-to-host copy may still write, not
//!   waited for: the driver copies into pageable memory before the call returns, which the
//!   documentation says it "might" do.

use super::missing_sync::{Running, access_conflict, free_conflict, reuse_conflict};
use super::{Cx, named, paths_suffix};
use crate::diagnostic::{Diagnostic, Finding};
use crate::events::{Event, InFlight};
use crate::memory::{Access, MemKind};
use crate::ops::{OpId, OpKind};
use crate::regions::{Loc, LocSet};
use crate::state::Ext;

declare_lint! {
    /// ### What it does
    /// Checks for orderings that hold only because a CUDA call happens to synchronize:
    /// - freeing memory with `cudaFree`, `cuMemFree`, `cudaFreeHost` or `cuMemFreeHost` while a
    ///   kernel, copy or memset enqueued before may still use it, with no wait in between;
    /// - touching memory (a host read or write, a stream-ordered free, work on another stream)
    ///   that such work uses, where the only call in between that made the host wait is one of
    ///   those frees, of other memory;
    /// - reading or writing the pageable destination of an asynchronous device-to-host copy
    ///   (`cudaMemcpyAsync`, `cuMemcpyDtoHAsync`) before waiting for its stream.
    ///
    /// It is reported once per piece of work in a function, at the first place that relies on
    /// the implicit wait.
    ///
    /// ### Why is this bad?
    /// The program is right with today's drivers, by an implementation detail. The runtime API
    /// says of `cudaFree` that it "may perform implicit synchronization", and performs none for
    /// memory from `cudaMallocAsync`; NVIDIA calls its device synchronization "an implementation
    /// detail" that "was never documented" (cupy #3777), and kokkos (#9307) and others had to
    /// add the missing waits. An asynchronous copy to pageable memory "might be synchronous with
    /// respect to host": pin the buffer (what `pageable_async_copy` asks for) and the read
    /// races with the copy. Moving to stream-ordered allocation, pinned memory, per-thread
    /// default streams or another driver turns the code into a race that nothing reports.
    ///
    /// Warn by default, in the `suspicious` group: the results are right today, so it is not
    /// `correctness`'s; the fix is one explicit wait, and the day it matters the symptom is
    /// stale data far from the cause.
    ///
    /// ### Known problems
    /// Memory from `cudaMallocAsync` freed with `cudaFree` waits for nothing at all: that is
    /// `missing_sync`'s. `cudaHostUnregister`/`cuMemHostUnregister` are taken to wait for the
    /// work using the memory, as the driver does. A host write to the pageable source of an
    /// asynchronous host-to-device copy is not reported (the driver stages it before
    /// returning). What is left running of a synchronous call (a `cudaMemset` of device memory,
    /// the DMA of a `cudaMemcpy` staged from pageable memory) is not taken as work to wait for.
    /// cudarc's safe copies into a `Vec` or `&mut [T]` (`memcpy_dtoh`, `clone_dtoh`) rely on
    /// the pageable copy being synchronous themselves (cudarc 0.19 waits for nothing after
    /// them): that is the library's contract, and code using it is not reported. The same
    /// blind spots as `missing_sync`'s: work the analysis cannot see, streams it cannot tell
    /// apart. Work of the CUDA libraries is not followed: a cuBLAS call that reads a kernel's
    /// output into a host scalar (and so waits) before the free does not count as a wait. A
    /// buffer made anew in each round of a loop, where some path waited for an earlier round's
    /// work, is taken as one of several buffers, as in `missing_sync`: its free is not
    /// reported. In C++, a `std::unique_ptr`'s deleter runs where the pointer ends only when
    /// its type names the deleter (`unique_ptr<T, CudaFree>`, through the file's aliases); a
    /// deleter given to the constructor, and `shared_ptr`, are followed for which allocator
    /// they free with, not for when.
    ///
    /// ### Example
    /// ```cuda
    /// scale<<<blocks, threads, 0, stream>>>(d_tmp, d_out);
    /// cudaFree(d_tmp); // the kernel may still read d_tmp
    /// ```
    ///
    /// Use instead:
    /// ```cuda
    /// scale<<<blocks, threads, 0, stream>>>(d_tmp, d_out);
    /// cudaFreeAsync(d_tmp, stream); // or cudaStreamSynchronize(stream) first
    /// ```
    pub RELIES_ON_IMPLICIT_SYNC = "relies_on_implicit_sync", Warn, Suspicious, "an ordering that holds only because a CUDA call happens to synchronize (`cudaFree`, a pageable copy)"
}

/// What the CUDA documentation says of the frees the lint is about.
const FREE_NOTE: &str = "`cudaFree`, `cuMemFree`, `cudaFreeHost` and `cuMemFreeHost` \"may perform implicit \
                         synchronization\" (CUDA runtime API), no more: they perform none for memory from \
                         `cudaMallocAsync`, and NVIDIA calls the device synchronization they do today an \
                         implementation detail";

/// What it says of asynchronous copies to pageable memory.
const PAGEABLE_NOTE: &str = "an asynchronous copy between device memory and pageable host memory \"might be \
                             synchronous with respect to host\" (CUDA runtime API, API synchronization \
                             behavior): pinned, or if the driver stops staging it, the copy runs after the \
                             call returns";

pub fn check<S: Copy + PartialEq, X: Ext>(event: &Event<'_, S>, cx: &Cx<'_, S, X>, out: &mut Vec<Finding<S>>) {
    // Work a synchronous call enqueued (`cudaMemcpy`, `cudaMemset`) is not work code is expected
    // to wait for, whatever of it may still run after the call.
    let implicit = |op| cx.machine.only_implicitly_waited(cx.state, op) && !cx.machine.op(op).blocking;
    match *event {
        Event::ImplicitWait { regions } => {
            // Work in flight that uses the memory freed: the free relies on its own wait.
            for l in regions.iter() {
                if cx.regions.mem_kind(l).is_none_or(|k| k == MemKind::Unknown) {
                    continue;
                }
                let users = cx.machine.users(cx.state, &LocSet::single(l), cx.regions);
                // Work the host waited for on some path, on one of several buffers the analysis
                // does not tell apart (a slot of a ring): no evidence it is this one (as
                // `missing_sync`).
                // A library's request is no CUDA work: the free does not wait for it at all
                // (`missing_sync`'s).
                let evidence = |op: OpId| {
                    let o = cx.machine.op(op);
                    !o.blocking
                        && o.kind != OpKind::Request
                        && !(cx.regions.one_of_many(l) && cx.state.may_have_finished(op))
                };
                if let Some(op) = users.iter().find(|op| evidence(*op)) {
                    out.push(free_report(cx, l, op));
                    return;
                }
            }
        }
        Event::HostAccess { regions, access } => {
            if matches!(access, Access::Read | Access::Write)
                && !super::host_deref_device_ptr::device_only(regions, cx).is_empty()
            {
                return;
            }
            if let Some((l, op)) = access_conflict(regions, access, cx, &implicit) {
                out.push(ordered_only_by_free(cx, access, l, op));
            } else if let Some((l, op)) = pageable_copy(regions, cx) {
                out.push(pageable_report(cx, access, l, op));
            }
        }
        // CUDA-aware MPI's use of memory, which may be device memory.
        Event::LibraryAccess { regions, access, .. } => {
            if let Some((l, op)) = access_conflict(regions, access, cx, &implicit) {
                out.push(ordered_only_by_free(cx, access, l, op));
            } else if let Some((l, op)) = pageable_copy(regions, cx) {
                out.push(pageable_report(cx, access, l, op));
            }
        }
        Event::FreeOnStreams {
            regions,
            streams,
            exempt,
        } => {
            if let Some((l, op)) = free_conflict(regions, streams, exempt, cx, &implicit) {
                out.push(ordered_only_by_free(cx, Access::Free, l, op));
            }
        }
        // A library's operation is judged where its call uses the memory (`LibraryAccess`).
        Event::Enqueue { op } if cx.machine.op(op).kind != OpKind::Request => {
            if let Some((other, l)) = reuse_conflict(op, cx, &implicit) {
                out.push(ordered_only_by_free(cx, Access::Reuse, l, other));
            }
        }
        _ => {}
    }
}

/// An asynchronous copy that may still write the pageable memory of `regions` (not page-locked
/// in place) as far as the documentation goes, with nothing waited for since.
fn pageable_copy<S: Copy + PartialEq, X: Ext>(regions: &LocSet, cx: &Cx<'_, S, X>) -> Option<(Loc, OpId)> {
    // The copy itself may have been taken as waited for by its own call (it "might be
    // synchronous"): the read relies on that.
    let running: &Running<'_> = &|op| {
        (cx.machine.may_be_running(cx.state, op) || cx.machine.only_implicitly_waited(cx.state, op))
            && !cx.machine.op(op).blocking
    };
    for l in regions.iter() {
        if cx.regions.mem_kind(l) != Some(MemKind::Pageable) || cx.machine.can_be_in_flight(cx.state, l, cx.regions) {
            continue;
        }
        for op in cx.state.inflight_may.iter() {
            let info = cx.machine.op(op);
            if !running(op) || info.kind != OpKind::Copy || info.host_in_stream_order {
                continue;
            }
            if !cx.machine.uses_current(cx.state, op, l, cx.regions) {
                continue;
            }
            // One of several buffers the analysis does not tell apart, waited for on some path:
            // no evidence it is this one (as `missing_sync`).
            if cx.regions.one_of_many(l) && cx.state.may_have_finished(op) {
                continue;
            }
            if info
                .writes
                .iter()
                .any(|w| cx.regions.overlaps(w, l) && !cx.regions.apart(w, l))
            {
                return Some((l, op));
            }
        }
    }
    None
}

fn article(what: &str) -> &'static str {
    if what.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" }
}

fn start_label<S: Copy + PartialEq>(diag: &mut Diagnostic<S>, op: &InFlight<S>, at: S) {
    if op.span != at {
        let on = op.stream.as_ref().map(|s| format!(" on stream `{s}`")).unwrap_or_default();
        diag.label(op.span, format!("{} started here{on}", op.what));
    }
}

fn wait_help<S>(op: &InFlight<S>) -> String {
    match &op.stream {
        Some(s) if !op.advice.sync_stream.is_empty() => op.advice.sync_stream.replace("{stream}", s),
        _ => "a stream or device synchronize".to_string(),
    }
}

/// A free that waits only implicitly, of memory `op` may still use.
fn free_report<S: Copy + PartialEq, X: Ext>(cx: &Cx<'_, S, X>, l: Loc, op: OpId) -> Finding<S> {
    let target = cx.describe.region(cx.regions.root(l));
    let desc = cx.describe.in_flight(op);
    let some_paths = !cx.state.surely_running(op);
    let name = named(&target.name, "memory");
    let mut diag = Diagnostic::new(format!(
        "{name} is freed while {} {} may still use it{}, and only the free's implicit synchronization waits for it",
        article(desc.what),
        desc.what,
        paths_suffix(some_paths)
    ));
    start_label(&mut diag, &desc, cx.span);
    diag.via("the free happens").note(FREE_NOTE).help(format!(
        "call {} before freeing {name}, or free it in the stream's order (`cudaFreeAsync`, `cuMemFreeAsync`)",
        wait_help(&desc)
    ));
    cx.finding(&RELIES_ON_IMPLICIT_SYNC, "relies_on_implicit_sync", some_paths, diag)
}

/// `access` to the memory at `l` while `op`, which only an implicit wait finished, may use it.
fn ordered_only_by_free<S: Copy + PartialEq, X: Ext>(
    cx: &Cx<'_, S, X>,
    access: Access,
    l: Loc,
    op: OpId,
) -> Finding<S> {
    let target = cx.describe.region(cx.regions.root(l));
    let desc = cx.describe.in_flight(op);
    let some_paths = !cx.state.surely_running(op);
    let name = named(&target.name, "memory");
    let verb = match access {
        Access::Read => format!("host read of {name}"),
        Access::Write => format!("host write to {name}"),
        Access::Free => format!("{name} is freed"),
        Access::Reuse => format!("{name} is reused by work on another stream"),
    };
    let mut diag = Diagnostic::new(format!(
        "{verb} after {} {}{} that only an implicit synchronization waited for (a free such as `cudaFree`, or a copy into pageable memory)",
        article(desc.what),
        desc.what,
        paths_suffix(some_paths)
    ));
    start_label(&mut diag, &desc, cx.span);
    diag.via("the access happens")
        .note(FREE_NOTE)
        .note(PAGEABLE_NOTE)
        .help(format!("call {} before touching {name}", wait_help(&desc)));
    cx.finding(&RELIES_ON_IMPLICIT_SYNC, "relies_on_implicit_sync", some_paths, diag)
}

/// `access` to pageable memory `l` an asynchronous copy `op` wrote, not waited for.
fn pageable_report<S: Copy + PartialEq, X: Ext>(cx: &Cx<'_, S, X>, access: Access, l: Loc, op: OpId) -> Finding<S> {
    let target = cx.describe.region(cx.regions.root(l));
    let desc = cx.describe.in_flight(op);
    let some_paths = !cx.state.surely_running(op);
    let name = named(&target.name, "memory");
    let verb = match access {
        Access::Write => format!("host write to {name}"),
        Access::Free => format!("{name} is freed"),
        _ => format!("host read of {name}"),
    };
    let mut diag = Diagnostic::new(format!(
        "{verb}, which {} {} writes, with no wait{}: right only because {name} is pageable",
        article(desc.what),
        desc.what,
        paths_suffix(some_paths)
    ));
    start_label(&mut diag, &desc, cx.span);
    diag.via("the access happens")
        .note(PAGEABLE_NOTE)
        .help(format!("call {} before touching {name}", wait_help(&desc)));
    cx.finding(&RELIES_ON_IMPLICIT_SYNC, "relies_on_implicit_sync", some_paths, diag)
}
