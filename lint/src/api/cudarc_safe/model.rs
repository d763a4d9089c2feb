//! cudarc's event-tracking policy: what cudarc 0.19 does beyond the shared vocabulary, as
//! transitions of the machine. A table entry carries it as [`Effect::Cudarc`](super::super::Effect).
//!
//! While a context has more than one stream and event tracking is on
//! (`is_managing_stream_synchronization`), every `CudaSlice` records a read and a write event for
//! the work that uses it; the next use on another stream (and `device_ptr`) waits for them, its
//! drop waits for them before freeing in stream order, and `PinnedHostSlice::as_slice`
//! synchronizes them. With a single stream, or tracking off, nothing is recorded, so none of
//! those waits orders anything. A `UnifiedSlice` argument's event is recorded after every launch.
//! Slices allocated while tracking is off never get events.
//!
//! The policy's state ([`CudarcState`]) lives in the machine's family slot; the machine joins it
//! and tells it when work starts and finishes.

use std::collections::BTreeMap;

use cuda_lint_machine::{Ext, Loc, LocSet, Machine, MemKind, OpId, OpKind, OpSet, Regions};

use super::ContextChange;
use crate::api::FamilyState;

type MachineState = cuda_lint_machine::State<FamilyState>;

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

/// What cudarc's context is doing on a path.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct CudarcState {
    /// More than one stream created.
    pub many_streams: Tri,
    /// Event tracking on.
    pub tracking: Tri,
    /// Operations that may not have recorded events on the memory they use (raw API calls, and
    /// cudarc's own while its context does not manage stream synchronization).
    pub untracked: OpSet,
    /// Allocations made while tracking was off (on some path): no event ever covers their use.
    pub no_events: LocSet,
    /// Memory that recorded operations use without an event on it: a copy's host side given as
    /// a plain slice (`pinned.as_slice()?`, a `&mut [T]`), a launch argument given as a raw
    /// device pointer (`device_ptr(&s).0`). cudarc records only for its own types.
    pub unrecorded_uses: BTreeMap<OpId, LocSet>,
}

impl Ext for CudarcState {
    fn join(&mut self, other: &Self) -> bool {
        let (streams, tracking) = (
            self.many_streams.join(other.many_streams),
            self.tracking.join(other.tracking),
        );
        let mut changed = streams != self.many_streams || tracking != self.tracking;
        self.many_streams = streams;
        self.tracking = tracking;
        changed |= self.untracked.union_with(&other.untracked);
        changed |= self.no_events.union_with(&other.no_events);
        for (op, uses) in &other.unrecorded_uses {
            changed |= self.unrecorded_uses.entry(*op).or_default().union_with(uses);
        }
        changed
    }

    fn started(&mut self, op: OpId) {
        self.untracked.insert(op);
    }

    fn finished(&mut self, ops: &OpSet) {
        self.untracked.subtract(ops);
        self.unrecorded_uses.retain(|op, _| !ops.contains(*op));
    }
}

impl CudarcState {
    /// Whether the context may be recording events (it does unless a single stream exists or
    /// tracking is off; unknown state is taken to record, so code whose context is made
    /// elsewhere is not flagged on a guess).
    pub fn may_record_events(&self) -> bool {
        self.many_streams != Tri::No && self.tracking != Tri::No
    }
}

/// The note a diagnostic gives about work cudarc did not record.
pub const UNRECORDED: &str = "cudarc records events for this work, and waits for them (in `as_slice`, \
                              `as_ptr`, drops and other streams' calls), only while its context has more than \
                              one stream and event tracking is on; here it does not";

/// The note for a copy whose host side was a plain slice.
pub const HOST_UNRECORDED: &str = "this copy was given a plain slice of host memory (`as_slice()`, `&mut [T]`): \
                                   cudarc records an event on the host side only for a `PinnedHostSlice` \
                                   itself, so its `as_slice`/`as_mut_slice` do not wait for this copy";

/// The note for a launch given a raw device pointer.
pub const ARG_UNRECORDED: &str = "this launch was given a raw device pointer (`device_ptr(&stream).0`, a \
                                  `CUdeviceptr`): cudarc records events only for the `CudaSlice`/`CudaView` \
                                  arguments it is given, so drops and other streams do not wait for this use";

/// How the next operation a call enqueues is tracked (the call's effects list
/// `TrackedByEvents`).
#[derive(Clone, Debug)]
pub struct CallTracking {
    /// Whether the context records events as the call starts.
    pub recording: bool,
    /// Memory the operation uses through values that are not cudarc's types (a plain host
    /// slice: `HostSlice` for `[T]` and `Vec<T>` records nothing; a raw device pointer as a
    /// launch argument): no event is recorded on it.
    pub unrecorded: LocSet,
    /// The note for that memory's use.
    pub unrecorded_note: &'static str,
}

/// A call that carries `TrackedByEvents` starts.
pub fn call_starts(st: &MachineState) -> CallTracking {
    CallTracking {
        recording: st.ext.cudarc.may_record_events(),
        unrecorded: LocSet::new(),
        unrecorded_note: HOST_UNRECORDED,
    }
}

/// Before a tracked call's operation starts: cudarc makes the stream wait for the events
/// recorded on the memory it uses. Returns whether the operation records events itself.
pub fn before_enqueue(
    m: &Machine,
    st: &mut MachineState,
    call: &CallTracking,
    kind: OpKind,
    used: &LocSet,
    streams: &LocSet,
    regions: &dyn Regions,
) -> bool {
    let unified = kind == OpKind::Launch && used.iter().any(|l| regions.mem_kind(l) == Some(MemKind::Managed));
    let tracked =
        (call.recording || unified) && !used.iter().any(|l| st.ext.cudarc.no_events.contains(regions.root(l)));
    if tracked {
        // cudarc waits for the events of its own types only: memory given as a raw pointer
        // (`device_ptr(&s).0` pushed as a `u64`) is not waited for.
        let mut waited = used.clone();
        waited.retain(|l| !call.unrecorded.iter().any(|u| regions.overlaps(u, l)));
        wait_for_recorded(m, st, &waited, streams, regions);
    }
    tracked
}

/// After `op` started: what it recorded, and the note for work cudarc would have recorded.
pub fn after_enqueue(m: &mut Machine, st: &mut MachineState, op: OpId, call: CallTracking, tracked: bool) {
    if tracked {
        st.ext.cudarc.untracked.subtract(&OpSet::single(op));
        if !call.unrecorded.is_empty() {
            st.ext.cudarc.unrecorded_uses.insert(op, call.unrecorded);
            m.add_note(op, call.unrecorded_note);
        }
    } else {
        m.add_note(op, UNRECORDED);
    }
}

/// The work using `data` that recorded events on it.
fn recorded_users(m: &Machine, st: &MachineState, data: &LocSet, regions: &dyn Regions) -> OpSet {
    let cudarc = &st.ext.cudarc;
    m.users(st, data, regions)
        .iter()
        .filter(|op| !cudarc.untracked.contains(*op))
        .filter(|op| {
            cudarc
                .unrecorded_uses
                .get(op)
                .is_none_or(|unrecorded| !unrecorded.iter().any(|u| data.iter().any(|d| regions.overlaps(u, d))))
        })
        .collect()
}

/// Makes `streams` wait for the work that recorded events on `data` (what cudarc does before a
/// use on another stream, and before it hands out a device pointer).
pub fn wait_for_recorded(m: &Machine, st: &mut MachineState, data: &LocSet, streams: &LocSet, regions: &dyn Regions) {
    let recorded = recorded_users(m, st, data, regions);
    m.order_after(st, streams, &recorded);
}

/// `PinnedHostSlice::as_slice` and friends synchronize the events recorded on the memory (not
/// copies given a plain slice of it: those recorded none on it).
///
/// The event of an operation is recorded on its stream after it, so waiting for it also
/// finishes the work enqueued on that one stream before it: the operations of earlier call
/// sites (a site's operation stands for its latest execution; a later site's execution from a
/// previous loop iteration is left running, which is conservative).
pub fn sync_memory(m: &Machine, st: &mut MachineState, data: &LocSet, regions: &dyn Regions) {
    let mut finished = recorded_users(m, st, data, regions);
    let earlier: Vec<_> = st
        .inflight_may
        .iter()
        .filter(|&o| {
            let streams = &m.op(o).streams;
            streams.len() == 1 && finished.iter().any(|r| o.0 < r.0 && m.op(r).streams == *streams)
        })
        .collect();
    for o in earlier {
        finished.insert(o);
    }
    st.finish(&finished);
}

/// A context's state changes.
pub fn context_change(m: &Machine, st: &mut MachineState, change: ContextChange) {
    let cudarc = &mut st.ext.cudarc;
    match change {
        ContextChange::New => {
            cudarc.many_streams = Tri::No;
            cudarc.tracking = Tri::Yes;
        }
        ContextChange::MoreStreams => {
            // cudarc synchronizes the context when its second stream is made (with tracking
            // on); when that cannot be ruled out, it is assumed.
            let syncs = cudarc.many_streams != Tri::Yes && cudarc.tracking != Tri::No;
            cudarc.many_streams = Tri::Yes;
            if syncs {
                m.sync_all(st);
            }
        }
        ContextChange::TrackingOn => cudarc.tracking = Tri::Yes,
        ContextChange::TrackingOff => cudarc.tracking = Tri::No,
    }
}

/// Memory allocated on a stream: while tracking is off, it never gets events.
pub fn allocated(st: &mut MachineState, new: impl Iterator<Item = Loc>) {
    if st.ext.cudarc.tracking == Tri::No {
        for l in new {
            st.ext.cudarc.no_events.insert(l);
        }
    }
}

/// A slice freed in stream order (dropped): it first waits for its recorded events, so only
/// work that recorded none can race with the free.
pub fn exempt_from_stream_ordered_free(m: &Machine, st: &MachineState, data: &LocSet, regions: &dyn Regions) -> OpSet {
    recorded_users(m, st, data, regions)
}

/// The guard of `device_ptr` dropped: it records the work enqueued on its stream with its
/// memory so far, which later cudarc calls wait for.
pub fn guard_dropped(m: &Machine, st: &mut MachineState, memory: &LocSet, streams: &LocSet, regions: &dyn Regions) {
    if !st.ext.cudarc.may_record_events() {
        return;
    }
    let recorded: OpSet = m
        .users(st, memory, regions)
        .iter()
        .filter(|op| m.op(*op).streams.intersects(streams))
        .collect();
    st.ext.cudarc.untracked.subtract(&recorded);
    // Its record covers the raw pointer's uses of that memory too.
    for op in recorded.iter() {
        if let Some(unrecorded) = st.ext.cudarc.unrecorded_uses.get_mut(&op) {
            unrecorded.retain(|u| !memory.iter().any(|d| regions.overlaps(u, d)));
        }
    }
}

/// `device_ptr`: cudarc makes the stream wait for the recorded work on the memory first.
pub fn device_ptr(m: &Machine, st: &mut MachineState, data: &LocSet, streams: &LocSet, regions: &dyn Regions) {
    if st.ext.cudarc.may_record_events() {
        wait_for_recorded(m, st, data, streams, regions);
    }
}
