//! Labelled cases for cuda-lint: CUDA library routines (cuBLAS) as stream work.
pub mod part1;
