//! cuda-lint: Clippy for CUDA memory.
//!
//! The crate has four parts, each knowing as little as it can of the others:
//! - [`api`]: what each known CUDA API does to memory, as data (one table per API family);
//! - [`analysis`]: one abstract interpretation over MIR that turns a body into memory events
//!   through those tables and keeps the abstract state all lints share;
//! - [`lints`]: one file per lint: its declaration, its documentation and how it reports;
//! - [`pass`]: the lint pass that picks the bodies worth analysing and hands findings to the lints.
//!
//! Only `src/bin/cuda-lint-driver.rs` knows `rustc_driver`; lint files never print.
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

pub mod analysis;
pub mod api;
pub mod config;
pub mod driver_args;
pub mod lints;
pub mod output;
mod pass;

pub use lints::{LINTS, LintInfo, explain, lints_markdown};

/// Registers cuda-lint's lints and its pass in rustc's lint store (called by the driver).
pub fn register_lints(sess: &rustc_session::Session, store: &mut rustc_lint::LintStore) {
    register_lints_for(sess, store, true);
}

/// Registers the lints, and, with `analyse`, the pass that reports them. Crates that are not
/// linted (dependencies) still get the lints registered: the lint levels rustc caches for
/// incremental compilation must not depend on which crates a run happened to lint.
pub fn register_lints_for(_sess: &rustc_session::Session, store: &mut rustc_lint::LintStore, analyse: bool) {
    store.register_lints(&LINTS.iter().map(|info| info.lint).collect::<Vec<_>>());
    store.register_group(
        true,
        "cuda_lint::all",
        None,
        LINTS.iter().map(|info| rustc_lint::LintId::of(info.lint)).collect(),
    );
    if analyse {
        store.register_late_mod_pass(|_| Box::new(pass::CudaMemory::default()));
    }
}
