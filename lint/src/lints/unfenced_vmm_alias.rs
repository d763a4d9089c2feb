use clippy_utils::diagnostics::span_lint_hir_and_then;
use rustc_lint::LateContext;

use super::{declare_cuda_lint, named, note_via, paths_suffix};
use crate::analysis::{Finding, FindingKind, Kernel};

declare_cuda_lint! {
    /// ### What it does
    /// Checks for two VMM mappings (`cuMemMap`) of one physical allocation that are used by one
    /// kernel whose CUDA source has no `fence.proxy.alias`, or by operations on different streams
    /// with no event or stream ordering between them. When the kernel's source is visible (a
    /// string or `include_str!` compiled with NVRTC), it is read; when it is not, the finding says
    /// so.
    ///
    /// ### Why is this bad?
    /// Each virtual alias of a physical allocation is its own proxy: writes through one are not
    /// coherent with reads through another until the writing operation completes, or, within one
    /// kernel, until it executes `fence.proxy.alias` (CUDA Programming Guide, "Virtual Aliasing
    /// Support"). Without it, reads through the second mapping return stale data: 32 stale reads
    /// over 50 launches on an H200, none with the fence. compute-sanitizer reports no hazard.
    ///
    /// With cudarc, mappings wrapped in `CudaSlice`s (`upgrade_device_ptr`) are two slices with
    /// events of their own: cudarc never orders work on one after work on the other.
    ///
    /// ### Known problems
    /// Mappings created by one call in a loop (pushed into a `Vec`, say) are one mapping to the
    /// analysis: two of them passed to one kernel are not told apart from one passed twice, so
    /// that case is not reported.
    ///
    /// ### Example
    /// ```rust,ignore
    /// // __global__ void k(int* a, const int* b, int* out) { a[i] = 1; out[i] = b[i]; }
    /// let a = range_a.map(&physical, 0)?;
    /// let b = range_b.map(&physical, 0)?;
    /// unsafe { stream.launch(&k, cfg, &[&a, &b, &out])? };
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// // __global__ void k(int* a, const int* b, int* out) {
    /// //     a[i] = 1; asm volatile("fence.proxy.alias;" ::: "memory"); out[i] = b[i]; }
    /// unsafe { stream.launch(&k, cfg, &[&a, &b, &out])? };
    /// ```
    /// or, across streams, record an event after the first work and `wait_event` on it.
    pub UNFENCED_VMM_ALIAS,
    Deny,
    "two mappings of one physical allocation used without `fence.proxy.alias` or stream ordering"
}

pub(super) fn report(cx: &LateContext<'_>, finding: &Finding) {
    match &finding.kind {
        FindingKind::AliasInOneKernel { first, second, kernel } => {
            let msg = match kernel {
                Kernel::Unfenced { name } => {
                    format!("kernel `{name}` uses two mappings of one physical allocation without `fence.proxy.alias`")
                }
                Kernel::SourceNotVisible { name } => format!(
                    "kernel{} uses two mappings of one physical allocation, and its source is not visible to cuda-lint",
                    name.as_ref().map(|n| format!(" `{n}`")).unwrap_or_default()
                ),
                Kernel::NameNotConstant => "a kernel whose name is not a constant uses two mappings of one physical \
                                            allocation: cuda-lint cannot tell whether it fences"
                    .to_string(),
                Kernel::NotInSource { name } => format!(
                    "kernel `{name}` uses two mappings of one physical allocation, and cuda-lint does not find it \
                     in the source it was compiled from"
                ),
            };
            span_lint_hir_and_then(cx, UNFENCED_VMM_ALIAS, finding.lint_root, finding.span, msg, |diag| {
                label_mappings(diag, finding, first, second);
                note_via(diag, finding, "the launch happens");
                diag.note(
                    "writes through one virtual alias are not coherent with reads through \
                     another until `fence.proxy.alias` executes",
                );
                match kernel {
                    Kernel::Unfenced { .. } => diag.help(
                        "execute `asm volatile(\"fence.proxy.alias;\" ::: \"memory\");` in the kernel \
                         between the accesses through the two mappings",
                    ),
                    Kernel::SourceNotVisible { .. } | Kernel::NotInSource { .. } => diag.help(
                        "make sure the kernel executes `fence.proxy.alias` between the accesses, \
                         or compile its source from a string or `include_str!` so cuda-lint can check",
                    ),
                    Kernel::NameNotConstant => diag.help(
                        "make sure the kernel executes `fence.proxy.alias` between the accesses, or name it \
                         with a constant (`module.function(\"kernel\")`) so cuda-lint can check",
                    ),
                };
            });
        }
        FindingKind::AliasAcrossStreams { first, second, other } => {
            let msg = format!(
                "two mappings of one physical allocation are used by unordered work on different streams{}",
                paths_suffix(finding)
            );
            span_lint_hir_and_then(cx, UNFENCED_VMM_ALIAS, finding.lint_root, finding.span, msg, |diag| {
                label_mappings(diag, finding, first, second);
                if other.span != finding.span {
                    let on = other.stream.as_ref().map(|s| format!(" on `{s}`")).unwrap_or_default();
                    diag.span_label(other.span, format!("this {}{on} uses the other mapping", other.what));
                }
                note_via(diag, finding, "the work is enqueued");
                diag.help(format!("{}, or run both on one stream", other.advice.order_streams));
            });
        }
        _ => {}
    }
}

fn label_mappings(
    diag: &mut rustc_errors::Diag<'_, ()>,
    finding: &Finding,
    first: &crate::analysis::Region,
    second: &crate::analysis::Region,
) {
    if first.origin != finding.span {
        diag.span_label(first.origin, super::origin_label(first, "one mapping"));
    }
    if second.origin != finding.span && second.origin != first.origin {
        let label = match second.origin_kind {
            crate::analysis::Origin::Mapped => format!("{} maps it again here", named(&second.name, "another mapping")),
            _ => super::origin_label(second, "another mapping"),
        };
        diag.span_label(second.origin, label);
    }
}
