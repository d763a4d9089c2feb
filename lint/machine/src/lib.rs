//! The CUDA abstract machine that cuda-lint's front ends drive, and the lints that judge it.
//!
//! It knows no front end: a front end (the rustc driver over MIR, a C++ reader) names memory
//! and objects by [`Loc`], answers where they are through [`Regions`], and turns each call of a
//! CUDA API into transitions of the [`Machine`] on a [`State`] (enqueue, wait, record, free,
//! page-lock...). Paths join as "may" ([`State::join`]). At each [`Event`] the front end reports
//! (a host access, a copy, an enqueue, a launch, a free), every lint of [`lints`] checks the
//! event against the state and gives [`Finding`]s with front-end-neutral [`Diagnostic`]s.
//!
//! Invariants:
//! - nothing here depends on rustc, on a parser, or on an API family's table;
//! - the state changes only through [`Machine`]'s transitions and [`State`]'s own methods; lints
//!   read it and never change it;
//! - an API family's own state lives in the `ext` slot ([`Ext`]), which the machine joins and
//!   informs but never reads.

mod advice;
mod diagnostic;
mod events;
mod machine;
mod memory;
mod ops;
mod regions;
mod set;
mod state;

pub mod lints;

pub use advice::Advice;
pub use diagnostic::{Child, Diagnostic, Finding, WaitFix, first_per_mistake};
pub use events::{CaptureRule, DerefRole, Describe, Event, InFlight, Kernel, Origin, Region};
pub use lints::{Cx, Group, LINTS, Level, LintMeta, Options};
pub use machine::Machine;
pub use memory::{Access, Allocator, Dir, FreeKind, MemKind};
pub use ops::{Op, OpId, OpKind, OpSet, UNSET_HANDLE_NOTE};
pub use regions::{Loc, LocSet, Regions};
pub use set::{Id, IdSet};
pub use state::{Ext, State};
