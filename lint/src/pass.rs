//! The lint pass: hands every function and closure body to the analysis and its findings to
//! the lints.

use rustc_data_structures::fx::FxHashSet;
use rustc_hir::intravisit::FnKind;
use rustc_hir::{Body, FnDecl};
use rustc_lint::{LateContext, LateLintPass, LintPass, LintVec};
use rustc_span::Span;
use rustc_span::def_id::LocalDefId;

use crate::analysis::{self, Finding, Resolver};
use crate::lints::{self, LINTS};

pub struct CudaMemory<'tcx> {
    resolver: Option<Resolver<'tcx>>,
    /// Findings already reported (a helper's finding is reached from every caller).
    reported: FxHashSet<Finding>,
}

impl Default for CudaMemory<'_> {
    fn default() -> Self {
        CudaMemory { resolver: None, reported: FxHashSet::default() }
    }
}

impl LintPass for CudaMemory<'_> {
    fn name(&self) -> &'static str {
        "CudaMemory"
    }

    fn get_lints(&self) -> LintVec {
        // Every lint the pass may emit, so rustc does not skip it while one is enabled.
        LINTS.iter().map(|info| info.lint).collect()
    }
}

impl<'tcx> LateLintPass<'tcx> for CudaMemory<'tcx> {
    fn check_fn(
        &mut self,
        cx: &LateContext<'tcx>,
        _: FnKind<'tcx>,
        _: &'tcx FnDecl<'tcx>,
        _: &'tcx Body<'tcx>,
        _: Span,
        def_id: LocalDefId,
    ) {
        let resolver = self.resolver.get_or_insert_with(|| Resolver::new(cx.tcx));
        for finding in analysis::analyze_body(resolver, def_id) {
            if self.reported.insert(finding.clone()) {
                lints::report(cx, &finding);
            }
        }
    }
}
