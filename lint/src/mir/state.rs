//! The abstract state at a program point: what each Rust value refers to (the MIR front end's
//! part) beside the CUDA machine's state (operations in flight, ordering, page-locking) and the
//! API families' own state in its `ext` slot.

use super::locmap::LocMap;
use crate::api::FamilyState;

#[derive(Clone, PartialEq, Default)]
pub struct State {
    /// What each location refers to: for a pointer, what it points to; for a handle, the
    /// memory or object it refers to. A location with no entry refers to its own symbolic
    /// target (see `Interp::read_value`).
    pub values: LocMap,
    /// The machine's state.
    pub m: cuda_lint_machine::State<FamilyState>,
    /// The frame being run is returning an error (`Err`, `None`, `?`) on every path here.
    pub returning_error: bool,
    /// Which variants an enum at a location may be, as a bit set of variant indices, where
    /// known (an enum assigned or moved whole): a `match` on it takes only those arms. No
    /// entry: any variant.
    pub variants: std::collections::BTreeMap<cuda_lint_machine::Loc, u64>,
}

impl State {
    /// Joins `other` into `self` at a control-flow merge; true if `self` changed.
    pub fn join(&mut self, other: &State) -> bool {
        let mut changed = self.values.join(&other.values);
        changed |= self.m.join(&other.m);
        // Known on both sides: either; on one side only: any.
        let before = self.variants.len();
        self.variants.retain(|l, _| other.variants.contains_key(l));
        changed |= self.variants.len() != before;
        for (l, v) in self.variants.iter_mut() {
            let joined = *v | other.variants[l];
            changed |= joined != *v;
            *v = joined;
        }
        if self.returning_error && !other.returning_error {
            self.returning_error = false;
            changed = true;
        }
        changed
    }
}
