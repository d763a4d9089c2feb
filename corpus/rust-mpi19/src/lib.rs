//! Labelled cases for CUDA-aware MPI (issue 19, item 4): cudarc for the device side, raw MPI
//! bindings (MPICH's ABI: integer handles) for the communication.

pub mod mpi;
pub mod part1;
