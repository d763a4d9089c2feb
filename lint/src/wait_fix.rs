//! `--fix` for `missing_sync`: the statement that waits for the stream (the lint's
//! [`WaitFix`]), inserted where rustc can show it compiles.

use cuda_lint_machine::WaitFix;
use rustc_hir::def::DefKind;
use rustc_hir::intravisit::{self, Visitor};
use rustc_hir::{self as hir};
use rustc_lint::LateContext;
use rustc_middle::ty;
use rustc_span::{Span, sym};

use crate::mir::Finding;

/// The statement that waits for the stream, to insert before the statement that makes the
/// access, when it is certain to compile: the access is in the function's own body (not a
/// closure's, not a helper's), the stream has a name there, the API has a waiting statement
/// that propagates its error with `?`, and the function returns a `Result` whose error takes
/// that error (the API's error type, `Box<dyn Error>`, `anyhow::Error`, `eyre::Report`).
/// Set by `cargo cuda-lint --fix` for the compilations `cargo fix` runs: a suggested wait goes on
/// a line of its own (the driver also adds `--cfg=cuda_lint_fix`, so cached results of a plain
/// run are not reused).
pub const FIX_ENV: &str = "CUDA_LINT_FIX";

pub(crate) fn statement_before(cx: &LateContext<'_>, finding: &Finding, fix: &WaitFix) -> Option<(Span, String)> {
    if finding.via.is_some() || finding.span().from_expansion() {
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
            let path = crate::mir::def_key(tcx, def.did());
            path == fix.error_type
                || matches!(path.as_str(), "anyhow::Error" | "eyre::Report")
                || (error.is_box()
                    && matches!(error.boxed_ty().map(|b| b.kind()), Some(ty::Dynamic(preds, ..))
                        if preds.principal_def_id().is_some_and(|t| crate::mir::def_key(tcx, t) == "core::error::Error")))
        }
        _ => false,
    };
    if !takes_it {
        return None;
    }
    let body = tcx.hir_body_owned_by(owner);
    let stmt = innermost_statement(body, finding.span())?;
    // Where the access is on the statement's first line, the edit covers the statement up to
    // the access and keeps it on one line (`wait; let x = host[0]`): an editor offers a fix
    // whose range meets the diagnostic's, and titles it with the edit's text, which then has
    // no line break in it.
    // `cargo cuda-lint --fix` (which says so in `CUDA_LINT_FIX`) inserts the wait on a line
    // of its own instead.
    let source_map = tcx.sess.source_map();
    let through_access = stmt.with_hi(finding.span().hi());
    if std::env::var_os(FIX_ENV).is_none()
        && stmt.contains(finding.span())
        && source_map.is_line_before_span_empty(stmt)
        && !source_map.is_multiline(through_access)
        && let Ok(text) = source_map.span_to_snippet(through_access)
    {
        return Some((through_access, format!("{} {text}", fix.statement)));
    }
    let indent = clippy_utils::source::indent_of(cx, stmt)?;
    Some((
        stmt.shrink_to_lo(),
        format!("{}\n{}", fix.statement, " ".repeat(indent)),
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
