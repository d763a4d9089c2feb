//! Nothing here: this crate exists for its dependencies (see Cargo.toml).
