//! Attributes users write in source to talk to cuda-lint.
//!
//! This crate builds on stable Rust. Its attributes (suppression, effects of the user's own
//! wrappers, typed kernels) are added by the macros issue; until then the crate is empty so the
//! workspace layout is in place.
