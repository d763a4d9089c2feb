//! Labelled corpus for cuda-lint: CUDA-aware MPI (Open MPI handles) with cudarc 0.19.
//! Cases live in `part1`; `ffi` holds the crate's own MPI bindings.

pub mod ffi;
pub mod part1;
