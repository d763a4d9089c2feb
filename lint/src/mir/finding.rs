//! A lint's finding as the MIR front end reports it: where rustc's lint level applies, and the
//! helper it was found through.

use rustc_hir::HirId;
use rustc_hir::def_id::DefId;
use rustc_span::Span;

/// A call of a helper through which a finding was reached.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Via {
    pub callee: String,
    /// The function the event happened in (the innermost helper).
    pub helper: DefId,
    /// The function the linted body calls, on the way to `helper` (the outermost helper).
    pub outer: DefId,
    /// Where the event happened inside the helper.
    pub inner: Span,
    /// The calls on the way, inside the helpers (`decode(i, buf)` inside `convert`, when the
    /// event happened in the closure the linted body passed as `decode`).
    pub calls: Vec<Span>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Finding {
    /// What the lint found, at the statement the diagnostic points at (the copy, the access,
    /// the launch, or the call of the helper that does it).
    pub inner: cuda_lint_machine::Finding<Span>,
    /// The node whose lint level applies.
    pub lint_root: HirId,
    pub via: Option<Via>,
}

impl Finding {
    pub fn span(&self) -> Span {
        self.inner.span
    }

    /// The lint and which of its findings it is: the pass keeps one report of each per site.
    pub fn key(&self) -> (&'static str, &'static str) {
        (self.inner.lint.name, self.inner.kind)
    }
}
