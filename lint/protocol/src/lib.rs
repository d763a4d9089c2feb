//! What passes between `cargo cuda-lint`, the driver, CI and the user, on stable Rust:
//! - [`baseline`]: the findings a project has today, recorded once and left out of later
//!   reports (`cuda-lint check --baseline`), by keys that survive edits;
//! - [`output`]: the report formats (SARIF, GitHub workflow commands, GitLab Code Quality);
//! - [`config`]: `cuda-lint.toml`, read once by `cargo cuda-lint` (levels) and by the driver
//!   (its function table), and passed on;
//! - [`driver_args`]: how lint flags reach the driver;
//! - [`summary`]: the effect-summary grammar, written once: the macros print it, the driver and
//!   the configuration read it.
//!
//! Nothing here links rustc; the lint list comes from `cuda_lint_machine::LINTS`. The feature
//! `reports` (on by default) brings `output`, `config`, `baseline` and `changed`; the macros use the crate without it.

#[cfg(feature = "reports")]
pub mod baseline;
#[cfg(feature = "reports")]
pub mod changed;
#[cfg(feature = "reports")]
pub mod config;
pub mod driver_args;
#[cfg(feature = "reports")]
pub mod output;
pub mod summary;
