use clippy_utils::diagnostics::span_lint_hir_and_then;
use rustc_errors::Applicability;
use rustc_hir::def::DefKind;
use rustc_hir::intravisit::{self, Visitor};
use rustc_hir::{self as hir};
use rustc_lint::LateContext;
use rustc_middle::ty;
use rustc_span::{Span, sym};

use super::{declare_cuda_lint, named, note_via, paths_suffix};
use crate::analysis::{Access, Finding, FindingKind, InFlight};

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
    /// cudarc waits for you only while its context has more than one stream and event tracking
    /// is on: with one stream (`ctx.default_stream()` alone), `PinnedHostSlice::as_slice`,
    /// `UnifiedSlice::as_slice` and `as_ptr` after an async copy into them wait for nothing (5 of
    /// 5 runs stale on an H200); so does any work enqueued through a raw pointer after the guard
    /// of `device_ptr` was dropped. Those are reported; what cudarc orders is not.
    ///
    /// `cargo cuda-lint --fix` inserts `stream.synchronize()?;` before the access where that is
    /// certain to compile (the function returns a `Result` that takes the stream's error).
    ///
    /// ### Known problems
    /// Work of the CUDA libraries (cuBLAS, cuDNN, cuFFT, cuRAND, NCCL) on a stream, stream
    /// capture and graphs, and waits by polling (`stream.query()` in a loop) are not modelled: a
    /// host access racing with them is not reported. A wrapper the analysis cannot see into
    /// hides what it does unless it carries an effect attribute or a `cuda-lint.toml` entry.
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
            Access::Reuse => {
                diag.help(format!(
                    "order the streams: {}, or synchronize in between",
                    op.advice.order_streams
                ));
            }
            _ => match sync_fix(cx, finding, op) {
                Some((at, text)) => {
                    diag.span_suggestion_verbose(
                        at,
                        format!("wait for the {} before touching {name}", op.what),
                        text,
                        Applicability::MachineApplicable,
                    );
                }
                None => {
                    diag.help(format!(
                        "{how} (or wait on an event recorded after the {}) before touching {name}",
                        op.what
                    ));
                }
            },
        };
    });
}

/// The statement that waits for the stream, to insert before the statement that makes the
/// access, when it is certain to compile: the access is in the function's own body (not a
/// closure's, not a helper's), the stream has a name there, the API has a waiting statement
/// that propagates its error with `?`, and the function returns a `Result` whose error takes
/// that error (the API's error type, `Box<dyn Error>`, `anyhow::Error`, `eyre::Report`).
fn sync_fix(cx: &LateContext<'_>, finding: &Finding, op: &InFlight) -> Option<(Span, String)> {
    if finding.via.is_some() || finding.span.from_expansion() {
        return None;
    }
    let template = op.advice.sync_statement?;
    let stream = op.stream.as_deref()?;
    if stream.is_empty() || !stream.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.') {
        return None;
    }
    let tcx = cx.tcx;
    // The lint root is the access's scope: the function's own node, or one inside its body.
    let root = finding.lint_root;
    let owner = if root == tcx.local_def_id_to_hir_id(root.owner.def_id) {
        root.owner.def_id
    } else {
        tcx.hir_enclosing_body_owner(root)
    };
    if tcx.is_closure_like(owner.to_def_id()) || !matches!(tcx.def_kind(owner), DefKind::Fn | DefKind::AssocFn) {
        return None;
    }
    let output = tcx
        .fn_sig(owner)
        .instantiate_identity()
        .skip_normalization()
        .skip_binder()
        .output();
    let ty::Adt(result, args) = output.kind() else {
        return None;
    };
    if !tcx.is_diagnostic_item(sym::Result, result.did()) {
        return None;
    }
    let error = args.type_at(1);
    let takes_it = match error.kind() {
        ty::Adt(def, _) => {
            let path = crate::analysis::def_key(tcx, def.did());
            path == op.advice.error_type
                || matches!(path.as_str(), "anyhow::Error" | "eyre::Report")
                || (error.is_box()
                    && matches!(error.boxed_ty().map(|b| b.kind()), Some(ty::Dynamic(preds, ..))
                        if preds.principal_def_id().is_some_and(|t| crate::analysis::def_key(tcx, t) == "core::error::Error")))
        }
        _ => false,
    };
    if !takes_it {
        return None;
    }
    let body = tcx.hir_body_owned_by(owner);
    let stmt = innermost_statement(body, finding.span)?;
    let indent = clippy_utils::source::indent_of(cx, stmt)?;
    Some((
        stmt.shrink_to_lo(),
        format!("{}\n{}", template.replace("{stream}", stream), " ".repeat(indent)),
    ))
}

/// The span of the innermost statement of `body` that holds `span` (not one a macro wrote).
fn innermost_statement(body: &hir::Body<'_>, span: Span) -> Option<Span> {
    struct Finder {
        span: Span,
        found: Option<Span>,
    }
    impl<'tcx> Visitor<'tcx> for Finder {
        fn visit_stmt(&mut self, stmt: &'tcx hir::Stmt<'tcx>) {
            if !stmt.span.from_expansion() && stmt.span.contains(self.span) {
                self.found = Some(stmt.span);
            }
            intravisit::walk_stmt(self, stmt);
        }
    }
    let mut finder = Finder { span, found: None };
    finder.visit_expr(body.value);
    finder.found
}
