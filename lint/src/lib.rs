//! cuda-lint's rustc driver: the MIR front end of the CUDA abstract machine.
//!
//! - [`api`]: what each known CUDA API does, as data (one table per API family), and what a
//!   family does beyond the shared vocabulary in the family's own module (cudarc's
//!   event-tracking policy: `api/cudarc_safe/model.rs`);
//! - [`mir`]: the abstract interpretation of MIR that turns bodies into the machine's
//!   transitions (`cuda_lint_machine`) and reports events to its lints;
//! - [`lints`]: the lints as rustc sees them (registered from `cuda_lint_machine::LINTS`) and
//!   their diagnostics rendered; `wait_fix`: `missing_sync`'s `--fix`, which needs HIR;
//! - `pass`: the lint pass that picks the bodies worth analysing and reports their findings.
//!
//! The lints decide in `cuda_lint_machine::lints`, not here. Only `src/bin/cuda-lint-driver.rs`
//! knows `rustc_driver`.
#![feature(rustc_private)]
#![feature(box_patterns)]
#![warn(rust_2018_idioms, unused_lifetimes, unused_qualifications)]

extern crate rustc_abi;
extern crate rustc_ast_pretty;
extern crate rustc_data_structures;
extern crate rustc_errors;
extern crate rustc_hir;
extern crate rustc_index;
extern crate rustc_lint;
extern crate rustc_middle;
extern crate rustc_session;
extern crate rustc_span;
extern crate rustc_trait_selection;

pub mod api;
mod contain;
pub mod lints;
pub mod mir;
mod pass;
mod table_paths;
pub mod wait_fix;

pub use contain::install_panic_hook;

/// Registers the lints, and, with `analyse`, the pass that reports them. Crates that are not
/// linted (dependencies) still get the lints registered: the lint levels rustc caches for
/// incremental compilation must not depend on which crates a run happened to lint.
///
/// `user_config` is what the driver read from `cuda-lint.toml`, once; `levels`, where that file
/// sets lint levels (for the diagnostics' note on where a level comes from).
pub fn register_lints_for(
    _sess: &rustc_session::Session,
    store: &mut rustc_lint::LintStore,
    analyse: bool,
    user_config: &'static api::user::UserConfig,
    levels: &'static lints::ConfigLevels,
) {
    store.register_lints(lints::rustc_lints());
    // The groups, as clippy's (`cuda_lint::all`, `cuda_lint::perf`, ...).
    for (name, members) in lints::rustc_groups() {
        store.register_group(true, name, None, members);
    }
    if analyse {
        store.register_late_mod_pass(move |_| Box::new(pass::CudaMemory::new(user_config, levels)));
    }
    // `CUDA_LINT_CHECK_TABLE_PATHS`: the API tables' paths must resolve (see `table_paths`).
    if analyse && table_paths::enabled() {
        store.register_late_pass(|_| Box::new(table_paths::TablePaths::from_env()));
    }
}
