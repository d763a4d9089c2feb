pub mod part1;
