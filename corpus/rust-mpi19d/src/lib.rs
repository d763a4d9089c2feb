//! Labelled corpus for CUDA-aware MPI (issue 19): cudarc device buffers handed to MPI
//! through the crate's own raw bindings.

pub mod bindings;
pub mod part1;
