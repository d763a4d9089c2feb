//! The abstract state at a program point, shared by every lint.

use std::collections::BTreeMap;

use rustc_span::Span;

use super::loc::{FrameId, LocId, LocSet};
use super::set::{Id, IdSet};

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
}

/// The abstract state. "May" sets hold what holds on some path, "must" sets what holds on all.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct State {
    /// What each location refers to: for a pointer, what it points to; for a handle, the
    /// memory or object it refers to. A location with no entry refers to its own symbolic
    /// target (see `Interp::read_value`).
    pub values: BTreeMap<LocId, LocSet>,
    /// Operations that may still be running.
    pub inflight_may: OpSet,
    /// Operations still running on every path.
    pub inflight_must: OpSet,
    /// For each event object, the operations recorded before it.
    pub event_covers: BTreeMap<LocId, OpSet>,
    /// For each stream object, the operations it waits for (through events).
    pub stream_waits: BTreeMap<LocId, OpSet>,
    /// Host memory registered (page-locked) on some path / on every path.
    pub registered_may: LocSet,
    pub registered_must: LocSet,
}

impl State {
    /// Joins `other` into `self` at a control-flow merge; true if `self` changed.
    pub fn join(&mut self, other: &State) -> bool {
        let before = self.clone();
        for (loc, set) in &other.values {
            self.values.entry(*loc).or_default().union_with(set);
        }
        self.inflight_may.union_with(&other.inflight_may);
        self.inflight_must.intersect_with(&other.inflight_must);
        for (ev, set) in &other.event_covers {
            self.event_covers.entry(*ev).or_default().union_with(set);
        }
        for (s, set) in &other.stream_waits {
            self.stream_waits.entry(*s).or_default().union_with(set);
        }
        self.registered_may.union_with(&other.registered_may);
        self.registered_must.intersect_with(&other.registered_must);
        *self != before
    }

    /// Adds an operation as running on every path from here.
    pub fn start(&mut self, op: OpId) {
        self.inflight_may.insert(op);
        self.inflight_must.insert(op);
    }

    /// Marks operations as finished (the host waited for them).
    pub fn finish(&mut self, ops: &OpSet) {
        self.inflight_may.subtract(ops);
        self.inflight_must.subtract(ops);
        for covered in self.event_covers.values_mut() {
            covered.subtract(ops);
        }
        for waited in self.stream_waits.values_mut() {
            waited.subtract(ops);
        }
    }
}
