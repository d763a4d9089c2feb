use clippy_utils::diagnostics::span_lint_hir_and_then;
use rustc_lint::LateContext;

use super::{declare_cuda_lint, named, note_via, paths_suffix};
use crate::analysis::{Finding, FindingKind};
use crate::api::Dir;

declare_cuda_lint! {
    /// ### What it does
    /// Checks for asynchronous host<->device copies whose host side may be pageable memory:
    /// a `Vec`, a slice of one, an array, a `Box`, the stack, or heap memory that was never
    /// page-locked (`cuMemHostRegister`).
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
    pub PAGEABLE_ASYNC_COPY,
    Warn,
    "an asynchronous copy whose host side may be pageable memory"
}

pub(super) fn report(cx: &LateContext<'_>, finding: &Finding) {
    let FindingKind::PageableAsyncCopy {
        host,
        dir,
        host_arg,
        advice,
    } = &finding.kind
    else {
        return;
    };
    let direction = match dir {
        Dir::DeviceToHost => "into",
        _ => "from",
    };
    let msg = format!(
        "asynchronous copy {direction} pageable host memory{}",
        paths_suffix(finding)
    );
    span_lint_hir_and_then(cx, PAGEABLE_ASYNC_COPY, finding.lint_root, finding.span, msg, |diag| {
        let what = named(&host.name, "this memory");
        let ty = host.ty.as_deref().map(|t| format!(" (`{t}`)")).unwrap_or_default();
        match host_arg {
            Some(arg) if finding.via.is_none() && *arg != finding.span => {
                diag.span_label(*arg, format!("{what} is pageable{ty}"));
            }
            _ => {}
        }
        if host.origin != finding.span {
            diag.span_label(host.origin, super::origin_label(host, "this memory"));
        }
        note_via(diag, finding, "the copy happens");
        diag.note(
            "the driver stages pageable memory through a pinned buffer: the call blocks until \
             the data is staged, and the copy cannot overlap with kernels",
        );
        diag.help(advice.pinned);
    });
}
