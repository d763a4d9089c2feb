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
