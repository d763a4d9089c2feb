//! One abstract interpretation over MIR that every lint shares.
//!
//! Each function body becomes a sequence of memory events (allocations, copies, launches,
//! synchronizations, host reads and writes, frees, VMM mappings) through the API tables of
//! [`crate::api`]. The abstract state at each point ([`state::State`]) holds what each value refers
//! to, which operations may still be in flight with their streams and the memory they touch, and
//! the ordering events give. The lints are questions asked of that state, answered as
//! [`Finding`]s.

mod finding;
mod interp;
mod loc;
mod locmap;
pub(crate) mod resolve;
mod state;

pub use finding::{Finding, Via};
pub use resolve::{Resolver, def_key};

use rustc_hir::def_id::LocalDefId;

/// Analyses one body (a function or closure of the crate being linted).
///
/// Bodies that touch no CUDA API cost only [`Resolver::touches_cuda`]'s scan of their types.
pub fn analyze_body(rs: &Resolver<'_>, def_id: LocalDefId) -> Vec<Finding> {
    if !(rs.touches_cuda(def_id) || rs.self_built_with_cuda(def_id))
        || resolve::has_unsatisfiable_preds(rs.tcx, def_id.to_def_id())
    {
        return Vec::new();
    }
    if let Some(name) = &rs.panic_for_test
        && rs.tcx.def_path_str(def_id.to_def_id()).ends_with(name.as_str())
    {
        panic!("panic injected by CUDA_LINT_TEST_PANIC");
    }
    interp::Interp::analyze(rs, def_id)
}
