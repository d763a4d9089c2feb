//! The transitions: what allocating, enqueuing, waiting, recording, freeing and page-locking do
//! to the [`State`]. A front end calls these, in program order, for what each call of a CUDA
//! API does; the lints judge the state and the [`crate::Event`]s the front end reports.

use crate::advice::Advice;
use crate::memory::MemKind;
use crate::ops::{Op, OpId, OpKind, OpSet};
use crate::regions::{Loc, LocSet, Regions};
use crate::state::{Ext, State};

/// The operations of one analysis (one body, with what it calls). The state at each program
/// point refers to them by [`OpId`].
#[derive(Default, Debug)]
pub struct Machine {
    ops: Vec<Op>,
    /// Streams that are the legacy default stream (the null stream of the runtime and driver
    /// APIs, what blocking copies run on): its work waits for every blocking stream's earlier
    /// work, and theirs for its.
    legacy: LocSet,
    /// Streams created non-blocking (`CU_STREAM_NON_BLOCKING`, `cudaStreamNonBlocking`, every
    /// stream cudarc's `new_stream` makes): they and the legacy stream do not wait for each other.
    non_blocking: LocSet,
    /// Requests of nonblocking library operations ([`OpKind::Request`]): what those operations
    /// run "on". They order nothing with any stream.
    requests: LocSet,
}

impl Machine {
    pub fn new() -> Self {
        Self::default()
    }

    /// A new operation (its streams and memory come with [`Machine::add_uses`]).
    pub fn new_op(&mut self, kind: OpKind, advice: &'static Advice) -> OpId {
        let id = OpId(u32::try_from(self.ops.len()).expect("fewer than 2^32 operations"));
        self.ops.push(Op {
            kind,
            streams: LocSet::new(),
            reads: LocSet::new(),
            writes: LocSet::new(),
            advice,
            notes: Vec::new(),
            host_in_stream_order: false,
            writes_unseen: false,
            blocking: false,
        });
        id
    }

    pub fn op(&self, id: OpId) -> &Op {
        &self.ops[id.0 as usize]
    }

    pub fn len(&self) -> usize {
        self.ops.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// What an execution of `op` runs on and touches (added to what earlier executions did).
    pub fn add_uses(&mut self, op: OpId, streams: &LocSet, reads: &LocSet, writes: &LocSet) {
        let o = &mut self.ops[op.0 as usize];
        o.streams.union_with(streams);
        o.reads.union_with(reads);
        o.writes.union_with(writes);
    }

    /// `op` uses host memory in stream order, pageable memory included (see
    /// [`Op::host_in_stream_order`]).
    pub fn set_host_in_stream_order(&mut self, op: OpId) {
        self.ops[op.0 as usize].host_in_stream_order = true;
    }

    /// `op` was enqueued by a synchronous call (see [`Op::blocking`]).
    pub fn set_blocking(&mut self, op: OpId) {
        self.ops[op.0 as usize].blocking = true;
    }

    /// `op`'s writes are assumed, not seen (see [`Op::writes_unseen`]).
    pub fn set_writes_unseen(&mut self, op: OpId) {
        self.ops[op.0 as usize].writes_unseen = true;
    }

    /// `stream` is the legacy default stream.
    pub fn set_legacy(&mut self, stream: Loc) {
        self.legacy.insert(stream);
    }

    /// `stream` was created non-blocking.
    pub fn set_non_blocking(&mut self, stream: Loc) {
        self.non_blocking.insert(stream);
    }

    /// `request` is the request of a nonblocking library operation (see [`OpKind::Request`]).
    pub fn set_request(&mut self, request: Loc) {
        self.requests.insert(request);
    }

    /// Whether work on `streams` may be on a blocking stream other than the legacy one (which
    /// the legacy stream waits for, and which waits for the legacy stream).
    fn may_block(&self, streams: &LocSet) -> bool {
        streams
            .iter()
            .any(|s| !self.non_blocking.contains(s) && !self.legacy.contains(s) && !self.requests.contains(s))
    }

    /// The requests any library operation was started on (see [`Machine::set_request`]).
    pub fn requests(&self) -> &LocSet {
        &self.requests
    }

    /// Whether `op` is a library's operation on the host's timeline, which no CUDA wait finishes.
    fn on_request(&self, op: OpId) -> bool {
        self.op(op).kind == OpKind::Request
    }

    /// Of `ops`, the CUDA work (not a library's requests, which CUDA waits do not finish).
    fn cuda_work(&self, ops: &OpSet) -> OpSet {
        ops.iter().filter(|op| !self.on_request(*op)).collect()
    }

    /// Complete the requests at `requests` (`MPI_Wait`, `MPI_Waitall`): the operations started on
    /// them finish. Requests the front end cannot name (`requests` empty) may be any.
    /// `over_collection`: by a test in a loop that ends once it says done (`while (!done)
    /// MPI_Test(..)`), whose skipping path is not one the program takes, or by a wait over an
    /// array's requests (`MPI_Waitall`), whose skipping path (`if (reqs.empty()) return;`) is one
    /// where the array held none: as [`State::waited_over_collection`]. Returns the operations it
    /// finished.
    pub fn complete_requests<X: Ext>(&self, st: &mut State<X>, requests: &LocSet, over_collection: bool) -> OpSet {
        let done: OpSet = st
            .inflight_may
            .iter()
            .filter(|op| self.on_request(*op) && (requests.is_empty() || self.op(*op).streams.intersects(requests)))
            .collect();
        if over_collection {
            st.waited_over_collection(&done);
        }
        st.finish(&done);
        done
    }

    fn on_legacy(&self, streams: &LocSet) -> bool {
        streams.intersects(&self.legacy)
    }

    /// A family's note on an operation, shown where a lint describes it.
    pub fn add_note(&mut self, op: OpId, note: &'static str) {
        let notes = &mut self.ops[op.0 as usize].notes;
        if !notes.contains(&note) {
            notes.push(note);
        }
    }

    /// Enqueue: `op` starts running. (A front end reports [`crate::Event::Enqueue`] between
    /// [`Machine::add_uses`] and this, so lints see it against the work already running.)
    ///
    /// Work on the legacy default stream waits for the work before it on every blocking
    /// stream, and work on a blocking stream waits for the legacy stream's work before it
    /// (CUDA's "legacy default stream" semantics): the streams keep that as a wait, so that
    /// synchronizing the later stream also finishes what it waited for.
    pub fn start<X: Ext>(&self, st: &mut State<X>, op: OpId) {
        let streams = &self.op(op).streams;
        if !streams.is_empty() {
            let on_legacy = self.on_legacy(streams);
            let blocking = !on_legacy
                && streams
                    .iter()
                    .all(|s| !self.non_blocking.contains(s) && !self.requests.contains(s));
            if on_legacy || blocking {
                let mut before = OpSet::new();
                for other in st.inflight_may.iter() {
                    let theirs = &self.op(other).streams;
                    let waited = if on_legacy {
                        !theirs.is_empty() && !self.on_legacy(theirs) && self.may_block(theirs)
                    } else {
                        self.on_legacy(theirs)
                    };
                    if waited {
                        before.insert(other);
                        for s in theirs.iter() {
                            if let Some(w) = st.stream_waits.get(&s) {
                                before.union_with(w);
                            }
                        }
                    }
                }
                before.retain(|o| o != op);
                self.order_after(st, streams, &before);
            }
        }
        st.start(op);
    }

    /// Operations that may run on `streams`, or that those streams wait for.
    pub fn ops_on<X: Ext>(&self, st: &State<X>, streams: &LocSet) -> OpSet {
        let mut out = OpSet::new();
        for op in st.inflight_may.iter() {
            if self.op(op).streams.intersects(streams) {
                out.insert(op);
            }
        }
        for s in streams.iter() {
            if let Some(w) = st.stream_waits.get(&s) {
                out.union_with(w);
            }
        }
        out
    }

    /// Synchronize streams: the host waits for their work. A stream the front end cannot name
    /// (`streams` empty) may be any, so waiting on it waits for all CUDA work. Waiting on the legacy
    /// default stream waits for the work of every stream but the non-blocking ones.
    pub fn sync_streams<X: Ext>(&self, st: &mut State<X>, streams: &LocSet) {
        let done = self.done_by_stream_sync(st, streams);
        st.finish(&done);
    }

    /// [`Machine::sync_streams`] made in a loop over a collection of streams (see
    /// [`State::waited_over_collection`]): of the work it finishes, that on streams that each
    /// stand for several (`many`: an element of a collection, or not known) counts as waited
    /// for over the collection. Returns that work.
    pub fn sync_streams_over_collection<X: Ext>(
        &self,
        st: &mut State<X>,
        streams: &LocSet,
        many: impl Fn(Loc) -> bool,
    ) -> OpSet {
        let done = self.done_by_stream_sync(st, streams);
        let mut over = done.clone();
        over.retain(|op| self.op(op).streams.iter().all(&many));
        st.waited_over_collection(&over);
        st.finish(&done);
        over
    }

    fn done_by_stream_sync<X: Ext>(&self, st: &State<X>, streams: &LocSet) -> OpSet {
        let mut done = if streams.is_empty() {
            self.cuda_work(&st.inflight_may)
        } else {
            self.ops_on(st, streams)
        };
        // Work on a stream the front end could not name (a library handle made where it cannot
        // see) may be on any of them: a wait for one may be the wait for it.
        for op in st.inflight_may.iter() {
            let o = self.op(op);
            if o.streams.is_empty() && o.kind == OpKind::Library {
                done.insert(op);
            }
        }
        if self.on_legacy(streams) {
            for op in st.inflight_may.iter() {
                if self.ordered_before(st, op, &self.legacy) {
                    done.insert(op);
                }
            }
        }
        done
    }

    /// Synchronize events: the host waits for the work recorded before them.
    pub fn sync_events<X: Ext>(&self, st: &mut State<X>, events: &LocSet) {
        let done = self.done_by_event_sync(st, events);
        st.finish(&done);
    }

    /// [`Machine::sync_events`] made in a loop over a collection of events (as
    /// [`Machine::sync_streams_over_collection`]).
    pub fn sync_events_over_collection<X: Ext>(
        &self,
        st: &mut State<X>,
        events: &LocSet,
        many: impl Fn(Loc) -> bool,
    ) -> OpSet {
        let done = self.done_by_event_sync(st, events);
        let mut over = done.clone();
        over.retain(|op| self.op(op).streams.iter().all(&many));
        st.waited_over_collection(&over);
        st.finish(&done);
        over
    }

    fn done_by_event_sync<X: Ext>(&self, st: &State<X>, events: &LocSet) -> OpSet {
        // An event the front end cannot name may be any event: it may cover all the work (as
        // a stream that cannot be named, see `done_by_stream_sync`).
        if events.is_empty() {
            return self.cuda_work(&st.inflight_may);
        }
        let mut done = OpSet::new();
        for e in events.iter() {
            if let Some(covered) = st.event_covers.get(&e) {
                done.union_with(covered);
            }
        }
        done
    }

    /// Synchronize the context (or device): every operation finishes (but a library's requests).
    pub fn sync_all<X: Ext>(&self, st: &mut State<X>) {
        let all = self.cuda_work(&st.inflight_may);
        st.finish(&all);
    }

    /// Record each of `events` on `streams`: it covers the work they have (or wait for) so far;
    /// on a stream the front end cannot name, all the work in flight (it may be any stream, as
    /// for [`Machine::sync_streams`]). One event is updated strongly; several (a join of paths)
    /// weakly.
    pub fn record_events<X: Ext>(&self, st: &mut State<X>, events: &LocSet, streams: &LocSet) {
        let covered = if streams.is_empty() {
            self.cuda_work(&st.inflight_may)
        } else {
            self.ops_on(st, streams)
        };
        let strong = events.len() == 1;
        for e in events.iter() {
            let entry = st.event_covers.entry(e).or_default();
            if strong {
                *entry = covered.clone();
            } else {
                entry.union_with(&covered);
            }
        }
    }

    /// `streams` wait for `events` (orders the device, not the host).
    pub fn wait_events<X: Ext>(&self, st: &mut State<X>, streams: &LocSet, events: &LocSet) {
        let mut covered = OpSet::new();
        for e in events.iter() {
            if let Some(c) = st.event_covers.get(&e) {
                covered.union_with(c);
            }
        }
        self.order_after(st, streams, &covered);
    }

    /// New work on `streams` is ordered after `ops` (a join of streams, an event wait).
    pub fn order_after<X: Ext>(&self, st: &mut State<X>, streams: &LocSet, ops: &OpSet) {
        if ops.is_empty() {
            return;
        }
        for s in streams.iter() {
            st.stream_waits.entry(s).or_default().union_with(ops);
        }
    }

    /// Whether operation `earlier` is ordered before new work on `streams` (the same stream,
    /// a wait, a stream not known on either side, or the legacy default stream on one side and
    /// a blocking stream on the other).
    pub fn ordered_before<X: Ext>(&self, st: &State<X>, earlier: OpId, streams: &LocSet) -> bool {
        let op = self.op(earlier);
        op.streams.is_empty()
            || streams.is_empty()
            || op.streams.intersects(streams)
            || (self.on_legacy(streams) && (self.on_legacy(&op.streams) || self.may_block(&op.streams)))
            || (self.on_legacy(&op.streams) && self.may_block(streams))
            || streams
                .iter()
                .any(|s| st.stream_waits.get(&s).is_some_and(|w| w.contains(earlier)))
    }

    /// Whether work on `streams` and the legacy default stream do not wait for each other
    /// (for the lints' explanation).
    pub fn is_non_blocking(&self, stream: Loc) -> bool {
        self.non_blocking.contains(stream)
    }

    pub fn is_legacy(&self, stream: Loc) -> bool {
        self.legacy.contains(stream)
    }

    /// The operations that may be in flight and use memory overlapping any of `data`.
    pub fn users<X: Ext>(&self, st: &State<X>, data: &LocSet, regions: &dyn Regions) -> OpSet {
        st.inflight_may
            .iter()
            .filter(|op| {
                self.may_be_running(st, *op)
                    && self.op(*op).uses_any(data, regions)
                    && data.iter().any(|d| self.uses_current(st, *op, d, regions))
            })
            .collect()
    }

    /// Allocations made anew (an allocation site run again, in a loop or a second call): the
    /// objects `roots` name from here on are new, and the work already started used the ones
    /// made before.
    pub fn renew<X: Ext>(&self, st: &mut State<X>, roots: &LocSet) {
        for root in roots.iter() {
            if st.inflight_may.is_empty() {
                st.renewed.remove(&root);
            } else {
                st.renewed.insert(root, st.inflight_may.clone());
            }
        }
    }

    /// Whether `op`'s use of the allocation `l` is part of may be of the object it names now
    /// (not of one made before it was allocated anew).
    /// Nor is it when `l` is an item of a collection that a loop visits one by one and `op`
    /// was started on an earlier item (see [`State::items_apart`]).
    pub fn uses_current<X: Ext>(&self, st: &State<X>, op: OpId, l: Loc, regions: &dyn Regions) -> bool {
        !st.renewed.get(&regions.root(l)).is_some_and(|ops| ops.contains(op))
            && !st
                .items_apart
                .iter()
                .any(|(item, ops)| ops.contains(op) && regions.within(l, *item))
    }

    /// A loop moves on to the next item of a collection at `item` (one location for all of
    /// them): of the work now running, `started_in_loop` used earlier items, not this one.
    pub fn next_item<X: Ext>(&self, st: &mut State<X>, item: Loc, started_in_loop: &OpSet) {
        let mut apart = started_in_loop.clone();
        apart.intersect_with(&st.inflight_may);
        if apart.is_empty() {
            st.items_apart.remove(&item);
        } else {
            st.items_apart.insert(item, apart);
        }
    }

    /// Whether `op` may still be running here. Work that a loop over a collection of streams
    /// (or events) waited for is not: the paths where it was not waited for are the ones where
    /// the loop did not run, the collection being empty (see
    /// [`State::waited_over_collection`]).
    pub fn may_be_running<X: Ext>(&self, st: &State<X>, op: OpId) -> bool {
        st.inflight_may.contains(op)
            && (st.inflight_must.contains(op) || !st.waited_over.contains(op))
            && !st.implicitly_waited.contains(op)
    }

    /// Whether `op` may still be running here as far as any CUDA documentation says, the host
    /// having waited for it only through a call that happens to synchronize (see
    /// [`Machine::wait_implicitly`]).
    pub fn only_implicitly_waited<X: Ext>(&self, st: &State<X>, op: OpId) -> bool {
        st.inflight_may.contains(op)
            && (st.inflight_must.contains(op) || !st.waited_over.contains(op))
            && st.implicitly_waited.contains(op)
    }

    /// A call that synchronizes the device only by an implementation's accident (`cudaFree`,
    /// `cuMemFree`: "may perform implicit synchronization"): every operation is done in
    /// practice, and stays in flight as far as the documentation goes, for
    /// `relies_on_implicit_sync` to tell what relies on it.
    pub fn wait_implicitly<X: Ext>(&self, st: &mut State<X>) {
        let running = self.cuda_work(&st.inflight_may);
        self.wait_implicitly_for(st, &running);
    }

    /// The host waits for `ops` by an implementation's accident: an asynchronous copy into
    /// pageable memory, which "might be synchronous", waits for its stream's work.
    pub fn wait_implicitly_for<X: Ext>(&self, st: &mut State<X>, ops: &OpSet) {
        let running: OpSet = ops.iter().filter(|op| self.may_be_running(st, *op)).collect();
        st.implicitly_waited.union_with(&running);
    }

    /// The work a synchronize of `streams` would finish (see [`Machine::sync_streams`]).
    pub fn stream_work<X: Ext>(&self, st: &State<X>, streams: &LocSet) -> OpSet {
        self.done_by_stream_sync(st, streams)
    }

    /// A free that waits for the device first (`cuMemFree`, `cuMemHostUnregister`): the CUDA
    /// work using the memory finishes.
    pub fn free_waiting<X: Ext>(&self, st: &mut State<X>, data: &LocSet, regions: &dyn Regions) {
        let users = self.cuda_work(&self.users(st, data, regions));
        st.finish(&users);
    }

    /// An allocation is made (again, in a loop: a new one): it is not released, and, where
    /// `uninitialized` (`cudaMalloc`, `cuMemAlloc`: "the memory is not cleared"), not written.
    /// `owned`: the program must release it (not a module's variable, not a container's).
    pub fn allocated<X: Ext>(&self, st: &mut State<X>, root: Loc, uninitialized: bool, owned: bool) {
        if owned {
            st.owned_may.insert(root);
        } else {
            st.owned_may.remove(root);
        }
        st.released_may.remove(root);
        st.freed_must.remove(root);
        if uninitialized {
            st.unwritten_must.insert(root);
        } else {
            st.unwritten_must.remove(root);
        }
        st.unread_output.remove(&root);
    }

    /// Memory is released (`cudaFree`, `free`, a destructor's release): what was known of
    /// its contents ends with it.
    pub fn released<X: Ext>(&self, st: &mut State<X>, data: &LocSet, regions: &dyn Regions) {
        self.let_go(st, data, regions);
        for l in data.iter() {
            st.freed_must.insert(regions.root(l));
        }
    }

    /// A local's storage ends with its scope (a stack array, a `std::vector`): not a release
    /// the program makes, but what lived there is gone.
    pub fn storage_ended<X: Ext>(&self, st: &mut State<X>, data: &LocSet, regions: &dyn Regions) {
        for l in data.iter() {
            st.freed_must.insert(regions.root(l));
        }
    }

    /// What a release and a hand-over have in common: the memory's contents and owner are no
    /// longer the program's to know.
    fn let_go<X: Ext>(&self, st: &mut State<X>, data: &LocSet, regions: &dyn Regions) {
        for l in data.iter() {
            let root = regions.root(l);
            st.released_may.insert(root);
            st.unwritten_must.remove(root);
            st.unread_output.remove(&root);
        }
    }

    /// Allocations whose call failed (the branch of `if (cudaMalloc(..) != cudaSuccess)`):
    /// nothing was made, nothing is to be released.
    pub fn allocation_failed<X: Ext>(&self, st: &mut State<X>, roots: &LocSet) {
        st.owned_may.subtract(roots);
        st.unwritten_must.subtract(roots);
        for r in roots.iter() {
            st.unread_output.remove(&r);
        }
    }

    /// Every allocation is released (`cudaDeviceReset`, `cuCtxDestroy`).
    pub fn released_all<X: Ext>(&self, st: &mut State<X>) {
        let owned = st.owned_may.clone();
        st.released_may.union_with(&owned);
        st.unwritten_must = LocSet::new();
        st.unread_output.clear();
    }

    /// The program now owns `roots` and must release them: memory an owner gave up (cudarc's
    /// `CudaSlice::leak`, which hands back the raw pointer and frees nothing on drop).
    pub fn ownership_taken<X: Ext>(&self, st: &mut State<X>, roots: &LocSet) {
        for root in roots.iter() {
            st.owned_may.insert(root);
            st.released_may.remove(root);
        }
    }

    /// An owner takes `roots` over and releases them itself (cudarc's `upgrade_device_ptr`: a
    /// `CudaSlice` that frees on drop): the program no longer has to. Contents are unchanged.
    pub fn owner_adopts<X: Ext>(&self, st: &mut State<X>, roots: &LocSet) {
        st.released_may.union_with(roots);
    }

    /// What every allocation holds, and who releases it, is no longer known: another method
    /// of the object that made them may have written, read or released them (a method analysed
    /// with its receiver as its constructor built it).
    pub fn contents_unknown<X: Ext>(&self, st: &mut State<X>) {
        self.released_all(st);
    }

    /// Memory is handed to code the analysis cannot see (a library call, a function not in
    /// the program): it may write it, read it and release it.
    pub fn handed_over<X: Ext>(&self, st: &mut State<X>, data: &LocSet, regions: &dyn Regions) {
        self.let_go(st, data, regions);
    }

    /// The host reads or writes memory directly (managed memory, host memory).
    pub fn host_touched<X: Ext>(&self, st: &mut State<X>, data: &LocSet, write: bool, regions: &dyn Regions) {
        for l in data.iter() {
            let root = regions.root(l);
            if write {
                st.unwritten_must.remove(root);
            } else {
                st.unread_output.remove(&root);
            }
        }
    }

    /// What a started operation does to the contents of memory, this time (`reads` and
    /// `writes` are what its arguments name now, not everything its site ever used; `writes`
    /// one set per argument written through, with whether its source surely stores through
    /// it): what it may write is written; what it reads is read, an earlier round of itself
    /// included; and where a kernel surely stores into one allocation (an argument names only
    /// that one), that allocation holds its output until something reads it.
    pub fn contents_used<X: Ext>(
        &self,
        st: &mut State<X>,
        op: OpId,
        reads: &LocSet,
        writes: &[(LocSet, bool)],
        regions: &dyn Regions,
    ) {
        for l in reads.iter() {
            st.unread_output.remove(&regions.root(l));
        }
        let launch = self.op(op).kind == OpKind::Launch && !self.op(op).writes_unseen;
        for (arg, stores) in writes {
            let roots: LocSet = arg.iter().map(|l| regions.root(l)).collect();
            for root in roots.iter() {
                st.unwritten_must.remove(root);
                if launch && *stores && roots.len() == 1 && !regions.one_of_many(root) {
                    st.unread_output.insert(root, op);
                } else {
                    st.unread_output.remove(&root);
                }
            }
        }
    }

    /// Page-lock host memory in place (`cuMemHostRegister`).
    pub fn register_in_place<X: Ext>(&self, st: &mut State<X>, roots: &LocSet) {
        st.registered_may.union_with(roots);
        st.registered_must.union_with(roots);
    }

    /// Unregister it, which waits for the work using it first.
    pub fn unregister<X: Ext>(&self, st: &mut State<X>, roots: &LocSet, regions: &dyn Regions) {
        self.free_waiting(st, roots, regions);
        st.registered_may.subtract(roots);
        st.registered_must.subtract(roots);
    }

    /// The VMM mappings a call given `at` acts on (`cuMemSetAccess`, `cuMemUnmap`,
    /// `cuMemAddressFree` take an address and a size): at a view past a reservation's start,
    /// that view; at the reservation's start, every view of it mapped on some path (the size
    /// usually covers them all), itself included; at an offset not known (`base + i * size`, in a
    /// loop over the chunks), any view of it, so every view mapped on some path. Empty when `at`
    /// is no mapping the analysis saw made (a parameter, an address it cannot follow).
    pub fn mappings_at<X: Ext>(&self, st: &State<X>, at: &LocSet, regions: &dyn Regions) -> LocSet {
        self.mappings_at_offsets(st, at, regions, true)
    }

    /// [`Machine::mappings_at`]; with `any_view` false, an address at an offset not known that
    /// the program mapped at (`cuMemMap(base + size, ..)`, then `cuMemSetAccess(base + size, ..)`)
    /// is that mapping alone.
    fn mappings_at_offsets<X: Ext>(&self, st: &State<X>, at: &LocSet, regions: &dyn Regions, any_view: bool) -> LocSet {
        let mut views = LocSet::new();
        for l in at.iter() {
            if regions.mem_kind(l) != Some(MemKind::VmmMapping) {
                continue;
            }
            let (view, root) = (regions.mapping(l), regions.root(l));
            let anywhere = regions.at_unknown_offset(view) && (any_view || !st.mapped_may.contains(view));
            if view == root || anywhere {
                for v in st.mapped_may.iter().filter(|&v| regions.root(v) == root) {
                    views.insert(v);
                }
            }
            views.insert(view);
        }
        views
    }

    /// `view` is mapped (`cuMemMap`); the device has no access to it yet.
    pub fn map<X: Ext>(&self, st: &mut State<X>, views: &LocSet) {
        st.mapped_may.union_with(views);
        st.mapped_must.union_with(views);
        st.access_may.subtract(views);
        st.access_must.subtract(views);
    }

    /// A map call of `views` failed (the code checked its status): they are not mapped.
    pub fn map_failed<X: Ext>(&self, st: &mut State<X>, views: &LocSet) {
        for set in [
            &mut st.mapped_may,
            &mut st.mapped_must,
            &mut st.access_may,
            &mut st.access_must,
        ] {
            set.subtract(views);
        }
    }

    /// The device is granted access to the mappings at `at` (`cuMemSetAccess`). Where they
    /// are not known (an address the analysis cannot follow), to every mapping: a grant it
    /// cannot place must not leave a mapping looking inaccessible.
    pub fn set_access<X: Ext>(&self, st: &mut State<X>, at: &LocSet, regions: &dyn Regions) {
        let mut views = self.mappings_at_offsets(st, at, regions, false);
        if views.is_empty() {
            views = st.mapped_may.clone();
        }
        views.intersect_with(&st.mapped_may);
        st.access_may.union_with(&views);
        views.intersect_with(&st.mapped_must);
        st.access_must.union_with(&views);
    }

    /// The mappings at `at` are unmapped (`cuMemUnmap`), and lose their access. Where they are
    /// not known, every mapping is taken as unmapped (none is then reported as still mapped).
    pub fn unmap<X: Ext>(&self, st: &mut State<X>, at: &LocSet, regions: &dyn Regions) {
        let mut views = self.mappings_at(st, at, regions);
        if views.is_empty() {
            views = st.mapped_may.clone();
        }
        for set in [
            &mut st.mapped_may,
            &mut st.mapped_must,
            &mut st.access_may,
            &mut st.access_must,
        ] {
            set.subtract(&views);
        }
    }

    /// Whether asynchronous work can still be using memory at `l` after the call that enqueued
    /// it returned: memory that is not pageable, or pageable memory page-locked in place.
    pub fn can_be_in_flight<X: Ext>(&self, st: &State<X>, l: Loc, regions: &dyn Regions) -> bool {
        match regions.mem_kind(l) {
            Some(MemKind::Pageable) => st.registered_may.contains(regions.root(l)),
            Some(k) => k.can_be_in_flight(),
            None => false,
        }
    }

    /// Two different mappings (one from each list) of the same physical allocation.
    pub fn alias_pair(&self, a: &[Loc], b: &[Loc], regions: &dyn Regions) -> Option<(Loc, Loc)> {
        for &x in a {
            let rx = regions.mapping(x);
            // A mapping of unknown origin (a parameter) can be paired with nothing.
            let Some(px) = regions.physical(rx) else {
                continue;
            };
            for &y in b {
                let ry = regions.mapping(y);
                if rx == ry {
                    continue;
                }
                if regions.physical(ry).is_some_and(|py| px.intersects(&py)) {
                    return Some((rx, ry));
                }
            }
        }
        None
    }
}
