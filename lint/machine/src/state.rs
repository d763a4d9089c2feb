//! The machine's state at a program point. Paths join as "may": what may be in flight on some
//! path stays in flight; ordering and page-locking hold only if they hold on every path.

use std::collections::BTreeMap;

use crate::ops::{OpId, OpSet};
use crate::regions::{Loc, LocSet};
use crate::set::{Id, IdSet};

/// State an API family keeps beside the machine's (cudarc's context: how many streams, whether
/// event tracking is on, which work it recorded events for). The machine joins it at merges
/// and tells it when operations start and finish; it never reads it.
pub trait Ext: Clone + PartialEq + Default {
    /// Joins `other` into `self`; true if `self` changed.
    fn join(&mut self, other: &Self) -> bool;
    /// An operation starts (again: in a loop, it is new work).
    fn started(&mut self, _op: OpId) {}
    /// Operations finished (the host waited for them).
    fn finished(&mut self, _ops: &OpSet) {}
}

/// No family state.
impl Ext for () {
    fn join(&mut self, _: &Self) -> bool {
        false
    }
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct State<X = ()> {
    /// Operations that may still be running.
    pub inflight_may: OpSet,
    /// Operations still running on every path.
    pub inflight_must: OpSet,
    /// Operations a wait in a loop over a collection of streams or events (`for s in &streams
    /// { s.synchronize()? }`) finished on some path since they last started.
    pub waited_over: OpSet,
    /// Operations the host waited for on some path since they last started (on other paths
    /// they may still run, or never started: the first turn of a loop).
    pub finished_may: OpSet,
    /// Operations the host waited for only through a call no CUDA documentation says waits
    /// (`cudaFree`'s device synchronization, an implementation detail), on every path where
    /// they may still run: formally still in flight, in practice done.
    pub implicitly_waited: OpSet,
    /// For each event object, the operations recorded before it (on every path).
    pub event_covers: BTreeMap<Loc, OpSet>,
    /// For each stream object, the operations it waits for through events (on every path).
    pub stream_waits: BTreeMap<Loc, OpSet>,
    /// Host memory page-locked in place (`cuMemHostRegister`) on every path / on some path.
    pub registered_must: LocSet,
    pub registered_may: LocSet,
    /// VMM mappings (each a view, see [`crate::Regions::mapping`]) mapped (`cuMemMap`) on every
    /// path / on some path, and those of them the device was granted access to
    /// (`cuMemSetAccess`) since they were mapped: a mapping starts with no access.
    pub mapped_must: LocSet,
    pub mapped_may: LocSet,
    pub access_must: LocSet,
    pub access_may: LocSet,
    /// For each allocation made anew (its allocation site run again: a loop, a helper called
    /// again), the operations started before, which used the object it made then, not the
    /// current one (on every path).
    pub renewed: BTreeMap<Loc, OpSet>,
    /// For each item of a collection that a loop visits one by one (`for buf in &mut bufs`:
    /// an element, one location for all of them), the operations started on earlier items in
    /// that loop: they use other elements than the current one (on every path). Dropped when
    /// the loop is left (by the front end).
    pub items_apart: BTreeMap<Loc, OpSet>,
    /// Device memory allocated with unspecified contents (`cudaMalloc`: "the memory is not
    /// cleared") that nothing may have written since, on every path (allocations).
    pub unwritten_must: LocSet,
    /// Allocations the program must release, made on some path (joined as "may")...
    pub owned_may: LocSet,
    /// ...and those of them released, or handed to code the analysis cannot see, on some path
    /// since they were made. An allocation in the first and not the second is unreleased on
    /// every path where it exists ([`State::unreleased`]).
    pub released_may: LocSet,
    /// Allocations freed on every path since they were made (`cudaFree`, `free`, a destructor),
    /// not merely handed to code the analysis cannot see.
    pub freed_must: LocSet,
    /// Memory a kernel wrote (the kernel's own launch, by allocation) that nothing may have
    /// read since, on every path with the same launch.
    pub unread_output: BTreeMap<Loc, OpId>,
    /// The API families' own state.
    pub ext: X,
}

/// How many operations [`State::finished_may`] keeps at most.
const MAX_FINISHED_KEPT: usize = 64;

impl<X: Ext> State<X> {
    /// Joins `other` into `self` at a control-flow merge; true if `self` changed. Runs at every
    /// merge of every body: it tracks what changes instead of comparing copies.
    pub fn join(&mut self, other: &State<X>) -> bool {
        // Ordering holds only if it holds on every path: an event recorded, or a wait made, on
        // one branch orders nothing after the join, unless on the other branch the work was
        // already finished.
        let mut changed = meet(
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
        changed |= meet(
            &mut self.renewed,
            &self.inflight_may,
            &other.renewed,
            &other.inflight_may,
        );
        changed |= meet(
            &mut self.items_apart,
            &self.inflight_may,
            &other.items_apart,
            &other.inflight_may,
        );
        changed |= meet_set(
            &mut self.implicitly_waited,
            &self.inflight_may,
            &other.implicitly_waited,
            &other.inflight_may,
        );
        changed |= self.inflight_may.union_with(&other.inflight_may);
        changed |= intersect_changed(&mut self.inflight_must, &other.inflight_must);
        changed |= self.waited_over.union_with(&other.waited_over);
        changed |= self.finished_may.union_with(&other.finished_may);
        changed |= intersect_changed(&mut self.registered_must, &other.registered_must);
        changed |= self.registered_may.union_with(&other.registered_may);
        changed |= intersect_changed(&mut self.mapped_must, &other.mapped_must);
        changed |= self.mapped_may.union_with(&other.mapped_may);
        changed |= intersect_changed(&mut self.access_must, &other.access_must);
        changed |= self.access_may.union_with(&other.access_may);
        changed |= intersect_changed(&mut self.unwritten_must, &other.unwritten_must);
        changed |= self.owned_may.union_with(&other.owned_may);
        changed |= self.released_may.union_with(&other.released_may);
        changed |= intersect_changed(&mut self.freed_must, &other.freed_must);
        let before = self.unread_output.len();
        self.unread_output
            .retain(|root, op| other.unread_output.get(root) == Some(op));
        changed |= self.unread_output.len() != before;
        changed |= self.ext.join(&other.ext);
        changed
    }

    /// Adds an operation as running on every path from here, not (yet) recorded by any event.
    /// Started again (in a loop), it is new work: what was recorded or waited for before does
    /// not cover it.
    pub fn start(&mut self, op: OpId) {
        let again = OpSet::single(op);
        for covered in self
            .event_covers
            .values_mut()
            .chain(self.stream_waits.values_mut())
            .chain(self.renewed.values_mut())
            .chain(self.items_apart.values_mut())
        {
            covered.subtract(&again);
        }
        self.inflight_may.insert(op);
        self.inflight_must.insert(op);
        self.waited_over.subtract(&again);
        self.implicitly_waited.subtract(&again);
        self.finished_may.subtract(&again);
        self.ext.started(op);
    }

    /// Marks operations as finished by a wait in a loop over a collection of streams or events,
    /// which stands for a wait on each element: where the loop did not run, the collection was
    /// empty, and so was the work on its elements. (Call [`State::finish`] as well.)
    pub fn waited_over_collection(&mut self, ops: &OpSet) {
        let mut waited = ops.clone();
        waited.intersect_with(&self.inflight_may);
        self.waited_over.union_with(&waited);
    }

    /// Marks operations as finished (the host waited for them).
    pub fn finish(&mut self, ops: &OpSet) {
        if ops.is_empty() {
            return;
        }
        let mut finished = ops.clone();
        finished.intersect_with(&self.inflight_may);
        self.finished_may.union_with(&finished);
        // Bounded: the most recent operations (ids grow along the body), so a long body does
        // not carry every operation it ever waited for (each state copy would grow with it).
        if self.finished_may.len() > MAX_FINISHED_KEPT {
            let excess = self.finished_may.len() - MAX_FINISHED_KEPT;
            let oldest_kept = self.finished_may.iter().nth(excess).map(|op| op.index());
            if let Some(oldest_kept) = oldest_kept {
                self.finished_may.retain(|op| op.index() >= oldest_kept);
            }
        }
        self.inflight_may.subtract(ops);
        self.inflight_must.subtract(ops);
        self.implicitly_waited.subtract(ops);
        for covered in self.event_covers.values_mut() {
            covered.subtract(ops);
        }
        for waited in self
            .stream_waits
            .values_mut()
            .chain(self.renewed.values_mut())
            .chain(self.items_apart.values_mut())
        {
            waited.subtract(ops);
        }
        self.ext.finished(ops);
    }

    /// Operations the path now knows never started (the call that enqueued them failed): as
    /// [`State::finish`], but nobody waited for them.
    pub fn never_started(&mut self, ops: &OpSet) {
        if ops.is_empty() {
            return;
        }
        let finished_before = self.finished_may.clone();
        self.finish(ops);
        self.finished_may = finished_before;
        self.finished_may.subtract(ops);
    }

    /// Whether the host may have waited for `op` since it last started: some path here
    /// finished it (where it may be running, the other paths did not wait, or did not start it).
    pub fn may_have_finished(&self, op: OpId) -> bool {
        self.finished_may.contains(op)
    }

    /// Allocations made on some path and released on none since (where a path did not make
    /// one, there is nothing to release): what may be lost.
    pub fn unreleased(&self) -> LocSet {
        let mut out = self.owned_may.clone();
        out.subtract(&self.released_may);
        out
    }

    /// Whether `op` is running on every path here (else: on some paths only).
    pub fn surely_running(&self, op: OpId) -> bool {
        self.inflight_must.contains(op)
    }
}

/// Intersects `set` with `other`; true if anything was removed.
fn intersect_changed<T: Id>(set: &mut IdSet<T>, other: &IdSet<T>) -> bool {
    let before = set.len();
    set.intersect_with(other);
    set.len() != before
}

/// One set of operations that holds only where it holds on every path where they may run (see
/// [`meet`]). True if `mine` changed.
fn meet_set(mine: &mut OpSet, mine_running: &OpSet, theirs: &OpSet, theirs_running: &OpSet) -> bool {
    if mine.is_empty() && theirs.is_empty() {
        return false;
    }
    let mut running = mine_running.clone();
    running.union_with(theirs_running);
    let kept: OpSet = running
        .iter()
        .filter(|&op| {
            (!mine_running.contains(op) || mine.contains(op)) && (!theirs_running.contains(op) || theirs.contains(op))
        })
        .collect();
    let changed = *mine != kept;
    *mine = kept;
    changed
}

/// The ordering facts of two paths joined: an operation is ordered after the join if, on each
/// path, it is ordered or no longer running. True if `mine` changed.
fn meet(
    mine: &mut BTreeMap<Loc, OpSet>,
    mine_running: &OpSet,
    theirs: &BTreeMap<Loc, OpSet>,
    theirs_running: &OpSet,
) -> bool {
    if mine.is_empty() && theirs.is_empty() {
        return false;
    }
    let empty = OpSet::new();
    let mut running = mine_running.clone();
    running.union_with(theirs_running);
    let keys: Vec<Loc> = mine.keys().chain(theirs.keys()).copied().collect();
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
