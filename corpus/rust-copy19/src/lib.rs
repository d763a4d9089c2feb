//! Corpus cases: one module per case, labels in each case.
pub mod part1;
