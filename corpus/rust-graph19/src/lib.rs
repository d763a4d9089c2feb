//! Labelled corpus for cuda-lint: CUDA graph capture (issue 19, item 2).
//! See src/part1/INDEX.md.
pub mod part1;
