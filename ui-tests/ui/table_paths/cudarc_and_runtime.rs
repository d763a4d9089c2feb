//@check-pass
//@rustc-env: CUDA_LINT_CHECK_TABLE_PATHS=1
// Every path of the API tables resolves in the cudarc and cuda_lint_runtime this repository
// models (and in the standard library): nothing is reported. A cudarc upgrade that moves or
// renames an item a table lists fails here (see `lint/src/table_paths.rs`).
extern crate cuda_lint_runtime;
extern crate cudarc;

fn main() {}
