//! The abstract state at a program point, shared by every lint.

use std::collections::BTreeMap;

use rustc_span::Span;

use super::loc::{FrameId, LocId, LocSet};
use super::locmap::LocMap;
use super::set::{Id, IdSet};
use crate::api::Advice;

/// An operation enqueued on a stream (a copy, a memset, a launch).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpId(pub u32);

impl Id for OpId {
    fn index(self) -> u32 {
        self.0
    }
    fn from_index(i: u32) -> Self {
        OpId(i)
    }
}

pub type OpSet = IdSet<OpId>;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OpKind {
    Copy,
    Memset,
    Launch,
}

impl OpKind {
    pub fn describe(self) -> &'static str {
        match self {
            OpKind::Copy => "asynchronous copy",
            OpKind::Memset => "asynchronous memset",
            OpKind::Launch => "kernel launch",
        }
    }
}

/// What an operation touches and where it runs; grows monotonically across iterations.
#[derive(Clone, Debug)]
pub struct OpInfo {
    pub kind: OpKind,
    pub frame: FrameId,
    /// The call that enqueued it.
    pub span: Span,
    /// The stream objects it may run on.
    pub streams: LocSet,
    pub reads: LocSet,
    pub writes: LocSet,
    /// How users of the API that enqueued it wait for it or order it.
    pub advice: &'static Advice,
    /// cudarc would have recorded events for it, had its context managed stream
    /// synchronization (more than one stream, event tracking on) when it was enqueued.
    pub unrecorded_by_cudarc: bool,
}

/// A fact that may be unknown (or differ between the paths joined).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Tri {
    #[default]
    Unknown,
    Yes,
    No,
}

impl Tri {
    fn join(self, other: Tri) -> Tri {
        if self == other { self } else { Tri::Unknown }
    }
}

/// The abstract state. "May" sets hold what holds on some path, "must" sets what holds on all.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct State {
    /// What each location refers to: for a pointer, what it points to; for a handle, the
    /// memory or object it refers to. A location with no entry refers to its own symbolic
    /// target (see `Interp::read_value`).
    pub values: LocMap,
    /// Operations that may still be running.
    pub inflight_may: OpSet,
    /// Operations still running on every path.
    pub inflight_must: OpSet,
    /// For each event object, the operations recorded before it (on every path).
    pub event_covers: BTreeMap<LocId, OpSet>,
    /// For each stream object, the operations it waits for through events (on every path).
    pub stream_waits: BTreeMap<LocId, OpSet>,
    /// The frame being run is returning an error (`Err`, `None`, `?`) on every path here.
    pub returning_error: bool,
    /// Operations that may not have recorded events on the memory they use (raw API calls,
    /// and cudarc's while its context does not manage stream synchronization).
    pub untracked: OpSet,
    /// cudarc's context state: more than one stream created; event tracking on.
    pub many_streams: Tri,
    pub tracking: Tri,
    /// Host memory page-locked in place (`cuMemHostRegister`) on every path / on some path.
    pub registered_must: LocSet,
    pub registered_may: LocSet,
}

impl State {
    /// Joins `other` into `self` at a control-flow merge; true if `self` changed. Runs at every
    /// merge of every body: it tracks what changes instead of comparing copies.
    pub fn join(&mut self, other: &State) -> bool {
        let mut changed = self.values.join(&other.values);
        // Ordering holds only if it holds on every path: an event recorded, or a wait made, on
        // one branch orders nothing after the join, unless on the other branch the work was
        // already finished.
        changed |= meet(
            &mut self.event_covers,
            &self.inflight_may,
            &other.event_covers,
            &other.inflight_may,
        );
        changed |= meet(
            &mut self.stream_waits,
            &self.inflight_may,
            &other.stream_waits,
            &other.inflight_may,
        );
        changed |= self.inflight_may.union_with(&other.inflight_may);
        changed |= intersect_changed(&mut self.inflight_must, &other.inflight_must);
        if self.returning_error && !other.returning_error {
            self.returning_error = false;
            changed = true;
        }
        changed |= self.untracked.union_with(&other.untracked);
        let (streams, tracking) = (
            self.many_streams.join(other.many_streams),
            self.tracking.join(other.tracking),
        );
        changed |= streams != self.many_streams || tracking != self.tracking;
        self.many_streams = streams;
        self.tracking = tracking;
        changed |= intersect_changed(&mut self.registered_must, &other.registered_must);
        changed |= self.registered_may.union_with(&other.registered_may);
        changed
    }

    /// Adds an operation as running on every path from here, not (yet) recorded by any event.
    /// Started again (in a loop), it is new work: what was recorded or waited for before does
    /// not cover it.
    pub fn start(&mut self, op: OpId) {
        let again = OpSet::single(op);
        for covered in self.event_covers.values_mut().chain(self.stream_waits.values_mut()) {
            covered.subtract(&again);
        }
        self.inflight_may.insert(op);
        self.inflight_must.insert(op);
        self.untracked.insert(op);
    }

    /// Whether cudarc's context may be recording events (it does unless a single stream
    /// exists or tracking is off; unknown state is taken to record, so code whose context is
    /// made elsewhere is not flagged on a guess).
    pub fn may_record_events(&self) -> bool {
        self.many_streams != Tri::No && self.tracking != Tri::No
    }

    /// Marks operations as finished (the host waited for them).
    pub fn finish(&mut self, ops: &OpSet) {
        self.inflight_may.subtract(ops);
        self.inflight_must.subtract(ops);
        self.untracked.subtract(ops);
        for covered in self.event_covers.values_mut() {
            covered.subtract(ops);
        }
        for waited in self.stream_waits.values_mut() {
            waited.subtract(ops);
        }
    }
}

/// Intersects `set` with `other`; true if anything was removed.
fn intersect_changed<T: Id>(set: &mut IdSet<T>, other: &IdSet<T>) -> bool {
    let before = set.len();
    set.intersect_with(other);
    set.len() != before
}

/// The ordering facts of two paths joined: an operation is ordered after the join if, on each
/// path, it is ordered or no longer running. True if `mine` changed.
fn meet(
    mine: &mut BTreeMap<LocId, OpSet>,
    mine_running: &OpSet,
    theirs: &BTreeMap<LocId, OpSet>,
    theirs_running: &OpSet,
) -> bool {
    if mine.is_empty() && theirs.is_empty() {
        return false;
    }
    let empty = OpSet::new();
    let mut running = mine_running.clone();
    running.union_with(theirs_running);
    let keys: Vec<LocId> = mine.keys().chain(theirs.keys()).copied().collect();
    let mut changed = false;
    for key in keys {
        let a = mine.get(&key).unwrap_or(&empty);
        let b = theirs.get(&key).unwrap_or(&empty);
        let kept: OpSet = running
            .iter()
            .filter(|&op| {
                (!mine_running.contains(op) || a.contains(op)) && (!theirs_running.contains(op) || b.contains(op))
            })
            .collect();
        if kept.is_empty() {
            changed |= mine.remove(&key).is_some_and(|old| !old.is_empty());
        } else if mine.get(&key) != Some(&kept) {
            mine.insert(key, kept);
            changed = true;
        }
    }
    changed
}
