//! What the API tables' effects do to the abstract state: allocations, copies, launches,
//! synchronizations, events, frees and drops.

#[allow(unused_imports)]
use super::*;

impl<'a, 'tcx> Interp<'a, 'tcx> {
    /// Applies the table effects of a call; returns the call's result.
    pub(super) fn apply(
        &mut self,
        call: &CallSite<'_, 'tcx>,
        effects: &[Effect],
        ret_ty: Ty<'tcx>,
        state: &mut State,
    ) -> Val {
        let f = call.f;
        let mut ret = LocSet::new();
        let mut tree: Option<LocId> = None;
        // A tuple result, field by field (a pointer and its guard).
        let mut fields: Option<Vec<(Proj, LocSet, Option<LocId>)>> = None;
        // The object the last `NewOut` created (for `AllocatedOn`).
        let mut last_new: Option<LocId> = None;
        // cudarc's safe calls record events on what they use (and wait for earlier ones) while
        // its context manages stream synchronization.
        self.enqueue_tracked = effects.contains(&Effect::TrackedByEvents) && state.may_record_events();
        self.enqueue_would_track = effects.contains(&Effect::TrackedByEvents);
        for (which, effect) in effects.iter().enumerate() {
            match *effect {
                Effect::New(target) => {
                    let handle = peel_result(ret_ty);
                    let ty = matches!(target, Target::Mem(_))
                        .then(|| self.locs.target_ty(handle))
                        .flatten();
                    let new = self.locs.fresh(f, call.bb, which as u8, target, call.span, ty);
                    self.locs.set_allocated(new);
                    self.attrs.entry(new).or_default().family = Some(self.family);
                    ret.insert(new);
                }
                Effect::Derive(a) => {
                    let v = self.arg(call, a, &ret);
                    let derived = self.derive(state, &v);
                    ret.union_with(&self.narrow(state, &derived, ret_ty));
                }
                Effect::HostView { arg, write } => {
                    let v = self.arg(call, arg, &ret);
                    let data = self.derive(state, &v);
                    self.host_view(f, &data, write, call.si, state);
                    ret.union_with(&data);
                }
                Effect::Push { vec, value } => {
                    // The value becomes an element (of a `Vec`, or an argument of a launch
                    // being built): what it refers to, the element refers to.
                    let vals = self.arg(call, value, &ret);
                    for collection in self.data_arg(call, vec, &ret, state).iter() {
                        let element = self.locs.child(collection, Proj::Index);
                        state.values.entry(element).or_default().union_with(&vals);
                    }
                    // A launch's arguments stay apart, one slot per `.arg(..)` call.
                    for builder in self.objects(call, vec, state).iter() {
                        let slot = self.locs.child(builder, Proj::Field(call.bb.as_u32()));
                        state.values.entry(slot).or_default().union_with(&vals);
                    }
                    // `builder.arg(&x)` returns the builder, for the next `.arg(..)`.
                    if ret_ty.is_ref() {
                        ret.union_with(&self.arg(call, vec, &ret));
                    }
                }
                Effect::Contents(a) => {
                    let mut contents = LocSet::new();
                    for l in self.arg(call, a, &ret).iter() {
                        contents.union_with(&self.read_value(state, l));
                    }
                    ret.union_with(&self.narrow(state, &contents, ret_ty));
                }
                Effect::Read(a) => {
                    let v = self.arg(call, a, &ret);
                    let mut data = self.reach(state, &v, 2);
                    // Iterating over handles (`[CudaSlice; 2].iter()`) reads the handles, not
                    // the device memory they own.
                    self.keep_device_only_if_direct(&mut data, &v);
                    self.host_access(f, &data, Access::Read, call.si, state);
                }
                Effect::Transparent => {
                    let body = self.frames[f.0 as usize].body;
                    for (arg, v) in call.args.iter().zip(call.argvals) {
                        // `p.add(i)`: the offset is a number, not where the result points.
                        if !self
                            .instantiate(f, arg.node.ty(&body.local_decls, self.tcx))
                            .is_integral()
                        {
                            ret.union_with(v);
                        }
                    }
                    // `Try::branch(x)`, `x.unwrap()`: the result is `x` itself (or what it
                    // wraps), fields included.
                    if let Some(first) = call.args.first()
                        && let Some(src) = self.single_aggregate(f, &first.node, state)
                    {
                        tree = Some(src);
                    }
                }
                Effect::NoAccess => {}
                Effect::Copy {
                    dst,
                    src,
                    dir,
                    stream,
                    is_async,
                } => {
                    self.copy(call, dst, src, dir, stream, is_async, &ret, state);
                }
                Effect::Memset { dst, stream, .. } => {
                    let dst = self.data_arg(call, dst, &ret, state);
                    let streams = self.objects(call, stream, state);
                    self.enqueue(call, OpKind::Memset, streams, LocSet::new(), dst, state);
                }
                Effect::Launch { kernel, stream, args } => self.launch(call, kernel, stream, args, state),
                Effect::SyncStream(a) => {
                    let streams = self.objects(call, a, state);
                    self.sync_streams(&streams, state);
                }
                Effect::SyncEvent(a) => {
                    let events = self.objects(call, a, state);
                    let mut done = OpSet::new();
                    for e in events.iter() {
                        if let Some(covered) = state.event_covers.get(&e) {
                            done.union_with(covered);
                        }
                    }
                    state.finish(&done);
                }
                Effect::SyncContext => {
                    let all = state.inflight_may.clone();
                    state.finish(&all);
                }
                Effect::RecordEvent { event, stream } => {
                    let events = self.objects_with(call, event, &ret, state);
                    let streams = self.objects(call, stream, state);
                    let covered = self.ops_on(&streams, state);
                    let strong = events.len() == 1;
                    for e in events.iter() {
                        let entry = state.event_covers.entry(e).or_default();
                        if strong {
                            *entry = covered.clone();
                        } else {
                            entry.union_with(&covered);
                        }
                    }
                }
                Effect::StreamWaitEvent { stream, event } => {
                    let events = self.objects(call, event, state);
                    let streams = self.objects(call, stream, state);
                    let mut covered = OpSet::new();
                    for e in events.iter() {
                        if let Some(c) = state.event_covers.get(&e) {
                            covered.union_with(c);
                        }
                    }
                    for s in streams.iter() {
                        state.stream_waits.entry(s).or_default().union_with(&covered);
                    }
                }
                Effect::Register { .. } => {
                    // While the guard lives, the memory is reached only through it (it borrows
                    // the memory), as a region of pinned memory of its own; dropping the guard
                    // unregisters it, which waits for the work using it.
                    let pinned = Target::Mem(MemKind::Pinned);
                    let registered = self.locs.fresh(f, call.bb, which as u8, pinned, call.span, None);
                    self.locs.set_allocated(registered);
                    self.attrs.entry(registered).or_default().family = Some(self.family);
                    ret.insert(registered);
                }
                Effect::Free { mem, kind } => {
                    let data = self.data_arg(call, mem, &ret, state);
                    self.free(f, &data, kind, call.si, state);
                }
                Effect::DropArg(a) => {
                    if let Some(arg) = call.args.get(a as usize) {
                        let body = self.frames[f.0 as usize].body;
                        let ty = self.instantiate(f, arg.node.ty(&body.local_decls, self.tcx));
                        let vals = call.argvals[a as usize].clone();
                        self.drop_value(f, ty, &vals, call.si, state);
                    }
                }
                Effect::Swap(a, b) => {
                    let pa = self.arg(call, a, &ret);
                    let pb = self.arg(call, b, &ret);
                    let busy = |this: &mut Self, l: Option<LocId>| {
                        l.is_some_and(|l| {
                            let data = this.read_value(state, l);
                            this.in_use(state, &data)
                        })
                    };
                    if let (Some(x), Some(y)) = (single(&pa), single(&pb))
                        && (busy(self, Some(x)) || busy(self, Some(y)))
                    {
                        // Exchanging two owners while no work uses either only relabels them;
                        // keeping the labels keeps double-buffering loops precise at their joins.
                        let vx = self.read_value(state, x);
                        let vy = self.read_value(state, y);
                        state.values.insert(x, vy);
                        state.values.insert(y, vx);
                    }
                }
                Effect::CompileSource(a) => {
                    let sources = self.const_strs(call, a);
                    let module =
                        self.locs
                            .fresh(f, call.bb, which as u8, Target::Obj(ObjKind::Module), call.span, None);
                    let attrs = self.attrs.entry(module).or_default();
                    for source in sources.into_iter().map(|s| s.map(Rc::from)) {
                        if !attrs.sources.contains(&source) {
                            attrs.sources.push(source);
                        }
                    }
                    ret.insert(module);
                }
                Effect::LoadModule(a) => {
                    let from = self.objects(call, a, state);
                    let module =
                        self.locs
                            .fresh(f, call.bb, which as u8, Target::Obj(ObjKind::Module), call.span, None);
                    let mut sources = Vec::new();
                    for m in from.iter() {
                        match self.attrs.get(&m) {
                            Some(a) => sources.extend(a.sources.iter().cloned()),
                            None => sources.push(None),
                        }
                    }
                    let attrs = self.attrs.entry(module).or_default();
                    for s in sources {
                        if !attrs.sources.contains(&s) {
                            attrs.sources.push(s);
                        }
                    }
                    ret.insert(module);
                }
                Effect::GetFunction { module, name } => {
                    let names = self.const_strs(call, name);
                    let modules = self.objects(call, module, state);
                    let kernel =
                        self.locs
                            .fresh(f, call.bb, which as u8, Target::Obj(ObjKind::Kernel), call.span, None);
                    let attrs = self.attrs.entry(kernel).or_default();
                    for name in names {
                        if !attrs.kernel_names.contains(&name) {
                            attrs.kernel_names.push(name);
                        }
                    }
                    attrs.modules.union_with(&modules);
                    ret.insert(kernel);
                }
                Effect::Map { physical } => {
                    let phys = self.objects(call, physical, state);
                    let mapping = self.locs.fresh(
                        f,
                        call.bb,
                        which as u8,
                        Target::Mem(MemKind::VmmMapping),
                        call.span,
                        None,
                    );
                    self.locs.set_allocated(mapping);
                    self.attrs.entry(mapping).or_default().family = Some(self.family);
                    self.attrs.entry(mapping).or_default().physical.union_with(&phys);
                    ret.insert(mapping);
                }
                Effect::NewOut { out, target } => {
                    let new = self.locs.fresh(f, call.bb, which as u8, target, call.span, None);
                    self.locs.set_allocated(new);
                    self.attrs.entry(new).or_default().family = Some(self.family);
                    let slots = self.arg(call, out, &ret);
                    let strong = slots.len() == 1;
                    for slot in slots.iter() {
                        self.store(state, slot, &LocSet::single(new), strong);
                    }
                    last_new = Some(new);
                }
                Effect::MapAt { va, physical } => {
                    let phys = self.objects(call, physical, state);
                    for mapping in self.data_arg(call, va, &ret, state).iter() {
                        if self.is_mapping(mapping) {
                            let root = self.locs.data_root(mapping);
                            self.attrs.entry(root).or_default().physical.union_with(&phys);
                        }
                    }
                }
                Effect::AllocatedOn(a) => {
                    let streams = self.streams(call, a, state);
                    // cudarc gives a slice allocated while event tracking is off no events.
                    let no_events = state.tracking == Tri::No;
                    for new in ret.iter().chain(last_new) {
                        let attrs = self.attrs.entry(new).or_default();
                        attrs.streams.union_with(&streams);
                        attrs.no_events |= no_events;
                    }
                }
                Effect::DefaultStream(a) => {
                    for ctx in self.objects(call, a, state).iter() {
                        let stream = self.locs.default_stream(ctx);
                        self.attrs.entry(stream).or_default().contexts.insert(ctx);
                        ret.insert(stream);
                    }
                }
                Effect::DeviceContext(a) => {
                    let target = Target::Obj(ObjKind::Context);
                    let ctx = match self.const_int(call, a) {
                        Some(ordinal) if ordinal < 1 << 16 => self.locs.global(ordinal as u32, target, call.span),
                        _ => self.locs.fresh(f, call.bb, which as u8, target, call.span, None),
                    };
                    self.locs.set_allocated(ctx);
                    ret.insert(ctx);
                }
                Effect::StreamOfContext(a) => {
                    let mut contexts = LocSet::new();
                    for o in self.objects(call, a, state).iter() {
                        match self.locs.kind(o) {
                            LocKind::Object(ObjKind::Context) => {
                                contexts.insert(o);
                            }
                            LocKind::Object(ObjKind::Stream) => {
                                if let Some(attrs) = self.attrs.get(&o) {
                                    contexts.union_with(&attrs.contexts.clone());
                                }
                            }
                            _ => {}
                        }
                    }
                    for s in ret.iter() {
                        self.attrs.entry(s).or_default().contexts.union_with(&contexts);
                    }
                }
                Effect::WaitForSourceOfOtherContext { stream, src } => {
                    let streams = self.streams(call, stream, state);
                    let contexts_of = |this: &Self, streams: &LocSet| -> LocSet {
                        let mut c = LocSet::new();
                        for s in streams.iter() {
                            if let Some(a) = this.attrs.get(&s) {
                                c.union_with(&a.contexts);
                            }
                        }
                        c
                    };
                    let mut src_streams = LocSet::new();
                    for d in self.data_roots(call, src, &ret, state).iter() {
                        if let Some(a) = self.attrs.get(&d) {
                            src_streams.union_with(&a.streams);
                        }
                    }
                    let (mine, theirs) = (contexts_of(self, &streams), contexts_of(self, &src_streams));
                    if !mine.is_empty() && !theirs.is_empty() && !mine.intersects(&theirs) {
                        let earlier = self.ops_on(&src_streams, state);
                        for s in streams.iter() {
                            state.stream_waits.entry(s).or_default().union_with(&earlier);
                        }
                    }
                }
                Effect::StreamOf(a) => {
                    for d in self.data_roots(call, a, &ret, state).iter() {
                        if let Some(attrs) = self.attrs.get(&d) {
                            ret.union_with(&attrs.streams);
                        }
                    }
                }
                Effect::StreamJoin { stream, other } => {
                    let mut waiters = self.objects_with(call, stream, &ret, state);
                    waiters.retain(|l| matches!(self.locs.kind(l), LocKind::Object(ObjKind::Stream)));
                    let others = self.streams(call, other, state);
                    let done = self.ops_on(&others, state);
                    for s in waiters.iter() {
                        state.stream_waits.entry(s).or_default().union_with(&done);
                    }
                }
                Effect::RetInto(a) => {
                    let slots = self.arg(call, a, &LocSet::new());
                    let strong = slots.len() == 1;
                    for slot in slots.iter() {
                        self.store(state, slot, &ret, strong);
                    }
                    ret = LocSet::new();
                }
                // Read before the call's operations are enqueued (see `enqueue_tracked`).
                Effect::TrackedByEvents => {}
                Effect::Context(change) => match change {
                    ContextChange::New => {
                        state.many_streams = Tri::No;
                        state.tracking = Tri::Yes;
                    }
                    ContextChange::MoreStreams => {
                        // cudarc synchronizes the context when its second stream is made
                        // (with tracking on); when that cannot be ruled out, it is assumed.
                        if state.many_streams != Tri::Yes && state.tracking != Tri::No {
                            let all = state.inflight_may.clone();
                            state.finish(&all);
                        }
                        state.many_streams = Tri::Yes;
                    }
                    ContextChange::TrackingOn => state.tracking = Tri::Yes,
                    ContextChange::TrackingOff => state.tracking = Tri::No,
                },
                Effect::SyncMemory(a) => {
                    let data = self.data_arg(call, a, &ret, state);
                    let recorded: OpSet = self
                        .users(state, &data)
                        .iter()
                        .filter(|op| !state.untracked.contains(*op))
                        .collect();
                    state.finish(&recorded);
                }
                Effect::DevicePtrGuard { mem, stream } => {
                    let data = self.data_arg(call, mem, &ret, state);
                    let streams = self.streams(call, stream, state);
                    let guard = self
                        .locs
                        .fresh(f, call.bb, which as u8, Target::Obj(ObjKind::Guard), call.span, None);
                    // cudarc makes the stream wait for the recorded work on the memory first.
                    if state.may_record_events() {
                        self.wait_for_recorded(&data, &streams, state);
                    }
                    let attrs = self.attrs.entry(guard).or_default();
                    attrs.memory.union_with(&data);
                    attrs.streams.union_with(&streams);
                    fields = Some(vec![
                        (Proj::Field(0), data, None),
                        (Proj::Field(1), LocSet::single(guard), None),
                    ]);
                }
                Effect::LaunchBuilder { kernel, stream } => {
                    let kernels = self.objects(call, kernel, state);
                    let streams = self.streams(call, stream, state);
                    let builder = self.locs.fresh(
                        f,
                        call.bb,
                        which as u8,
                        Target::Obj(ObjKind::LaunchBuilder),
                        call.span,
                        None,
                    );
                    let attrs = self.attrs.entry(builder).or_default();
                    attrs.kernels.union_with(&kernels);
                    attrs.streams.union_with(&streams);
                    // A new launch starts with no arguments.
                    self.clear(state, builder);
                    ret.insert(builder);
                }
                Effect::LaunchBuilt(b) => {
                    for builder in self.objects(call, b, state).iter() {
                        let attrs = self.attrs.get(&builder).cloned().unwrap_or_default();
                        let (slots, apart) = self.arg_slots(state, &LocSet::single(builder));
                        // A `UnifiedSlice` argument's event is recorded after every launch.
                        let unified = slots
                            .iter()
                            .flat_map(|s| s.iter())
                            .any(|l| matches!(self.locs.kind(l), LocKind::Data(MemKind::Managed)));
                        self.enqueue_tracked |= unified;
                        self.launch_with(call, &attrs.kernels, attrs.streams, slots, apart, state);
                    }
                }
                Effect::FreeOnStream { mem, stream } => {
                    let data = self.data_arg(call, mem, &ret, state);
                    let streams = self.streams(call, stream, state);
                    self.free_on_streams(f, &data, &streams, false, call.si, state);
                }
                Effect::Work {
                    stream,
                    reads,
                    writes,
                    kernel,
                    fenced,
                } => {
                    let streams = self.objects(call, stream, state);
                    let used = |this: &mut Self, args: &[u8], state: &State| -> Vec<(u8, LocSet)> {
                        args.iter()
                            .map(|&a| {
                                let mut data = this.data_arg(call, a, &LocSet::new(), state);
                                data.retain(|l| this.can_be_in_flight(l, state));
                                (a, data)
                            })
                            .collect()
                    };
                    let read = used(self, reads, state);
                    let written = used(self, writes, state);
                    // One slot per parameter, for the aliasing check.
                    let mut slots: Vec<(u8, LocSet)> = read.clone();
                    for (a, data) in &written {
                        match slots.iter_mut().find(|(b, _)| b == a) {
                            Some((_, slot)) => {
                                slot.union_with(data);
                            }
                            None => slots.push((*a, data.clone())),
                        }
                    }
                    let slots: Vec<LocSet> = slots.into_iter().map(|(_, d)| d).collect();
                    let verdict = match (kernel, fenced) {
                        (_, Some(true)) => None,
                        (Some(name), _) => Some(Kernel::Unfenced { name: name.to_string() }),
                        (None, _) => Some(Kernel::SourceNotVisible { name: None }),
                    };
                    self.alias_in_one_kernel(call, verdict, &slots, true, state);
                    let union = |sets: &[(u8, LocSet)]| {
                        let mut all = LocSet::new();
                        for (_, d) in sets {
                            all.union_with(d);
                        }
                        all
                    };
                    let (r, w) = (union(&read), union(&written));
                    self.enqueue(call, OpKind::Launch, streams, r, w, state);
                }
                Effect::RegisterInPlace(a) => {
                    let data = self.data_roots(call, a, &ret, state);
                    state.registered_may.union_with(&data);
                    state.registered_must.union_with(&data);
                }
                Effect::UnregisterInPlace(a) => {
                    let data = self.data_roots(call, a, &ret, state);
                    self.free(f, &data, FreeKind::Waits, call.si, state);
                    state.registered_may.subtract(&data);
                    state.registered_must.subtract(&data);
                }
            }
        }
        if let Some(fields) = fields {
            return Val::Fields(fields);
        }
        match tree {
            // `opt.unwrap()`, `res.expect(..)`: the payload of the enum becomes the value.
            Some(src) if self.is_enum(src) && !ret_ty.is_enum() => match self.payload(src) {
                Some(payload) => Val::Tree(payload, ret),
                None => Val::Set(ret),
            },
            Some(src) => Val::Tree(src, ret),
            None => Val::Set(ret),
        }
    }

    pub(super) fn is_enum(&self, loc: LocId) -> bool {
        self.locs.get(loc).ty.is_some_and(|t| t.is_enum())
    }

    /// The field of an enum's variant that holds something (`Some(x)`, `Ok(x)`).
    pub(super) fn payload(&self, loc: LocId) -> Option<LocId> {
        self.locs
            .get(loc)
            .children
            .iter()
            .filter(|(p, _)| matches!(p, Proj::Variant(_, 0)))
            .max_by_key(|(_, c)| self.locs.get(*c).children.len())
            .map(|&(_, c)| c)
    }

    /// Whether work that may be in flight uses any of `data`.
    pub(super) fn in_use(&self, state: &State, data: &LocSet) -> bool {
        state.inflight_may.iter().any(|op| {
            let info = &self.ops[op.0 as usize];
            info.reads
                .iter()
                .chain(info.writes.iter())
                .any(|u| data.iter().any(|d| self.locs.overlaps(u, d)))
        })
    }

    /// Drops from `data` the device-only memory not pointed at directly by `values` (reached
    /// through a handle: a pointer to a `CudaSlice` is a pointer to host memory).
    pub(super) fn keep_device_only_if_direct(&self, data: &mut LocSet, values: &LocSet) {
        data.retain(|l| {
            !matches!(self.locs.kind(l), LocKind::Data(k) if k.is_device_only())
                || values.contains(l)
                || values.contains(self.locs.data_root(l))
        });
    }

    /// The streams an argument refers to.
    pub(super) fn streams(&mut self, call: &CallSite<'_, 'tcx>, a: u8, state: &State) -> LocSet {
        let mut s = self.objects(call, a, state);
        s.retain(|l| matches!(self.locs.kind(l), LocKind::Object(ObjKind::Stream)));
        s
    }

    /// Whether asynchronous work can still be using memory at `l` after the call that enqueued
    /// it returned: memory that is not pageable, or pageable memory page-locked in place.
    pub(super) fn can_be_in_flight(&self, l: LocId, state: &State) -> bool {
        match self.locs.kind(l) {
            LocKind::Data(MemKind::Pageable) => state.registered_may.contains(self.locs.data_root(l)),
            LocKind::Data(k) => k.can_be_in_flight(),
            _ => false,
        }
    }

    /// The allocations (data roots) an argument refers to.
    pub(super) fn data_roots(&mut self, call: &CallSite<'_, 'tcx>, a: u8, ret: &LocSet, state: &State) -> LocSet {
        self.data_arg(call, a, ret, state)
            .iter()
            .map(|l| self.locs.data_root(l))
            .collect()
    }

    /// The operations that may be in flight and use any of `data`.
    pub(super) fn users(&self, state: &State, data: &LocSet) -> OpSet {
        state
            .inflight_may
            .iter()
            .filter(|op| {
                let info = &self.ops[op.0 as usize];
                info.reads
                    .iter()
                    .chain(info.writes.iter())
                    .any(|u| data.iter().any(|d| self.locs.overlaps(u, d)))
            })
            .collect()
    }

    /// Makes `streams` wait for the work that recorded events on `data` (what cudarc does
    /// before it hands out a device pointer).
    pub(super) fn wait_for_recorded(&self, data: &LocSet, streams: &LocSet, state: &mut State) {
        let recorded: OpSet = self
            .users(state, data)
            .iter()
            .filter(|op| !state.untracked.contains(*op))
            .collect();
        if recorded.is_empty() {
            return;
        }
        for s in streams.iter() {
            state.stream_waits.entry(s).or_default().union_with(&recorded);
        }
    }

    pub(super) fn arg(&self, call: &CallSite<'_, 'tcx>, a: u8, ret: &LocSet) -> LocSet {
        if a == RET {
            ret.clone()
        } else {
            call.argvals.get(a as usize).cloned().unwrap_or_default()
        }
    }

    /// The memory an argument refers to.
    pub(super) fn data_arg(&mut self, call: &CallSite<'_, 'tcx>, a: u8, ret: &LocSet, state: &State) -> LocSet {
        let v = self.arg(call, a, ret);
        let mut d = self.derive(state, &v);
        d.retain(|l| matches!(self.locs.kind(l), LocKind::Data(_)));
        d
    }

    /// The CUDA objects an argument refers to (streams, events, modules...).
    pub(super) fn objects(&mut self, call: &CallSite<'_, 'tcx>, a: u8, state: &State) -> LocSet {
        self.objects_with(call, a, &LocSet::new(), state)
    }

    /// [`Self::objects`], where `RET` names what the call's effects returned so far.
    pub(super) fn objects_with(&mut self, call: &CallSite<'_, 'tcx>, a: u8, ret: &LocSet, state: &State) -> LocSet {
        let v = self.arg(call, a, ret);
        let mut d = self.derive(state, &v);
        d.retain(|l| {
            matches!(
                self.locs.kind(l),
                LocKind::Object(_) | LocKind::Data(MemKind::VmmMapping)
            )
        });
        d
    }

    /// The constant strings an argument may be; `[None]` when it is not a constant.
    pub(super) fn const_strs(&self, call: &CallSite<'_, 'tcx>, a: u8) -> Vec<Option<String>> {
        let body = self.frames[call.f.0 as usize].body;
        call.args
            .get(a as usize)
            .and_then(|op| const_strs_of(self.tcx, self.typing_env, body, &op.node, 4))
            .map_or_else(|| vec![None], |v| v.into_iter().map(Some).collect())
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn copy(
        &mut self,
        call: &CallSite<'_, 'tcx>,
        dst: u8,
        src: u8,
        dir: Dir,
        stream: u8,
        is_async: bool,
        ret: &LocSet,
        state: &mut State,
    ) {
        let dst_data = self.data_arg(call, dst, ret, state);
        let src_data = self.data_arg(call, src, ret, state);
        let dir = self.concrete_dir(call, dir, &dst_data, &src_data);
        let (host, host_arg) = match dir {
            Dir::HostToDevice => (Some(&src_data), src),
            Dir::DeviceToHost => (Some(&dst_data), dst),
            _ => (None, dst),
        };
        if is_async && let Some(host) = host {
            self.pageable_check(call, host, host_arg, dir, state);
        }
        // The host side of a pageable copy is done when the call returns.
        let in_flight = |this: &Self, set: &LocSet| -> LocSet {
            let mut s = set.clone();
            s.retain(|l| this.can_be_in_flight(l, state));
            s
        };
        let reads = in_flight(self, &src_data);
        let writes = in_flight(self, &dst_data);
        let streams = self.objects(call, stream, state);
        // A copy into pageable memory returns only once it is done (CUDA's documented
        // behaviour, which cudarc's `clone_dtoh` relies on): the stream's earlier work is done too.
        let into_pageable = dir == Dir::DeviceToHost
            && !dst_data.is_empty()
            && dst_data.iter().all(|l| {
                matches!(self.locs.kind(l), LocKind::Data(MemKind::Pageable))
                    && !state.registered_may.contains(self.locs.data_root(l))
            });
        self.enqueue(call, OpKind::Copy, streams.clone(), reads, writes, state);
        if into_pageable {
            self.sync_streams(&streams, state);
        }
    }

    /// The direction of a copy whose kind is an argument or left to unified addressing: from a
    /// constant `cudaMemcpyKind`, else from the kinds of memory the two sides are.
    pub(super) fn concrete_dir(&self, call: &CallSite<'_, 'tcx>, dir: Dir, dst: &LocSet, src: &LocSet) -> Dir {
        let from_kind = match dir {
            Dir::KindArg(a) => match self.const_int(call, a) {
                Some(1) => return Dir::HostToDevice,
                Some(2) => return Dir::DeviceToHost,
                Some(0 | 3) => return Dir::DeviceToDevice,
                _ => true,
            },
            Dir::Infer => true,
            other => return other,
        };
        debug_assert!(from_kind);
        let is_host = |this: &Self, set: &LocSet| {
            set.iter()
                .any(|l| matches!(this.locs.kind(l), LocKind::Data(MemKind::Pageable | MemKind::Pinned)))
        };
        let is_device = |this: &Self, set: &LocSet| {
            set.iter()
                .any(|l| matches!(this.locs.kind(l), LocKind::Data(k) if k.is_device_only()))
        };
        if is_host(self, src) && !is_host(self, dst) && is_device(self, dst) {
            Dir::HostToDevice
        } else if is_host(self, dst) && !is_host(self, src) && is_device(self, src) {
            Dir::DeviceToHost
        } else {
            Dir::Infer
        }
    }

    /// The constant integer an argument is (an enum's discriminant included), if it is one.
    pub(super) fn const_int(&self, call: &CallSite<'_, 'tcx>, a: u8) -> Option<u128> {
        let body = self.frames[call.f.0 as usize].body;
        let op = &call.args.get(a as usize)?.node;
        let values = const_values_of(self.tcx, self.typing_env, body, op, 4, &|tcx, env, c| {
            c.const_.try_eval_scalar_int(tcx, env).map(|i| i.to_bits_unchecked())
        })?;
        match values.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }

    pub(super) fn pageable_check(
        &mut self,
        call: &CallSite<'_, 'tcx>,
        host: &LocSet,
        host_arg: u8,
        dir: Dir,
        state: &State,
    ) {
        if !self.reporting {
            return;
        }
        let mut pageable = Vec::new();
        let mut others = 0;
        for l in host.iter() {
            let root = self.locs.data_root(l);
            match self.locs.kind(l) {
                // Page-locked in place (`cuMemHostRegister`) on every path: pinned; on some
                // paths: pageable on the others.
                LocKind::Data(MemKind::Pageable) if state.registered_must.contains(root) => {}
                LocKind::Data(MemKind::Pageable) => {
                    pageable.push(root);
                    if state.registered_may.contains(root) {
                        others += 1;
                    }
                }
                // Memory of unknown kind may be pinned: the copy is pageable on some paths only.
                _ => others += 1,
            }
        }
        let Some(&first) = pageable.first() else {
            return;
        };
        let some_paths = others > 0;
        let region = self.region(call.f, first, state);
        let host_arg = call.args.get(host_arg as usize).map(|a| a.span);
        self.report(
            call.f,
            call.span,
            call.si,
            FindingKind::PageableAsyncCopy {
                host: region,
                dir,
                host_arg,
                advice: &self.family.advice,
            },
            some_paths,
        );
    }

    pub(super) fn launch(&mut self, call: &CallSite<'_, 'tcx>, kernel: u8, stream: u8, args: u8, state: &mut State) {
        let kernels = self.objects(call, kernel, state);
        let argv = self.arg(call, args, &LocSet::new());
        let (slots, apart) = self.arg_slots(state, &argv);
        let streams = self.objects(call, stream, state);
        self.launch_with(call, &kernels, streams, slots, apart, state);
    }

    /// Launches one of `kernels` on `streams` with arguments reaching `slots` (see
    /// [`Self::arg_slots`]).
    pub(super) fn launch_with(
        &mut self,
        call: &CallSite<'_, 'tcx>,
        kernels: &LocSet,
        streams: LocSet,
        slots: Vec<LocSet>,
        apart: bool,
        state: &mut State,
    ) {
        let mut touched = LocSet::new();
        for slot in &slots {
            touched.union_with(slot);
        }
        touched.retain(|l| self.can_be_in_flight(l, state) || !matches!(self.locs.kind(l), LocKind::Data(_)));
        if self.reporting {
            let verdict = self.kernel_verdict(kernels);
            self.alias_in_one_kernel(call, verdict, &slots, apart, state);
        }
        self.enqueue(call, OpKind::Launch, streams, touched.clone(), touched, state);
    }

    /// The memory each kernel argument reaches, one set per argument when the argument list
    /// is an array literal (`&[&a, &b, &n]`), else one set for all (`false`).
    pub(super) fn arg_slots(&mut self, state: &State, argv: &LocSet) -> (Vec<LocSet>, bool) {
        // By slot number (a position, or a launch builder's `.arg(..)` call site): sparse.
        let mut slots: BTreeMap<u32, LocSet> = BTreeMap::new();
        for list in argv.iter() {
            // A pointer to the first element (`params.as_mut_ptr()`): the array it points into.
            let list = match self.locs.get(list).parent {
                Some((array, Proj::Index))
                    if self
                        .locs
                        .get(array)
                        .children
                        .iter()
                        .any(|(p, _)| matches!(p, Proj::Field(_))) =>
                {
                    array
                }
                _ => list,
            };
            let fields: Vec<(u32, LocId)> = self
                .locs
                .get(list)
                .children
                .iter()
                .filter_map(|&(p, c)| match p {
                    Proj::Field(i) => Some((i, c)),
                    _ => None,
                })
                .collect();
            for (i, child) in fields {
                let values = self.read_value(state, child);
                let reached = self.reach_args(state, &values);
                slots.entry(i).or_default().union_with(&reached);
            }
        }
        if slots.is_empty() {
            (vec![self.reach_args(state, argv)], false)
        } else {
            (slots.into_values().collect(), true)
        }
    }

    /// Enqueues an operation: checks it against unordered work on other streams, then starts it.
    pub(super) fn enqueue(
        &mut self,
        call: &CallSite<'_, 'tcx>,
        kind: OpKind,
        streams: LocSet,
        reads: LocSet,
        writes: LocSet,
        state: &mut State,
    ) {
        let f = call.f;
        let id = *self.op_index.entry((f, call.bb)).or_insert_with(|| {
            let id = OpId(self.ops.len() as u32);
            self.ops.push(OpInfo {
                kind,
                frame: f,
                span: call.span,
                streams: LocSet::new(),
                reads: LocSet::new(),
                writes: LocSet::new(),
                advice: &self.family.advice,
                unrecorded_by_cudarc: false,
            });
            id
        });
        {
            let op = &mut self.ops[id.0 as usize];
            op.streams.union_with(&streams);
            op.reads.union_with(&reads);
            op.writes.union_with(&writes);
        }
        let mut tracked = std::mem::take(&mut self.enqueue_tracked);
        if tracked {
            tracked = !reads
                .iter()
                .chain(writes.iter())
                .any(|l| self.attrs.get(&self.locs.data_root(l)).is_some_and(|a| a.no_events));
        }
        let would_track = std::mem::take(&mut self.enqueue_would_track);
        self.ops[id.0 as usize].unrecorded_by_cudarc |= would_track && !tracked;
        if tracked {
            let mut used = reads;
            used.union_with(&writes);
            self.wait_for_recorded(&used, &streams, state);
        }
        if self.reporting {
            self.cross_stream_checks(call, id, state);
        }
        state.start(id);
        if tracked {
            state.untracked.subtract(&OpSet::single(id));
        }
    }

    /// Operations that may run on `streams`, or that those streams wait for.
    pub(super) fn ops_on(&self, streams: &LocSet, state: &State) -> OpSet {
        let mut out = OpSet::new();
        for op in state.inflight_may.iter() {
            if self.ops[op.0 as usize].streams.intersects(streams) {
                out.insert(op);
            }
        }
        for s in streams.iter() {
            if let Some(w) = state.stream_waits.get(&s) {
                out.union_with(w);
            }
        }
        out
    }

    /// Waits for the work on `streams`; a stream the analysis cannot name (a handle from
    /// elsewhere) may be any, so waiting on it counts as waiting for everything.
    pub(super) fn sync_streams(&self, streams: &LocSet, state: &mut State) {
        let done = if streams.is_empty() {
            state.inflight_may.clone()
        } else {
            self.ops_on(streams, state)
        };
        state.finish(&done);
    }

    /// Whether operation `earlier` is ordered before new work on `streams`.
    pub(super) fn ordered_before(&self, earlier: OpId, streams: &LocSet, state: &State) -> bool {
        let op = &self.ops[earlier.0 as usize];
        op.streams.is_empty()
            || streams.is_empty()
            || op.streams.intersects(streams)
            || streams
                .iter()
                .any(|s| state.stream_waits.get(&s).is_some_and(|w| w.contains(earlier)))
    }

    pub(super) fn drop_place(&mut self, f: FrameId, place: Place<'tcx>, si: SourceInfo, state: &mut State) {
        let body = self.frames[f.0 as usize].body;
        let ty = self.instantiate(f, place.ty(&body.local_decls, self.tcx).ty);
        let locs = self.place(f, place, state);
        let mut vals = LocSet::new();
        for l in locs.iter() {
            vals.union_with(&self.read_value(state, l));
        }
        if self.rs.role(ty).is_some() {
            self.drop_value(f, ty, &vals, si, state);
            return;
        }
        // Drop glue drops the fields (of a struct, or of a tuple: `let (ptr, _) = ..` drops
        // the guard it does not bind at once).
        let fields: Vec<Ty<'tcx>> = match ty.kind() {
            ty::Adt(def, args) if def.is_struct() => def
                .non_enum_variant()
                .fields
                .iter()
                .map(|field| field.ty(self.tcx, args).skip_normalization())
                .collect(),
            ty::Tuple(tys) => tys.iter().collect(),
            _ => Vec::new(),
        };
        {
            for (i, fty) in fields.into_iter().enumerate() {
                if self.rs.role(fty).is_some() {
                    let mut fvals = LocSet::new();
                    for l in locs.iter() {
                        let child = self.locs.child(l, Proj::Field(i as u32));
                        fvals.union_with(&self.read_value(state, child));
                    }
                    self.drop_value(f, fty, &fvals, si, state);
                }
            }
        }
    }

    /// Drops a handle of type `ty` whose value is `vals` (the memory it owns).
    pub(super) fn drop_value(&mut self, f: FrameId, ty: Ty<'tcx>, vals: &LocSet, si: SourceInfo, state: &mut State) {
        match self.rs.role(ty) {
            Some(Target::Mem(_)) => {}
            Some(Target::Obj(ObjKind::Guard)) => return self.guard_dropped(vals, state),
            _ => return,
        }
        let mut data = vals.clone();
        data.retain(|l| matches!(self.locs.kind(l), LocKind::Data(_)));
        if let Some(kind) = self.rs.drop_kind(ty) {
            self.free(f, &data, kind, si, state);
        }
    }

    /// Frees memory: one that waits lets the work using it finish first; one that does not
    /// races with that work.
    pub(super) fn free(&mut self, f: FrameId, data: &LocSet, kind: FreeKind, si: SourceInfo, state: &mut State) {
        match kind {
            FreeKind::Immediate => self.conflicts(f, data, Access::Free, si, state),
            FreeKind::Waits => {
                let users = self.users(state, data);
                state.finish(&users);
            }
            FreeKind::StreamOrdered => {
                // Each allocation is freed in the order of the stream it was allocated on.
                for d in data.iter() {
                    let root = self.locs.data_root(d);
                    let streams = self.attrs.get(&root).map(|a| a.streams.clone()).unwrap_or_default();
                    self.free_on_streams(f, &LocSet::single(d), &streams, true, si, state);
                }
            }
        }
    }

    /// Frees `data` in the order of `streams`: work on another stream that is not ordered
    /// before the free (and, with `only_untracked`, that recorded no event the free waits
    /// for) may still be using it. Unknown streams order everything.
    pub(super) fn free_on_streams(
        &mut self,
        f: FrameId,
        data: &LocSet,
        streams: &LocSet,
        only_untracked: bool,
        si: SourceInfo,
        state: &mut State,
    ) {
        if !self.reporting || streams.is_empty() {
            return;
        }
        for op in self.users(state, data).iter() {
            if (only_untracked && !state.untracked.contains(op)) || self.ordered_before(op, streams, state) {
                continue;
            }
            let info = &self.ops[op.0 as usize];
            let Some(l) = data.iter().find(|d| {
                info.reads
                    .iter()
                    .chain(info.writes.iter())
                    .any(|u| self.locs.overlaps(u, *d))
            }) else {
                continue;
            };
            self.report_missing_sync(f, si, Access::Free, l, op, state);
            return;
        }
    }

    /// A guard of cudarc's `device_ptr` dropped: it records the work enqueued on its stream
    /// with its memory so far, which later cudarc calls wait for (while the context manages
    /// stream synchronization).
    pub(super) fn guard_dropped(&mut self, vals: &LocSet, state: &mut State) {
        if !state.may_record_events() {
            return;
        }
        for guard in vals.iter() {
            let Some(attrs) = self.attrs.get(&guard).cloned() else {
                continue;
            };
            let recorded: OpSet = self
                .users(state, &attrs.memory)
                .iter()
                .filter(|op| self.ops[op.0 as usize].streams.intersects(&attrs.streams))
                .collect();
            state.untracked.subtract(&recorded);
        }
    }
}
