//! The lint pass: hands every function and closure body to the analysis and its findings to
//! the lints.

use rustc_data_structures::fx::{FxHashMap, FxHashSet};
use rustc_hir::intravisit::FnKind;
use rustc_hir::{Body, FnDecl};
use rustc_lint::{LateContext, LateLintPass, LintPass, LintVec};
use rustc_span::Span;
use rustc_span::def_id::{DefId, LocalDefId};

use crate::api::user::UserConfig;
use crate::lints;
use crate::mir::{self, Finding, Resolver};

/// The pass, one per module (rustc caches a module's lint results between incremental builds:
/// touching one file re-analyses only the modules that depend on what changed).
pub struct CudaMemory<'tcx> {
    resolver: Option<Resolver<'tcx>>,
    /// The user's `cuda-lint.toml` (function table, lint options), given by the driver.
    user_config: &'static UserConfig,
    /// Where `cuda-lint.toml` sets lint levels, for the diagnostics.
    levels: &'static lints::ConfigLevels,
    /// Helpers' findings when analysed on their own, for `report_body`'s deduplication.
    helper_findings: FxHashMap<LocalDefId, Vec<Finding>>,
}

impl CudaMemory<'_> {
    pub fn new(user_config: &'static UserConfig, levels: &'static lints::ConfigLevels) -> Self {
        CudaMemory {
            resolver: None,
            user_config,
            levels,
            helper_findings: FxHashMap::default(),
        }
    }
}

impl LintPass for CudaMemory<'_> {
    fn name(&self) -> &'static str {
        "CudaMemory"
    }

    fn get_lints(&self) -> LintVec {
        // Every lint the pass may emit, so rustc does not skip it while one is enabled.
        lints::rustc_lints().to_vec()
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
        match self.analyze(cx, def_id) {
            Ok(findings) => self.report_body(cx, &findings),
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
}

impl<'tcx> CudaMemory<'tcx> {
    fn analyze(&mut self, cx: &LateContext<'tcx>, def_id: LocalDefId) -> Result<Vec<Finding>, String> {
        let user_config = self.user_config;
        let resolver = self.resolver.get_or_insert_with(|| Resolver::new(cx.tcx, user_config));
        if !resolver.report_timings {
            return analyze_guarded(resolver, def_id);
        }
        // The MIR rustc builds for the body (optimised MIR: `cargo check` does not build it)
        // is timed apart from the analysis.
        let start = std::time::Instant::now();
        if resolver.touches_cuda(def_id) {
            let _ = cx.tcx.optimized_mir(def_id.to_def_id());
        }
        let mir_us = start.elapsed().as_micros();
        let start = std::time::Instant::now();
        let result = analyze_guarded(resolver, def_id);
        if resolver.touches_cuda(def_id) {
            let statements: usize = cx
                .tcx
                .optimized_mir(def_id.to_def_id())
                .basic_blocks
                .iter()
                .map(|b| b.statements.len() + 1)
                .sum();
            eprintln!(
                "cuda-lint-timing: {} statements={statements} us={} mir_us={mir_us}",
                cx.tcx.def_path_str(def_id.to_def_id()),
                start.elapsed().as_micros()
            );
        }
        result
    }

    /// Reports one body's findings. A finding reached through a helper is reported at the call,
    /// unless the helper, analysed on its own, reports the same event itself (its own memory,
    /// its own work); and once per lint at each call, however often the helper does it.
    fn report_body(&mut self, cx: &LateContext<'tcx>, findings: &[Finding]) {
        let mut at_call: FxHashSet<((&'static str, &'static str), Span)> = FxHashSet::default();
        // One finding of a lint per line: a chain of calls on one line (`taken.as_ref().map_or(..,
        // |h| h.iter().sum())`) is one access, whether seen at the call or inside its closure.
        let source_map = cx.tcx.sess.source_map();
        let line_of = |span: Span| {
            let lo = source_map.lookup_char_pos(span.lo());
            (lo.file.start_pos, lo.line)
        };
        let mut on_line = FxHashSet::default();
        // One report per mistake in a body (see `first_per_mistake`): the first host access of
        // device memory, the first access racing work in flight.
        let inner: Vec<_> = findings.iter().map(|f| f.inner.clone()).collect();
        let keep = cuda_lint_machine::first_per_mistake(&inner, |_| (), |s: Span| u64::from(s.lo().0));
        for (finding, keep) in findings.iter().zip(keep) {
            let kind = finding.key();
            if !keep || !on_line.insert((kind, line_of(finding.span()))) {
                continue;
            }
            // One access in a chain of calls (`host.iter().cloned().fold(..)`) is reported once,
            // at the innermost expression that makes it.
            if findings.iter().any(|other| {
                other.key() == kind
                    && other.span() != finding.span()
                    && finding.span().contains(other.span())
                    && other.via.is_none() == finding.via.is_none()
            }) {
                continue;
            }
            if let Some(via) = &finding.via
                && (self.helper_reports(cx, via.helper, kind, via.inner, &[])
                    || (via.outer != via.helper && self.helper_reports(cx, via.outer, kind, via.inner, &via.calls))
                    || !at_call.insert((kind, finding.span())))
            {
                continue;
            }
            lints::report(cx, finding, self.levels);
        }
    }

    /// Whether `helper`, analysed on its own, reports an event of this kind at `inner` (itself,
    /// or at a call of a helper of its own: the event is then reported closest to where it is),
    /// or at one of `calls`, the calls inside it on the way to the event (`convert(f)`, on its
    /// own, reports the call `f(buf)` that races its copy, where `f` is not known; a caller
    /// that passes a closure as `f` would report the same mistake again inside the closure).
    fn helper_reports(
        &mut self,
        cx: &LateContext<'tcx>,
        helper: DefId,
        kind: (&'static str, &'static str),
        inner: Span,
        calls: &[Span],
    ) -> bool {
        let Some(helper) = helper.as_local() else {
            return false;
        };
        if !self.helper_findings.contains_key(&helper) {
            let own = self.analyze(cx, helper).unwrap_or_default();
            self.helper_findings.insert(helper, own);
        }
        self.helper_findings[&helper].iter().any(|f| {
            f.key() == kind && (f.via.as_ref().map_or(f.span(), |v| v.inner) == inner || calls.contains(&f.span()))
        })
    }
}

const ISSUES: &str = "https://github.com/cuda-lint/cuda-lint/issues";

/// Runs the analysis of one body; a panic of the analysis becomes an error message (see
/// `crate::contain`).
fn analyze_guarded(rs: &Resolver<'_>, def_id: LocalDefId) -> Result<Vec<Finding>, String> {
    crate::contain::contained(|| mir::analyze_body(rs, def_id))
}
