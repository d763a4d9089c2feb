//! Labelled corpus: CUDA-aware MPI through raw MPICH-style bindings, cudarc 0.19.10.

pub mod mpi;
pub mod part1;
