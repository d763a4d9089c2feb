//! The lint pass: hands every function and closure body to the analysis and its findings to
//! the lints.

use rustc_data_structures::fx::{FxHashSet, FxIndexSet};
use rustc_hir::intravisit::FnKind;
use rustc_hir::{Body, FnDecl};
use rustc_lint::{LateContext, LateLintPass, LintPass, LintVec};
use rustc_span::Span;
use rustc_span::def_id::LocalDefId;

use crate::analysis::{self, Finding, FindingKind, Resolver};
use crate::lints::{self, LINTS};

pub struct CudaMemory<'tcx> {
    resolver: Option<Resolver<'tcx>>,
    /// Every body's findings, reported at the end of the crate.
    findings: FxIndexSet<Finding>,
}

impl Default for CudaMemory<'_> {
    fn default() -> Self {
        CudaMemory {
            resolver: None,
            findings: FxIndexSet::default(),
        }
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
        match analyze_guarded(resolver, def_id) {
            Ok(findings) => self.findings.extend(findings),
            Err(message) => {
                // A bug of cuda-lint's must not stop the compilation (nor look like rustc's):
                // the function is skipped, and the user is told why.
                cx.tcx.dcx().span_warn(
                    cx.tcx.def_span(def_id),
                    format!(
                        "cuda-lint could not analyse this function ({message}); nothing is reported for it. \
                         Please report this at {ISSUES}"
                    ),
                );
            }
        }
    }

    fn check_crate_post(&mut self, cx: &LateContext<'tcx>) {
        // A finding reached through a helper is reported at the call, unless the helper,
        // analysed on its own, reports the same event itself (its own memory, its own work).
        let direct: FxHashSet<(std::mem::Discriminant<FindingKind>, Span)> = self
            .findings
            .iter()
            .filter(|f| f.via.is_none())
            .map(|f| (std::mem::discriminant(&f.kind), f.span))
            .collect();
        // One finding per lint at each call of a helper, however often the helper does it.
        let mut at_call: FxHashSet<(std::mem::Discriminant<FindingKind>, Span)> = FxHashSet::default();
        for finding in &self.findings {
            let key = (std::mem::discriminant(&finding.kind), finding.span);
            if let Some(via) = &finding.via
                && (direct.contains(&(key.0, via.inner)) || !at_call.insert(key))
            {
                continue;
            }
            lints::report(cx, finding);
        }
    }
}

const ISSUES: &str = "https://github.com/cuda-lint/cuda-lint/issues";

/// Runs the analysis of one body, turning a panic of the analysis into an error message.
/// rustc's own fatal errors go on unwinding, as rustc expects.
fn analyze_guarded(rs: &Resolver<'_>, def_id: LocalDefId) -> Result<Vec<Finding>, String> {
    use std::panic::{self, AssertUnwindSafe};
    let previous = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let result = panic::catch_unwind(AssertUnwindSafe(|| analysis::analyze_body(rs, def_id)));
    panic::set_hook(previous);
    result.map_err(|payload| {
        if payload.is::<rustc_span::fatal_error::FatalErrorMarker>() {
            panic::resume_unwind(payload);
        }
        payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "internal error".to_string())
    })
}
