//! `cuda_lint::pageable_async_copy`: fires when an asynchronous copy's host side is pageable
//! memory on every path, or on some paths (where the other paths give memory of unknown kind,
//! or memory page-locked in place on some paths only). Memory page-locked in place
//! (`cuMemHostRegister`) on every path is pinned.

use super::{Cx, named, origin_label, paths_suffix};
use crate::diagnostic::{Diagnostic, Finding};
use crate::events::Event;
use crate::memory::{Dir, MemKind};
use crate::state::Ext;

declare_lint! {
    /// ### What it does
    /// Checks for asynchronous host<->device copies whose host side may be pageable memory:
    /// a `Vec`, a slice of one, an array, a `Box`, the stack, or heap memory that was never
    /// page-locked (`cuMemHostRegister`). A copy captured into a CUDA graph (between
    /// `cudaStreamBeginCapture` and `cudaStreamEndCapture`) is reported too: each launch of the
    /// graph copies from that pageable memory again.
    ///
    /// ### Why is this bad?
    /// The driver cannot DMA from pageable memory. It stages the data through a pinned buffer of
    /// its own, so the "asynchronous" call blocks the host until the data is staged, copies at a
    /// fraction of the bandwidth and cannot overlap with kernels. On an H200 (CUDA 13.0) a 256 MiB
    /// copy ran at 14.6 GB/s from pageable memory against 55.6 GB/s from pinned memory, the host
    /// was blocked for 20 ms inside the call instead of 0, and a concurrent 20 ms kernel did not
    /// overlap (22.8 ms in all instead of 20.0 ms). Nothing fails: the program is just slower.
    ///
    /// This lint warns by default: the program is correct, only slow.
    ///
    /// cudarc's `memcpy_htod`, `memcpy_dtoh`, `clone_htod` and `clone_dtoh` with a `Vec`, a slice
    /// or an array are such copies (use a `PinnedHostSlice`); so are `cuMemcpy*Async` and
    /// `cudaMemcpyAsync` with memory that neither `cuMemHostAlloc`/`cudaMallocHost` allocated nor
    /// `cuMemHostRegister`/`cudaHostRegister` page-locked. A `cudaMemcpyKind` argument gives the
    /// direction; `cudaMemcpyDefault` lets the memory kinds decide.
    ///
    /// What CUDA guarantees for such a copy ("API synchronization behavior" in the driver and
    /// runtime references): from pageable memory to the device, the call returns once the data
    /// is staged (the DMA to the device may still run); from the device to pageable memory, it
    /// returns once the copy is done. So the host may reuse the pageable buffer right after the
    /// call: this lint is about speed, and `missing_sync` does not report that reuse. CUDA does
    /// not promise that in two cases, which `missing_sync` reports: memory a caller page-locked
    /// in place (`cuMemHostRegister`) is pinned, and in flight until the stream is done, wherever
    /// the copy is made; and batch copies (`cuMemcpyBatchAsync`, `cudaMemcpyBatchAsync`) write
    /// their destinations in stream order and read their sources in stream order too unless
    /// their `srcAccessOrder` is `CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL` (`_ANY` lets the
    /// driver read pageable sources after the call returns). Batch copies are meant for
    /// pageable memory and are not reported here.
    ///
    /// A copy whose size is known to be under 64 KiB (a scalar, a small array or struct, a
    /// constant byte count) is not reported: that small, a copy is latency-bound and pinned
    /// memory does not make it measurably faster (16 KiB: 9.1 us pageable, 8.9 us pinned;
    /// 64 KiB: 16.5 us against 9.3 us, on an H200). `cuda-lint.toml` sets the threshold:
    /// `[perf] min-copy-bytes = 65536`. `[perf] in-tests = false` silences the `perf` lints in
    /// tests, benches and examples.
    ///
    /// ### Example
    /// ```rust,ignore
    /// let host = vec![1.0f32; n];
    /// let mut dev = ctx.alloc::<f32>(n)?;
    /// unsafe { stream.copy_htod_async(&mut dev, &host)? };
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// let mut host = ctx.alloc_pinned::<f32>(n)?;
    /// host.fill(1.0);
    /// let mut dev = ctx.alloc::<f32>(n)?;
    /// unsafe { stream.copy_htod_async(&mut dev, &host)? };
    /// ```
    /// or page-lock memory you already have with `ctx.register_host(&mut vec)`.
    pub PAGEABLE_ASYNC_COPY = "pageable_async_copy", Warn, Perf, "an asynchronous copy whose host side may be pageable memory"
}

pub fn check<S: Copy + PartialEq, X: Ext>(event: &Event<'_, S>, cx: &Cx<'_, S, X>, out: &mut Vec<Finding<S>>) {
    let Event::AsyncCopy {
        host,
        dir,
        host_arg,
        bytes,
        advice,
    } = *event
    else {
        return;
    };
    // A copy this small is latency-bound: pinned memory would not make it measurably faster.
    if bytes.is_some_and(|b| b < cx.options.min_copy_bytes) || !cx.perf_applies() {
        return;
    }
    let mut pageable = Vec::new();
    let mut others = 0;
    for l in host.iter() {
        let root = cx.regions.root(l);
        match cx.regions.mem_kind(l) {
            // Page-locked in place on every path: pinned (so the other sides make it "some
            // paths"); on some paths: pageable on the others.
            Some(MemKind::Pageable) if cx.state.registered_must.contains(root) => others += 1,
            Some(MemKind::Pageable) => {
                pageable.push(root);
                if cx.state.registered_may.contains(root) {
                    others += 1;
                }
            }
            // Memory of unknown kind may be pinned: the copy is pageable on some paths only.
            _ => others += 1,
        }
    }
    let Some(&first) = pageable.first() else {
        return;
    };
    let some_paths = others > 0;
    let region = cx.describe.region(first);
    let direction = match dir {
        Dir::DeviceToHost => "into",
        _ => "from",
    };
    let mut diag = Diagnostic::new(format!(
        "asynchronous copy {direction} pageable host memory{}",
        paths_suffix(some_paths)
    ));
    let what = named(&region.name, "this memory");
    let ty = region.ty.as_deref().map(|t| format!(" (`{t}`)")).unwrap_or_default();
    match host_arg {
        Some(arg) if !cx.in_helper && arg != cx.span => {
            diag.label(arg, format!("{what} is pageable{ty}"));
        }
        _ => {}
    }
    if region.origin != cx.span {
        diag.label(region.origin, origin_label(&region, "this memory"));
    }
    diag.via("the copy happens")
        .note(
            "the driver stages pageable memory through a pinned buffer: the call blocks until \
             the data is staged, and the copy cannot overlap with kernels",
        )
        // A readback's destination is read by the host: pinned, but not write-combined.
        .help(if dir == Dir::DeviceToHost && !advice.pinned_readback.is_empty() {
            advice.pinned_readback
        } else {
            advice.pinned
        });
    out.push(cx.finding(&PAGEABLE_ASYNC_COPY, "pageable_async_copy", some_paths, diag));
}
