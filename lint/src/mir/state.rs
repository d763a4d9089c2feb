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
    /// For an enum whose variant was set here (`slot.done = Some(event)`, `take()` leaving
    /// `None`): per variant, the operations that may be running on the paths where it is that
    /// variant (those running when it was set, and those started since). A `match` on it
    /// finishes the others on the arm of that variant: on the first turn of a loop, where
    /// `slot.done` is still `None`, no copy of the slot is running yet. A path that sets no
    /// variant of it stands for every variant with all its running operations.
    pub running_when: std::collections::BTreeMap<cuda_lint_machine::Loc, VariantOps>,
    /// Streams capturing into a graph (on some path): work enqueued on them is recorded, not
    /// run.
    pub capturing: cuda_lint_machine::LocSet,
    /// The graphs being captured into, and whether the capture is in global or thread-local
    /// mode on every path (not relaxed).
    pub building: cuda_lint_machine::LocSet,
    pub capture_strict: bool,
    /// Streams capturing on every path here: what `uncapturable_call` needs as evidence (a path
    /// that left the capture early, an error path, does not count).
    pub capturing_must: cuda_lint_machine::LocSet,
}

/// Operations that may be running, per variant index (see [`State::running_when`]); under
/// [`ANY_VARIANT`], on paths where the variant is not known.
pub type VariantOps = std::collections::BTreeMap<u32, cuda_lint_machine::OpSet>;

/// The key of [`VariantOps`] for paths where the enum may be any variant.
pub const ANY_VARIANT: u32 = u32::MAX;

/// What may be running where the enum is variant `v`.
pub fn running_if(per_variant: &VariantOps, v: u32) -> cuda_lint_machine::OpSet {
    let mut ops = per_variant.get(&v).cloned().unwrap_or_default();
    if v != ANY_VARIANT
        && let Some(any) = per_variant.get(&ANY_VARIANT)
    {
        ops.union_with(any);
    }
    ops
}

impl State {
    /// Joins `other` into `self` at a control-flow merge; true if `self` changed.
    pub fn join(&mut self, other: &State) -> bool {
        let mine_before = self.m.inflight_may.clone();
        let mut changed = self.values.join(&other.values);
        changed |= self.m.join(&other.m);
        changed |= self.capturing.union_with(&other.capturing);
        let before = self.capturing_must.clone();
        self.capturing_must.intersect_with(&other.capturing_must);
        changed |= before != self.capturing_must;
        changed |= self.building.union_with(&other.building);
        if self.capture_strict && !other.capture_strict {
            self.capture_strict = false;
            changed = true;
        }
        // Known on both sides: either; on one side only: any.
        let before = self.variants.len();
        self.variants.retain(|l, _| other.variants.contains_key(l));
        changed |= self.variants.len() != before;
        for (l, v) in self.variants.iter_mut() {
            let joined = *v | other.variants[l];
            changed |= joined != *v;
            *v = joined;
        }
        // Per variant, what may run on either side where it is that variant; a side that set
        // none stands for any variant with everything it may run.
        if self.running_when.is_empty() && other.running_when.is_empty() {
            return changed;
        }
        let keys: std::collections::BTreeSet<cuda_lint_machine::Loc> = self
            .running_when
            .keys()
            .chain(other.running_when.keys())
            .copied()
            .collect();
        for l in keys {
            if let (Some(mine), Some(theirs)) = (self.running_when.get(&l), other.running_when.get(&l))
                && mine == theirs
            {
                continue;
            }
            let any_theirs;
            let theirs = match other.running_when.get(&l) {
                Some(theirs) => theirs,
                None => {
                    any_theirs = VariantOps::from([(ANY_VARIANT, other.m.inflight_may.clone())]);
                    &any_theirs
                }
            };
            let mine = self
                .running_when
                .entry(l)
                .or_insert_with(|| VariantOps::from([(ANY_VARIANT, mine_before.clone())]));
            let variants: Vec<u32> = mine.keys().chain(theirs.keys()).copied().collect();
            let mut joined = VariantOps::new();
            for v in variants {
                let mut ops = running_if(mine, v);
                ops.union_with(&running_if(theirs, v));
                joined.insert(v, ops);
            }
            if *mine != joined {
                *mine = joined;
                changed = true;
            }
        }
        if self.returning_error && !other.returning_error {
            self.returning_error = false;
            changed = true;
        }
        changed
    }
}
