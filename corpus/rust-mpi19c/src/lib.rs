//! Labelled corpus: CUDA-aware MPI through raw FFI with cudarc 0.19 (issue 19, part 1c).

pub mod mpi_sys;
pub mod part1;
