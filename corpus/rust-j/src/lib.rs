//! Corpus cases: one module per case (a file or a folder), labels in each case's header.
pub mod part1;
pub mod part2;
