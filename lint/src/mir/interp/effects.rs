//! What the API tables' effects do to the abstract state: allocations, copies, launches,
//! synchronizations, events, frees and drops.

use super::calls::is_zip;
use super::local_facts::{
    const_offset_in_body, copied_place, field_surely_null, names_whole_owner, null_in_body, surely_null_in_body,
};
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
        // its context manages stream synchronization: its model decides for the call's work.
        self.call_tracking = effects
            .contains(&Effect::Cudarc(CudarcEffect::TrackedByEvents))
            .then(|| cudarc::call_starts(&state.m));
        self.copy_covers_whole = effects.iter().find_map(|e| match *e {
            Effect::CoversWhole(a) => Some(a),
            _ => None,
        });
        // How many bytes a copy or memset covers, where its count is a constant.
        self.copy_count = effects
            .iter()
            .find_map(|e| match *e {
                Effect::Covers { count, unit } if self.reporting => Some((count, unit)),
                _ => None,
            })
            .and_then(|(count, unit)| self.const_u64(call, count)?.checked_mul(u64::from(unit)));
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
                    self.renew(call, target, new, state);
                    ret.insert(new);
                }
                Effect::Derive(a) => {
                    let v = self.arg(call, a, &ret);
                    let derived = self.derive(state, &v);
                    ret.union_with(&self.narrow(state, &derived, ret_ty));
                }
                Effect::SharedClone(a) => {
                    let handles = self.arg(call, a, &ret);
                    let known: Vec<LocSet> = handles
                        .iter()
                        .map(|h| state.values.get(&h).cloned().unwrap_or_default())
                        .collect();
                    if !handles.is_empty() && known.iter().all(|v| !v.is_empty()) {
                        for v in known {
                            ret.union_with(&v);
                        }
                    } else {
                        ret.union_with(&handles);
                    }
                }
                Effect::SomeOf(a) => {
                    let vals = self.arg(call, a, &ret);
                    let src = call
                        .args
                        .get(a as usize)
                        .and_then(|op| self.arg_place_loc(f, &op.node, state));
                    return Val::Fields(vec![(Proj::Variant(1, 0), vals, src)]);
                }
                Effect::OkOfSome(a) => {
                    if let Some(opt) = call
                        .args
                        .get(a as usize)
                        .and_then(|op| self.arg_place_loc(f, &op.node, state))
                    {
                        let payload = self.locs.child(opt, Proj::Variant(1, 0));
                        let vals = self.read_value(state, payload);
                        return Val::Fields(vec![(Proj::Variant(0, 0), vals, Some(payload))]);
                    }
                }
                Effect::Parts(a) => {
                    // One location stands for every part: an element of the memory.
                    let v = self.arg(call, a, &ret);
                    let derived = self.derive(state, &v);
                    for d in derived.iter() {
                        ret.insert(self.locs.child(d, Proj::Index));
                    }
                }
                Effect::HostView { arg, write } => {
                    let v = self.arg(call, arg, &ret);
                    let data = self.derive(state, &v);
                    self.host_view(f, &data, write, false, call.si, state);
                    ret.union_with(&data);
                }
                Effect::HostAccess { arg, write } => {
                    let v = self.arg(call, arg, &ret);
                    let data = self.derive(state, &v);
                    let access = if write { Access::Write } else { Access::Read };
                    self.host_access(f, &data, access, call.si, state);
                }
                Effect::UsedByLibrary { arg, write, call: name } => {
                    let v = self.arg(call, arg, &ret);
                    let data = self.derive(state, &v);
                    self.library_access(call, &data, write, name, state);
                }
                Effect::StartsRequest {
                    reads,
                    writes,
                    request,
                    call: name,
                } => {
                    let mut used = [LocSet::new(), LocSet::new()];
                    for (i, a) in [reads, writes].into_iter().enumerate() {
                        if let Some(a) = a {
                            let v = self.arg(call, a, &ret);
                            used[i] = self.derive(state, &v);
                            self.library_access(call, &used[i], i == 1, name, state);
                        }
                    }
                    let requests = self.new_request(call, request, &ret, state);
                    self.start_request(call, &requests, &used[0], &used[1], state);
                }
                // Over an array's requests, a wait over a collection: a path that skipped it
                // (`if reqs.is_empty() { return; }`) is one where the array held none.
                Effect::CompletesRequests { arg, array } => {
                    let requests = self.requests_held(call, arg, &ret, state);
                    let over_collection = array && self.body_tests_emptiness(call.f);
                    self.complete_requests(&requests, over_collection, state);
                }
                // A test polled in a loop until it says done (`while done == 0 { MPI_Test(..) }`)
                // completes the request; called once, nothing.
                Effect::TestsRequests(a) => {
                    if self.in_a_loop_here(call.f, call.bb) {
                        let requests = self.requests_held(call, a, &ret, state);
                        self.complete_requests(&requests, true, state);
                    }
                }
                Effect::Push { vec, value } => {
                    // The value becomes an element (of a `Vec`, or an argument of a launch
                    // being built): what it refers to, the element refers to.
                    let vals = self.arg(call, value, &ret);
                    // A struct pushed keeps its fields apart in the element (`slots.push(Slot {
                    // host, dev, event })`: `slots[i].host` is the host buffer, not all three).
                    let pushed = call
                        .args
                        .get(value as usize)
                        .and_then(|a| self.arg_place_loc(f, &a.node, state));
                    let collections = self.data_arg(call, vec, &ret, state);
                    self.forget_sizes(&collections);
                    // Pushed into a collection the analysis does not follow: the collection
                    // holds the memory now (it is not lost where the value's variable ends).
                    if collections.is_empty() && self.objects(call, vec, state).is_empty() {
                        let mut given = self.reach(state, &vals, 2);
                        if let Some(src) = pushed {
                            let fields: Vec<LocId> = self.locs.get(src).children.iter().map(|&(_, c)| c).collect();
                            for c in fields {
                                let held = self.read_value(state, c);
                                given.union_with(&held);
                            }
                        }
                        let roots: LocSet = given.iter().map(|l| self.locs.data_root(l)).collect();
                        self.machine.owner_adopts(&mut state.m, &roots);
                    }
                    for collection in collections.iter() {
                        let element = self.locs.child(collection, Proj::Index);
                        state.values.entry(element).or_default().union_with(&vals);
                        if let Some(src) = pushed {
                            self.copy_tree_into(state, src, element, 3, true);
                        }
                        self.note_elements(state, element);
                    }
                    // A launch's arguments stay apart, one slot per `.arg(..)` call.
                    let builders = self.objects(call, vec, state);
                    if !builders.is_empty() {
                        // cudarc records events for its own types only, not raw pointers.
                        let raw = !self.arg_is_handle(call, value);
                        let reached = self.reach_args(state, &vals);
                        // What a table of device pointers points to is reached by raw pointers.
                        let tabled = self.through_device_tables(state, &reached);
                        for builder in builders.iter() {
                            let attrs = self.attrs.entry(builder).or_default();
                            if raw {
                                attrs.raw_arg_memory.union_with(&reached);
                            } else {
                                attrs.handle_arg_memory.union_with(&reached);
                            }
                            attrs.raw_arg_memory.union_with(&tabled);
                        }
                    }
                    for builder in builders.iter() {
                        let slot = self.locs.child(builder, Proj::Field(call.bb.as_u32()));
                        state.values.entry(slot).or_default().union_with(&vals);
                    }
                    // `builder.arg(&x)` returns the builder, for the next `.arg(..)`.
                    if ret_ty.is_ref() {
                        ret.union_with(&self.arg(call, vec, &ret));
                    }
                }
                Effect::Contents(a) => {
                    // `next()` of a `zip`: `Some((a, b))`, each side from its own iterator.
                    if let Some(zip) = single(&self.arg(call, a, &ret))
                        && self.locs.get(zip).ty.is_some_and(|t| is_zip(self.tcx, t))
                    {
                        // Each side yields its own items: `zip(&vec)` an element of the `Vec`,
                        // not the `Vec` (as `next()` of the side alone would, by `narrow`).
                        if let Some(items) = option_tuple_tys(ret_ty) {
                            let mut yielded = LocSet::new();
                            self.narrow_zip_sides(zip, items, state, 3, &mut yielded);
                            self.next_items(call, &yielded, state);
                        }
                        let both = self.read_value(state, zip);
                        return Val::Fields(vec![(Proj::Variant(1, 0), both, Some(zip))]);
                    }
                    let mut contents = LocSet::new();
                    for l in self.arg(call, a, &ret).iter() {
                        contents.union_with(&self.read_value(state, l));
                    }
                    let items = self.narrow_item(state, &contents, ret_ty);
                    self.next_items(call, &items, state);
                    // An owned item (`for slot in slots.drain(..)`): the element itself, moved
                    // out with its fields, not a reference to it.
                    // A raw pointer item is owned when the elements are raw pointers
                    // (`Vec<*mut c_void>::drain`), a pointer into the element otherwise.
                    let item_ty = peel_result(ret_ty);
                    let owned = |element: LocId| match item_ty.kind() {
                        ty::Ref(..) => false,
                        ty::RawPtr(..) => self.locs.get(element).ty == Some(item_ty),
                        _ => true,
                    };
                    if let Some(element) = single(&items)
                        && owned(element)
                        && matches!(self.locs.get(element).parent, Some((_, Proj::Index)))
                        && !matches!(self.locs.kind(element), LocKind::Handle(_))
                    {
                        let held = self.read_value(state, element);
                        return Val::Fields(vec![(Proj::Variant(1, 0), held, Some(element))]);
                    }
                    ret.union_with(&items);
                }
                Effect::Elements(a) => {
                    let handle = peel_result(ret_ty);
                    if let Some(Target::Mem(kind)) = self.rs.role(handle) {
                        let ty = self.locs.target_ty(handle);
                        let new = self
                            .locs
                            .fresh(f, call.bb, which as u8, Target::Mem(kind), call.span, ty);
                        self.locs.set_allocated(new);
                        // The elements of `vec![..]` (a boxed array made a `Vec`): what the
                        // array held (device pointers, the addresses of a launch's arguments).
                        let mut from = self.data_arg(call, a, &ret, state);
                        from.union_with(&self.arg(call, a, &ret));
                        let stored = self.stored_values(&from, state);
                        if !stored.is_empty() {
                            let element = self.locs.child(new, Proj::Index);
                            if !matches!(self.locs.kind(element), LocKind::Handle(_)) {
                                state.values.entry(element).or_default().union_with(&stored);
                            }
                        }
                        // The array literal's elements by position too (`vec![&mut a as *mut
                        // _, ..]` as a launch's argument list: one slot per argument).
                        for array in self.arrays_within(&from) {
                            self.copy_tree_into(state, array, new, 2, true);
                        }
                        ret.insert(new);
                    }
                }
                Effect::Element(a) => {
                    // What was pushed, where this body saw it; otherwise an element made
                    // elsewhere (a parameter's queue): a handle of its type, or unknown memory.
                    let mut elements = LocSet::new();
                    let mut unseen = false;
                    let collections = self.data_arg(call, a, &ret, state);
                    for collection in collections.iter() {
                        let element = self.locs.child(collection, Proj::Index);
                        match state.values.get(&element) {
                            Some(stored) => {
                                elements.union_with(stored);
                            }
                            None => unseen = true,
                        }
                    }
                    // A struct pushed whole (`free.push(slot)`) comes back whole, fields
                    // included: `free.pop()` gives back the slot, not an unknown one.
                    if let Some(collection) = single(&collections) {
                        let element = self.locs.child(collection, Proj::Index);
                        if self.holds_stored_parts(state, element, 3) {
                            let element_ty = self.locs.get(element).ty;
                            if element_ty == Some(ret_ty) {
                                tree = Some(element);
                            } else if let ty::Adt(option, args) = ret_ty.kind()
                                && self.rs.tcx.is_diagnostic_item(rustc_span::sym::Option, option.did())
                                && args.types().next() == element_ty
                            {
                                let holder = self.locs.fresh_plain(f, call.bb, which as u8 | 0x80, call.span, ret_ty);
                                let payload = self.locs.child(holder, Proj::Variant(1, 0));
                                self.copy_tree(state, element, payload, 3);
                                tree = Some(holder);
                            }
                        }
                    }
                    let handle = peel_result(ret_ty);
                    if unseen && let Some(Target::Mem(kind)) = self.rs.role(handle) {
                        let ty = self.locs.target_ty(handle);
                        let taken = self
                            .locs
                            .fresh(f, call.bb, which as u8, Target::Mem(kind), call.span, ty);
                        // Taken out, an element is no longer there: the same call run again
                        // (a loop) takes another one, which work started before did not use.
                        self.renew(call, Target::Mem(kind), taken, state);
                        elements.insert(taken);
                    }
                    ret.union_with(&self.narrow(state, &elements, ret_ty));
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
                Effect::Memset {
                    dst: dst_arg,
                    stream,
                    is_async,
                } => {
                    let dst = self.data_arg(call, dst_arg, &ret, state);
                    self.deref_event(call, dst_arg, &dst, DerefRole::MemsetDestination, state);
                    let streams = self.objects(call, stream, state);
                    self.enqueue(call, OpKind::Memset, streams, LocSet::new(), dst, state);
                    if !is_async && let Some(&id) = self.op_index.get(&(call.f, call.bb)) {
                        self.machine.set_blocking(id);
                    }
                }
                Effect::Launch { kernel, stream, args } => self.launch(call, kernel, stream, args, state),
                Effect::BatchCopy { dsts, srcs, attrs } => self.batch_copy(call, dsts, srcs, attrs, state),
                Effect::SyncStream(a) => {
                    let streams = self.objects(call, a, state);
                    let streams = self.with_possible_aliases(streams, state);
                    if self.waits_over_collection(call, &streams) {
                        let many = self.streams_standing_for_many(state);
                        let over = self
                            .machine
                            .sync_streams_over_collection(&mut state.m, &streams, |s| many.contains(s));
                        self.record_wait_loop(call, &over);
                    } else if !streams.is_empty() && self.in_loop_over_nonempty_array(call) {
                        // `for s in [&a, &b] { s.synchronize()? }`: the loop runs, so the path
                        // that skips it is not one a program takes.
                        let over = self
                            .machine
                            .sync_streams_over_collection(&mut state.m, &streams, |_| true);
                        self.record_wait_loop(call, &over);
                    } else {
                        self.machine.sync_streams(&mut state.m, &streams);
                    }
                }
                Effect::QueryStream(a) => {
                    let streams = self.objects(call, a, state);
                    let streams = self.with_possible_aliases(streams, state);
                    self.machine.sync_streams(&mut state.m, &streams);
                }
                Effect::SyncEvent(a) => {
                    let events = self.objects(call, a, state);
                    if self.waits_over_collection(call, &events) {
                        let many = self.streams_standing_for_many(state);
                        let over = self
                            .machine
                            .sync_events_over_collection(&mut state.m, &events, |s| many.contains(s));
                        self.record_wait_loop(call, &over);
                    } else {
                        self.machine.sync_events(&mut state.m, &events);
                    }
                }
                Effect::QueryEvent(a) => {
                    let events = self.objects(call, a, state);
                    self.machine.sync_events(&mut state.m, &events);
                }
                Effect::WriteCombined(when) => {
                    let combined = match when {
                        crate::api::WriteCombined::Always => true,
                        crate::api::WriteCombined::FlagBit { flags, bit } => {
                            self.const_int(call, flags).is_some_and(|v| v & u128::from(bit) != 0)
                        }
                        crate::api::WriteCombined::BoolField { arg, field } => {
                            self.const_struct_field(call, arg, field) == Some(1)
                        }
                    };
                    if combined {
                        for new in ret.iter().chain(last_new) {
                            let root = self.locs.data_root(new);
                            self.attrs.entry(root).or_default().write_combined = true;
                        }
                    }
                }
                Effect::Attach(how) => {
                    // Flags not known as constants: attached to all (what CUDA does by default).
                    let mut single_streams = LocSet::new();
                    if let crate::api::Attach::Mem { flags, stream, .. } = how
                        && self.const_int(call, flags) == Some(crate::api::ATTACH_SINGLE)
                    {
                        single_streams = self.objects(call, stream, state);
                    }
                    let (memory, attached) = match how {
                        crate::api::Attach::NewByFlags { flags } => (
                            ret.iter().chain(last_new).collect::<Vec<_>>(),
                            self.const_int(call, flags)
                                .is_some_and(|v| v != crate::api::ATTACH_GLOBAL),
                        ),
                        crate::api::Attach::NewGlobalIf { global } => (
                            ret.iter().chain(last_new).collect(),
                            self.const_int(call, global) == Some(0),
                        ),
                        crate::api::Attach::Mem { mem, flags, .. } => (
                            self.data_arg(call, mem, &ret, state).iter().collect(),
                            self.const_int(call, flags)
                                .is_some_and(|v| v != crate::api::ATTACH_GLOBAL),
                        ),
                    };
                    for l in memory {
                        let root = self.locs.data_root(l);
                        let attrs = self.attrs.entry(root).or_default();
                        attrs.attached = attached;
                        attrs.attached_streams = single_streams.clone();
                    }
                }
                Effect::Spawn(a) => {
                    // The handle holds the closure's result as it is (an `Ok(..)` included).
                    if let Some(Val::Tree(ret_loc, vals)) = self.run_closure_arg(call, a, state) {
                        return Val::Tree(ret_loc, vals);
                    }
                }
                Effect::SomeRef(a) => {
                    let payloads: LocSet = self
                        .arg(call, a, &ret)
                        .iter()
                        .map(|slot| self.locs.child(slot, Proj::Variant(1, 0)))
                        .collect();
                    if !payloads.is_empty() {
                        return Val::Fields(vec![(Proj::Variant(1, 0), payloads, None)]);
                    }
                }
                Effect::SplitAt(a) => {
                    let data = self.arg(call, a, &ret);
                    let part = |this: &mut Self, i: u8| -> LocSet {
                        data.iter().map(|d| this.locs.child(d, Proj::Part(i))).collect()
                    };
                    let (lo, hi) = (part(self, 0), part(self, 1));
                    return Val::Fields(vec![(Proj::Field(0), lo, None), (Proj::Field(1), hi, None)]);
                }
                Effect::ReadOwnedItems(a) => {
                    // `Option<&T>` items: references, nothing read until they are used.
                    let item_is_ref = match ret_ty.kind() {
                        ty::Adt(_, args) => args.types().next().is_some_and(|t| {
                            t.is_ref() || matches!(t.kind(), ty::Tuple(ts) if ts.iter().all(|t| t.is_ref()))
                        }),
                        _ => false,
                    };
                    if !item_is_ref {
                        let v = self.arg(call, a, &ret);
                        let mut data = self.reach(state, &v, 2);
                        self.keep_device_only_if_direct(&mut data, &v);
                        self.host_access(f, &data, Access::Read, call.si, state);
                    }
                }
                Effect::Zip => {
                    let side = |this: &mut Self, i: usize| {
                        let src = call.args.get(i).and_then(|a| this.arg_place_loc(f, &a.node, state));
                        (
                            Proj::Field(i as u32),
                            call.argvals.get(i).cloned().unwrap_or_default(),
                            src,
                        )
                    };
                    // `enumerate()`: the count is field 0 and holds no memory.
                    let sides = if call.args.len() == 1 {
                        let (_, vals, src) = side(self, 0);
                        vec![(Proj::Field(1), vals, src)]
                    } else {
                        vec![side(self, 0), side(self, 1)]
                    };
                    return Val::Fields(sides);
                }
                Effect::Join(a) => {
                    if let Some(handle) = call
                        .args
                        .get(a as usize)
                        .and_then(|h| self.arg_place_loc(f, &h.node, state))
                    {
                        let held = self.read_value(state, handle);
                        return Val::Fields(vec![(Proj::Variant(0, 0), held, Some(handle))]);
                    }
                }
                Effect::AllocatedBy(by) => {
                    for new in ret.iter().chain(last_new) {
                        let root = self.locs.data_root(new);
                        self.attrs.entry(root).or_default().allocator = Some(by);
                        // A C function's memory is the program's to release and starts as the
                        // allocator leaves it; a Rust owner's (cudarc's slices, this project's
                        // buffers) is released when it is dropped, its contents as the table
                        // says (`Effect::Uninitialized`).
                        if let LocKind::Data(kind) = self.locs.kind(root) {
                            let raw = self.calls_c_function(call);
                            self.machine.allocated(
                                &mut state.m,
                                root,
                                raw && by.leaves_uninitialized(kind),
                                raw && by.owned_by_program(),
                            );
                            // Where the code tests the call's status, nothing was made on
                            // the branch where it failed (see `map_status`).
                            self.mapped_by_call.get_or_insert_default().insert(root);
                        }
                    }
                }
                Effect::Uninitialized => {
                    for new in ret.iter().chain(last_new) {
                        let root = self.locs.data_root(new);
                        self.machine.allocated(&mut state.m, root, true, false);
                    }
                }
                Effect::Holds { bytes, times } => {
                    let size = self.const_u64(call, bytes).and_then(|b| match times {
                        Some(t) => b.checked_mul(self.const_u64(call, t)?),
                        None => Some(b),
                    });
                    for new in ret.iter().chain(last_new) {
                        self.record_size(self.locs.data_root(new), size);
                    }
                }
                Effect::Covers { .. } | Effect::CoversWhole(_) => {}
                Effect::GivesUp(a) => {
                    // Only memory the owner allocated here becomes the program's to release (not
                    // a pointer it was given, `upgrade_device_ptr(va)` of a VMM mapping).
                    let data = self.data_arg(call, a, &ret, state);
                    let roots: LocSet = data
                        .iter()
                        .map(|l| self.locs.data_root(l))
                        .filter(|&r| {
                            matches!(self.locs.get(r).root, Root::Fresh { .. })
                                && matches!(
                                    self.locs.kind(r),
                                    LocKind::Data(MemKind::Device | MemKind::Managed | MemKind::Pinned)
                                )
                        })
                        .collect();
                    self.machine.ownership_taken(&mut state.m, &roots);
                }
                Effect::Adopts(a) => {
                    let data = self.data_arg(call, a, &ret, state);
                    let roots: LocSet = data.iter().map(|l| self.locs.data_root(l)).collect();
                    self.machine.owner_adopts(&mut state.m, &roots);
                }
                Effect::HoldsElements { count } => {
                    let elem = match peel_result(ret_ty).kind() {
                        ty::Adt(_, args) => args.types().next(),
                        _ => None,
                    };
                    let size = elem
                        .and_then(|t| self.tcx.layout_of(self.typing_env.as_query_input(t)).ok())
                        .map(|l| l.size.bytes())
                        .zip(self.const_u64(call, count))
                        .and_then(|(s, n)| s.checked_mul(n));
                    for new in ret.iter() {
                        self.record_size(self.locs.data_root(new), size);
                    }
                }
                Effect::FreedBy { mem, by } => {
                    let data = self.data_arg(call, mem, &ret, state);
                    self.emit(f, call.span, call.si, Event::Dealloc { regions: &data, by }, state);
                }
                Effect::SyncContext => self.machine.sync_all(&mut state.m),
                Effect::SyncContextOf(a) => {
                    let mut contexts = self.objects(call, a, state);
                    contexts.retain(|c| self.locs.kind(c) == LocKind::Object(ObjKind::Context));
                    // The streams of that context (or of a context not known) in use.
                    let mut streams = LocSet::new();
                    let mut anywhere = contexts.is_empty();
                    for op in state.m.inflight_may.iter() {
                        let on = &self.machine.op(op).streams;
                        anywhere |= on.is_empty();
                        for s in on.iter() {
                            let of = self.attrs.get(&s).map(|a| &a.contexts);
                            if of.is_none_or(|c| c.is_empty() || c.intersects(&contexts)) {
                                streams.insert(s);
                            }
                        }
                    }
                    if anywhere {
                        self.machine.sync_all(&mut state.m);
                    } else if !streams.is_empty() {
                        self.machine.sync_streams(&mut state.m, &streams);
                    }
                }
                Effect::RecordEvent { event, stream } => {
                    let events = self.objects_with(call, event, &ret, state);
                    let streams = self.objects(call, stream, state);
                    // An event recorded in a capture belongs to the graph; a stream that waits
                    // for it joins the capture.
                    if !streams.is_empty() && streams.iter().all(|s| state.capturing.contains(s)) {
                        state.capturing.union_with(&events);
                        continue;
                    }
                    self.machine.record_events(&mut state.m, &events, &streams);
                }
                Effect::StreamWaitEvent { stream, event } => {
                    let events = self.objects(call, event, state);
                    let streams = self.objects(call, stream, state);
                    if !events.is_empty() && events.iter().all(|e| state.capturing.contains(e)) {
                        state.capturing.union_with(&streams);
                        continue;
                    }
                    self.machine.wait_events(&mut state.m, &streams, &events);
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
                Effect::HandOff(a) => {
                    // The receiver can order its read after the work only through something
                    // the value carries (`(buffer, event)`): without one, the hand-off is the
                    // last point this thread orders anything, and it reads for the receiver.
                    let vals = self.arg(call, a, &ret);
                    let mut reached = self.reach(state, &vals, 2);
                    let carries_wait = vals.iter().chain(reached.iter()).any(|l| {
                        matches!(
                            self.locs.kind(l),
                            LocKind::Object(ObjKind::Event | ObjKind::Stream)
                                | LocKind::Handle(Target::Obj(ObjKind::Event | ObjKind::Stream))
                        )
                    });
                    if !carries_wait {
                        reached.retain(|l| !matches!(self.locs.kind(l), LocKind::Data(k) if k.is_device_only()));
                        self.host_access(f, &reached, Access::Read, call.si, state);
                    }
                }
                Effect::DropArg(a) => {
                    if let Some(arg) = call.args.get(a as usize) {
                        let body = self.frames[f.0 as usize].body;
                        let ty = self.instantiate(f, arg.node.ty(&body.local_decls, self.tcx));
                        // `drop(x)` of a place: dropped where it lies (its fields, a `Drop` impl
                        // of the crate); of a computed value: the memory it holds.
                        match self.arg_place_loc(f, &arg.node, state) {
                            Some(loc) => self.drop_at(f, call.bb, ty, &LocSet::single(loc), call.si, state, 0),
                            None => {
                                let vals = call.argvals[a as usize].clone();
                                self.drop_value(f, ty, &vals, call.si, state);
                            }
                        }
                    }
                }
                Effect::DropElements(a) => {
                    if let Some(arg) = call.args.get(a as usize) {
                        let body = self.frames[f.0 as usize].body;
                        let ty = self.instantiate(f, arg.node.ty(&body.local_decls, self.tcx));
                        // The elements go (the values of a map); the collection keeps its
                        // own buffer.
                        if let ty::Ref(_, collection_ty, _) = *ty.kind()
                            && let ty::Adt(adt, args) = collection_ty.kind()
                        {
                            let is_map = matches!(self.tcx.item_name(adt.did()).as_str(), "HashMap" | "BTreeMap");
                            let element_ty = if is_map {
                                args.types().nth(1)
                            } else {
                                args.types().next()
                            };
                            if let Some(element_ty) = element_ty {
                                // Where `push`/`insert` put them (see `Effect::Push`).
                                let elements: LocSet = self
                                    .data_arg(call, a, &ret, state)
                                    .iter()
                                    .map(|collection| self.locs.child(collection, Proj::Index))
                                    .collect();
                                self.drop_at(f, call.bb, element_ty, &elements, call.si, state, 0);
                            }
                        }
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
                Effect::Replace { dst, value, some } => {
                    // The old value comes out whole; the new one is stored once the result is
                    // (see `Interp::pending_store`).
                    if let Some(slot) = single(&self.arg(call, dst, &ret)) {
                        let old = self.read_value(state, slot);
                        tree = Some(slot);
                        ret.union_with(&old);
                        let stored = value.map(|v| {
                            let src = call
                                .args
                                .get(v as usize)
                                .and_then(|a| self.arg_place_loc(f, &a.node, state));
                            (self.arg(call, v, &LocSet::new()), src)
                        });
                        self.pending_store = Some(PendingStore {
                            slot,
                            some,
                            value: stored,
                            keep: false,
                        });
                    }
                }
                Effect::InsertSome { dst, value, keep } => {
                    if let Some(slot) = single(&self.arg(call, dst, &ret)) {
                        let src = call
                            .args
                            .get(value as usize)
                            .and_then(|a| self.arg_place_loc(f, &a.node, state));
                        let vals = self.arg(call, value, &LocSet::new());
                        let payload = self.locs.child(slot, Proj::Variant(1, 0));
                        ret.insert(payload);
                        self.pending_store = Some(PendingStore {
                            slot,
                            some: true,
                            value: Some((vals, src)),
                            keep,
                        });
                    }
                }
                Effect::CompileSource(a) => {
                    let (sources, from_caller) = self.const_strs(call, a);
                    let module =
                        self.locs
                            .fresh(f, call.bb, which as u8, Target::Obj(ObjKind::Module), call.span, None);
                    let attrs = self.attrs.entry(module).or_default();
                    attrs.from_caller |= from_caller;
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
                    let mut from_caller = false;
                    for m in from.iter() {
                        match self.attrs.get(&m) {
                            Some(a) => {
                                sources.extend(a.sources.iter().cloned());
                                from_caller |= a.from_caller;
                            }
                            None => {
                                sources.push(None);
                                // Whether the function has callers is asked where the
                                // kernel's verdict is needed (`kernel_verdict`).
                                from_caller |= self.is_linted_fn_param(m);
                            }
                        }
                    }
                    let attrs = self.attrs.entry(module).or_default();
                    attrs.from_caller |= from_caller;
                    for s in sources {
                        if !attrs.sources.contains(&s) {
                            attrs.sources.push(s);
                        }
                    }
                    ret.insert(module);
                }
                Effect::GetFunction { module, name } => {
                    let (names, from_caller) = self.const_strs(call, name);
                    let modules = self.objects(call, module, state);
                    let kernel =
                        self.locs
                            .fresh(f, call.bb, which as u8, Target::Obj(ObjKind::Kernel), call.span, None);
                    let attrs = self.attrs.entry(kernel).or_default();
                    attrs.from_caller |= from_caller;
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
                    self.machine.map(&mut state.m, &LocSet::single(mapping));
                    ret.insert(mapping);
                }
                Effect::NewOut { out, target } => {
                    let new = self.locs.fresh(f, call.bb, which as u8, target, call.span, None);
                    self.locs.set_allocated(new);
                    self.attrs.entry(new).or_default().family = Some(self.family);
                    let slots = self.arg(call, out, &ret);
                    let strong = slots.len() == 1;
                    if strong && matches!(target, Target::Mem(_)) {
                        self.overwritten_allocation(call, slots.iter().next(), new, state);
                        if let Some(slot) = slots.iter().next() {
                            let root = LocSet::single(self.locs.data_root(new));
                            self.note_allocated_pointer(slot, &root);
                        }
                    }
                    self.renew(call, target, new, state);
                    for slot in slots.iter() {
                        self.store(state, slot, &LocSet::single(new), strong);
                    }
                    last_new = Some(new);
                }
                Effect::MapAt { va, physical } => {
                    let phys = self.objects(call, physical, state);
                    let at = self.data_arg(call, va, &ret, state);
                    if !at
                        .iter()
                        .any(|l| self.locs.kind(l) == LocKind::Data(MemKind::VmmMapping))
                    {
                        // An address whose reservation was not seen (a field, `base + offset`):
                        // what is mapped there now is a mapping, and the address names it from
                        // here on (a new mapping has no access until `cuMemSetAccess`).
                        if let Some(slot) = call
                            .args
                            .get(va as usize)
                            .and_then(|a| self.arg_place_loc(f, &a.node, state))
                            && self
                                .locs
                                .get(slot)
                                .ty
                                .is_some_and(|t| t.is_integral() || t.is_raw_ptr())
                        {
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
                            self.machine.map(&mut state.m, &LocSet::single(mapping));
                            self.store(state, slot, &LocSet::single(mapping), true);
                        }
                    }
                    for mapping in at.iter() {
                        if self.locs.kind(mapping) == LocKind::Data(MemKind::VmmMapping) {
                            // Mapped at its reservation's start, or at a view past it.
                            let view = self.locs.mapping_view(mapping);
                            // Reported before the view is shown here: its label is the map before.
                            let views = LocSet::single(view);
                            self.emit(f, call.span, call.si, Event::Map { views: &views }, state);
                            self.attrs.entry(view).or_default().physical.union_with(&phys);
                            // A view is shown where it is mapped (the reservation's start,
                            // reserved earlier, as well).
                            self.locs.set_origin(view, call.span);
                            if view != self.locs.data_root(view) {
                                self.locs.set_allocated(view);
                            }
                            self.machine.map(&mut state.m, &views);
                            self.mapped_by_call.get_or_insert_default().insert(view);
                        }
                    }
                }
                Effect::SetAccess { va } => {
                    let at = self.data_arg(call, va, &ret, state);
                    self.machine.set_access(&mut state.m, &at, &self.regions());
                }
                Effect::Unmap { va } => {
                    let at = self.data_arg(call, va, &ret, state);
                    self.machine.unmap(&mut state.m, &at, &self.regions());
                }
                Effect::AddressFree { va } => {
                    let at = self.data_arg(call, va, &ret, state);
                    self.emit(f, call.span, call.si, Event::AddressFree { regions: &at }, state);
                }
                Effect::AllocatedOn(a) => {
                    let streams = self.streams(call, a, state);
                    for new in ret.iter().chain(last_new) {
                        let attrs = self.attrs.entry(new).or_default();
                        attrs.streams.union_with(&streams);
                        attrs.stream_ordered = true;
                    }
                    // cudarc gives a slice allocated while event tracking is off no events.
                    cudarc::allocated(&mut state.m, ret.iter().chain(last_new));
                }
                Effect::DefaultStream(a) | Effect::PerThreadStream(a) => {
                    let legacy = matches!(effect, Effect::DefaultStream(_));
                    for ctx in self.objects(call, a, state).iter() {
                        let stream = self.locs.default_stream(ctx, legacy);
                        self.attrs.entry(stream).or_default().contexts.insert(ctx);
                        if legacy {
                            self.machine.set_legacy(stream);
                        }
                        ret.insert(stream);
                    }
                }
                Effect::NonBlocking { flags } => {
                    let non_blocking = match flags {
                        None => true,
                        Some(a) => self.const_int(call, a).is_some_and(|flags| flags & 1 == 1),
                    };
                    if non_blocking {
                        for stream in ret.iter().chain(last_new) {
                            if matches!(self.locs.kind(stream), LocKind::Object(ObjKind::Stream)) {
                                self.machine.set_non_blocking(stream);
                            }
                        }
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
                        let earlier = self.machine.ops_on(&state.m, &src_streams);
                        self.machine.order_after(&mut state.m, &streams, &earlier);
                    }
                }
                Effect::StreamOf(a) => {
                    // The slice's memory; where it is not known (an element of a parameter's
                    // collection), the slice itself.
                    let mut roots = self.data_roots(call, a, &ret, state);
                    if roots.is_empty() {
                        roots = self.arg(call, a, &ret);
                    }
                    for d in roots.iter() {
                        // A slice made elsewhere (a parameter's) is on a stream not known here,
                        // but one stream: each `slice.stream()` of it is that same stream.
                        if self.attrs.get(&d).is_none_or(|attrs| attrs.streams.is_empty()) {
                            let stream =
                                self.locs
                                    .fresh(f, call.bb, which as u8, Target::Obj(ObjKind::Stream), call.span, None);
                            self.attrs.entry(d).or_default().streams.insert(stream);
                        }
                        if let Some(attrs) = self.attrs.get(&d) {
                            ret.union_with(&attrs.streams);
                        }
                    }
                }
                Effect::StreamJoin { stream, other } => {
                    let mut waiters = self.objects_with(call, stream, &ret, state);
                    waiters.retain(|l| matches!(self.locs.kind(l), LocKind::Object(ObjKind::Stream)));
                    let others = self.streams(call, other, state);
                    let done = self.machine.ops_on(&state.m, &others);
                    self.machine.order_after(&mut state.m, &waiters, &done);
                }
                Effect::RetInto(a) => {
                    let slots = self.arg(call, a, &LocSet::new());
                    let strong = slots.len() == 1;
                    for slot in slots.iter() {
                        self.store(state, slot, &ret, strong);
                    }
                    ret = LocSet::new();
                }
                Effect::Cudarc(effect) => {
                    if let Some(value) = self.apply_cudarc(call, effect, which, &ret, state) {
                        fields = Some(value);
                    }
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
                        let mut raw = attrs.raw_arg_memory.clone();
                        raw.subtract(&attrs.handle_arg_memory);
                        if let Some(tracking) = self.call_tracking.as_mut() {
                            tracking.unrecorded = raw;
                            tracking.unrecorded_note = cudarc::ARG_UNRECORDED;
                        }
                        self.launch_with(call, &attrs.kernels, attrs.streams, slots, apart, state);
                    }
                }
                Effect::FreeOnStream { mem, stream } => {
                    let data = self.data_arg(call, mem, &ret, state);
                    let streams = self.streams(call, stream, state);
                    // Freed in a capture: a node of the graph (memory the graph allocates and
                    // frees at each launch), nothing freed now.
                    if !streams.is_empty() && streams.iter().all(|s| state.capturing.contains(s)) {
                        let regions = self.regions();
                        self.machine.handed_over(&mut state.m, &data, &regions);
                        continue;
                    }
                    self.free_on_streams(f, &data, &streams, &OpSet::new(), call.si, state);
                    let regions = self.regions();
                    self.machine.released(&mut state.m, &data, &regions);
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
                    let slot_written: Vec<bool> = slots.iter().map(|(a, _)| writes.contains(a)).collect();
                    let slots: Vec<LocSet> = slots.into_iter().map(|(_, d)| d).collect();
                    let verdict = match (kernel, fenced) {
                        (_, Some(true)) => None,
                        (Some(name), _) => Some(Kernel::Unfenced { name: name.to_string() }),
                        (None, _) => Some(Kernel::SourceNotVisible { name: None }),
                    };
                    self.launch_event(call, verdict, &slots, true, Some(&slot_written), state);
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
                Effect::BeginCapture { stream, mode } => {
                    let streams = self.streams(call, stream, state);
                    if streams.iter().any(|s| self.machine.is_legacy(s)) {
                        self.capture_event(call, CaptureRule::CaptureOnLegacy, state);
                    }
                    state.capturing.union_with(&streams);
                    state.capturing_must.union_with(&streams);
                    let graph = self
                        .locs
                        .fresh(f, call.bb, which as u8, Target::Obj(ObjKind::Graph), call.span, None);
                    // Captured anew (a loop's next round): what it held is the last capture's.
                    self.graphs.insert(
                        graph,
                        CapturedGraph {
                            reads: LocSet::new(),
                            writes: LocSet::new(),
                            slots: Vec::new(),
                            streams,
                            site: call.span,
                        },
                    );
                    state.building = LocSet::single(graph);
                    // Global (0) or thread-local (1) mode: strict; relaxed (2), or a mode the
                    // analysis cannot read, not known to be.
                    state.capture_strict = match mode {
                        None => true,
                        Some(m) => self.const_int(call, m).is_some_and(|m| m < 2),
                    };
                }
                // The capture ends for its stream and every stream that joined it; the return
                // value is the graph it made.
                Effect::EndCapture(_) => {
                    state.capturing = LocSet::new();
                    state.capturing_must = LocSet::new();
                    ret.union_with(&std::mem::take(&mut state.building));
                }
                Effect::CaptureModeExchange => state.capture_strict = false,
                Effect::GraphLaunch { graph, stream } => {
                    let mut graphs = self.objects(call, graph, state);
                    graphs.retain(|g| self.graphs.contains_key(&g));
                    // A graph whose capture the analysis did not see names no memory it knows.
                    if graphs.is_empty() {
                        continue;
                    }
                    let (mut reads, mut writes, mut captured_on) = (LocSet::new(), LocSet::new(), LocSet::new());
                    let mut slots: Vec<LocSet> = Vec::new();
                    let mut site = None;
                    for g in graphs.iter() {
                        let held = &self.graphs[&g];
                        reads.union_with(&held.reads);
                        writes.union_with(&held.writes);
                        captured_on.union_with(&held.streams);
                        slots.extend(held.slots.iter().cloned());
                        site.get_or_insert(held.site);
                    }
                    self.emit(
                        f,
                        call.span,
                        call.si,
                        Event::GraphLaunch {
                            slots: &slots,
                            captured: site,
                        },
                        state,
                    );
                    let streams = match stream {
                        Some(s) => self.streams(call, s, state),
                        None => captured_on,
                    };
                    self.enqueue(call, OpKind::Graph, streams, reads, writes, state);
                }
                Effect::NewHandle { stream } => {
                    let new = self.locs.fresh(
                        f,
                        call.bb,
                        which as u8,
                        Target::Obj(ObjKind::LibraryHandle),
                        call.span,
                        None,
                    );
                    // The stream it runs on is what the handle object holds.
                    let streams = self.streams(call, stream, state);
                    self.store(state, new, &streams, true);
                    if stream == LEGACY {
                        self.unset_handles.insert(new);
                    }
                    ret.insert(new);
                }
                Effect::SetHandleStream { handle, stream } => {
                    let handles = self.library_handles(call, handle, state);
                    let streams = self.streams(call, stream, state);
                    for h in handles.iter() {
                        self.unset_handles.remove(&h);
                    }
                    let strong = handles.len() == 1;
                    for h in handles.iter() {
                        self.store(state, h, &streams, strong);
                    }
                }
                Effect::SetPointerMode { handle, mode } => {
                    let device = self.const_int(call, mode) == Some(1);
                    for h in self.library_handles(call, handle, state).iter() {
                        if device {
                            self.device_pointer_mode.insert(h);
                        } else {
                            self.device_pointer_mode.remove(&h);
                        }
                    }
                }
                Effect::LibraryWork {
                    on,
                    reads,
                    writes,
                    result,
                } => self.library_work(call, on, reads, writes, result, state),
                Effect::RegisterInPlace(a) => {
                    let data = self.data_roots(call, a, &ret, state);
                    self.machine.register_in_place(&mut state.m, &data);
                }
                Effect::UnregisterInPlace(a) => {
                    let data = self.data_roots(call, a, &ret, state);
                    self.emit(f, call.span, call.si, Event::Unregister { regions: &data }, state);
                    self.machine.unregister(&mut state.m, &data, &self.regions());
                }
            }
        }
        if let Some(fields) = fields {
            return Val::Fields(fields);
        }
        match tree {
            // `opt.unwrap()`, `res.expect(..)`: the payload of the enum becomes the value.
            Some(src) if self.is_enum(src) && (!ret_ty.is_enum() || self.payload_is(src, ret_ty)) => {
                match self.payload(src) {
                    Some(payload) => Val::Tree(payload, ret),
                    None => Val::Set(ret),
                }
            }
            Some(src) => Val::Tree(src, ret),
            None => Val::Set(ret),
        }
    }

    /// Whether some part of the value at `loc` (a field, not what it points to) holds a value.
    fn holds_stored_parts(&self, state: &State, loc: LocId, depth: u32) -> bool {
        self.locs.get(loc).children.iter().any(|&(p, c)| {
            p != Proj::Deref
                && (state.values.get(&c).is_some() || (depth > 0 && self.holds_stored_parts(state, c, depth - 1)))
        })
    }

    /// Whether the enum at `loc` wraps a value of type `ty` (`Result<Result<T, E>, F>` unwrapped
    /// to `Result<T, E>`).
    fn payload_is(&self, loc: LocId, ty: Ty<'tcx>) -> bool {
        match self.locs.get(loc).ty.map(|t| *t.kind()) {
            Some(ty::Adt(_, args)) => args.types().next() == Some(ty),
            _ => false,
        }
    }

    /// Narrows each side of a `zip` to the items it yields (`zip(&vec)`: an element of the
    /// `Vec`), into nested `zip`s for nested tuples (`a.zip(b).zip(c)`).
    fn narrow_zip_sides(
        &mut self,
        zip: LocId,
        items: &ty::List<Ty<'tcx>>,
        state: &mut State,
        depth: u32,
        yielded: &mut LocSet,
    ) {
        for (i, item_ty) in items.iter().enumerate() {
            let side = self.locs.child(zip, Proj::Field(i as u32));
            match item_ty.kind() {
                ty::Tuple(inner) if depth > 0 => self.narrow_zip_sides(side, inner, state, depth - 1, yielded),
                _ => {
                    if let Some(vals) = state.values.get(&side).cloned() {
                        let narrowed = self.narrow_item(state, &vals, item_ty);
                        yielded.union_with(&narrowed);
                        state.values.insert(side, narrowed);
                    }
                }
            }
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
        !self.users(state, data).is_empty()
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

    /// Whether a wait on `objects` at `call` is one in a loop over a collection of them: the
    /// call is in a loop, and what it waits on is unknown or stands for several.
    fn waits_over_collection(&mut self, call: &CallSite<'_, 'tcx>, objects: &LocSet) -> bool {
        let many = objects.iter().all(|o| self.stands_for_many(o));
        many && self.in_a_loop_here(call.f, call.bb)
    }

    /// A stream this body did not create (a parameter, a field of one, a static) may be the
    /// same stream as another such one (`Arc` clones in two fields, one stream passed twice):
    /// waiting for it may wait for the work on those too. An unknown is no evidence of a
    /// missing wait.
    fn with_possible_aliases(&self, streams: LocSet, state: &State) -> LocSet {
        if !streams.iter().any(|s| self.unknown_identity_stream(s)) {
            return streams;
        }
        let mut out = streams;
        for op in state.m.inflight_may.iter() {
            for s in self.machine.op(op).streams.iter() {
                if self.unknown_identity_stream(s) {
                    out.insert(s);
                }
            }
        }
        out
    }

    /// A stream object of unknown identity: not created here, not a context's default stream,
    /// not one kept in a `static` (two statics are two streams).
    fn unknown_identity_stream(&self, s: LocId) -> bool {
        let data = self.locs.get(s);
        data.kind == LocKind::Object(ObjKind::Stream)
            && !data.allocated
            && !matches!(data.parent, Some((_, Proj::Field(i))) if i >= u32::MAX - 1)
            && !matches!(self.locs.path(s).0, Root::Static { .. })
    }

    /// Whether frame `f`'s body asks a collection whether it is empty (`reqs.is_empty()`): a
    /// wait over an array of requests there may be skipped only where it held none.
    fn body_tests_emptiness(&self, f: FrameId) -> bool {
        let body = self.frames[f.0 as usize].body;
        let tcx = self.tcx;
        body.basic_blocks.iter().any(|data| {
            let TerminatorKind::Call { func, .. } = &data.terminator().kind else {
                return false;
            };
            let ty::FnDef(callee, _) = *func.ty(&body.local_decls, tcx).kind() else {
                return false;
            };
            tcx.item_name(callee).as_str() == "is_empty"
        })
    }

    /// Whether the call is in a loop of its frame that iterates over an array of constant,
    /// non-zero length (`for s in [&a, &b]`): the loop body runs at least once.
    fn in_loop_over_nonempty_array(&mut self, call: &CallSite<'_, 'tcx>) -> bool {
        let f = call.f;
        if !self.in_loop(f, call.bb) {
            return false;
        }
        let body = self.frames[f.0 as usize].body;
        let blocks = self.loop_of(f, call.bb);
        let tcx = self.tcx;
        blocks.iter().any(|bb| {
            let TerminatorKind::Call { func, args, .. } = &body.basic_blocks[bb].terminator().kind else {
                return false;
            };
            let ty::FnDef(callee, _) = *self.instantiate(f, func.ty(&body.local_decls, tcx)).kind() else {
                return false;
            };
            if tcx.item_name(callee).as_str() != "next" {
                return false;
            }
            let Some(recv) = args.first() else { return false };
            let mut ty = self.instantiate(f, recv.node.ty(&body.local_decls, tcx));
            while let ty::Ref(_, inner, _) = ty.kind() {
                ty = *inner;
            }
            match ty.kind() {
                ty::Adt(def, gargs)
                    if tcx.item_name(def.did()).as_str() == "IntoIter"
                        && tcx.crate_name(def.did().krate).as_str() == "core" =>
                {
                    gargs
                        .consts()
                        .next()
                        .and_then(|n| n.try_to_target_usize(tcx))
                        .is_some_and(|n| n > 0)
                }
                _ => false,
            }
        })
    }

    /// The streams of the work in flight that stand for several (see `stands_for_many`).
    fn streams_standing_for_many(&mut self, state: &State) -> LocSet {
        let mut streams = LocSet::new();
        for op in state.m.inflight_may.iter() {
            streams.union_with(&self.machine.op(op).streams);
        }
        streams.retain(|s| self.stands_for_many(s));
        streams
    }

    /// Remembers the loop a wait over a collection is in, for the work it waited for: inside
    /// that loop, before the wait, the work still runs (see `Interp::emit`).
    fn record_wait_loop(&mut self, call: &CallSite<'_, 'tcx>, over: &OpSet) {
        if over.is_empty() {
            return;
        }
        let (mut f, mut bb) = (call.f, call.bb);
        for _ in 0..=MAX_INLINE_DEPTH {
            if self.in_loop(f, bb) {
                let blocks = self.loop_of(f, bb);
                for op in over.iter() {
                    self.wait_loops.entry(op).or_default().push((f, blocks.clone()));
                }
                return;
            }
            let fr = &self.frames[f.0 as usize];
            match (fr.parent, fr.called_at) {
                (Some(p), Some(at)) => (f, bb) = (p, at),
                _ => return,
            }
        }
    }

    /// A loop's `next()` yields an item of a collection (an element: one location for all of
    /// them): the work started on earlier items in this loop used other elements.
    fn next_items(&mut self, call: &CallSite<'_, 'tcx>, items: &LocSet, state: &mut State) {
        let f = call.f;
        let elements: Vec<LocId> = items
            .iter()
            .filter(|&l| matches!(self.locs.get(l).parent, Some((_, Proj::Index))))
            .collect();
        if elements.is_empty() || !self.in_loop(f, call.bb) {
            return;
        }
        let blocks = self.loop_of(f, call.bb);
        let started_in_loop: OpSet = state
            .m
            .inflight_may
            .iter()
            .filter(|op| self.enqueued_in(*op, f, &blocks))
            .collect();
        // A handle element (a `Vec<DeviceBuffer>`'s) owns the memory it refers to: one
        // location for what the allocation site made for every element, apart per item too.
        let mut apart = elements.clone();
        for &element in &elements {
            if matches!(self.locs.kind(element), LocKind::Handle(Target::Mem(_))) {
                let held = self.read_value(state, element);
                apart.extend(held.iter().filter(|&m| matches!(self.locs.kind(m), LocKind::Data(_))));
            }
        }
        for item in apart {
            self.machine.next_item(&mut state.m, item, &started_in_loop);
            if !self.item_loops.iter().any(|(l, fr, _)| *l == item && *fr == f) {
                self.item_loops.push((item, f, blocks.clone()));
            }
        }
    }

    /// Whether `op` is enqueued in one of `blocks` of frame `f`, or in a helper called there.
    fn enqueued_in(&self, op: OpId, f: FrameId, blocks: &LoopBlocks) -> bool {
        let (mut fr, _) = self.op_sites[op.0 as usize];
        let mut bb = self.op_blocks[op.0 as usize];
        for _ in 0..=MAX_INLINE_DEPTH + 1 {
            if fr == f {
                return blocks.contains(bb);
            }
            let frame = &self.frames[fr.0 as usize];
            match (frame.parent, frame.called_at) {
                (Some(p), Some(at)) => (fr, bb) = (p, at),
                _ => return false,
            }
        }
        false
    }

    /// Forgets the items of loops of frame `f` that block `bb` is not part of (`None`: the
    /// frame returned).
    pub(super) fn leave_item_loops(&mut self, f: FrameId, bb: Option<BasicBlock>, state: &mut State) {
        if self.item_loops.is_empty() {
            return;
        }
        for (item, fr, blocks) in &self.item_loops {
            if *fr == f && bb.is_none_or(|bb| !blocks.contains(bb)) {
                state.m.items_apart.remove(item);
            }
        }
    }

    /// Whether block `bb` of frame `f` runs in a loop, there or in a caller.
    fn in_a_loop_here(&mut self, mut f: FrameId, mut bb: BasicBlock) -> bool {
        for _ in 0..=MAX_INLINE_DEPTH {
            if self.in_loop(f, bb) {
                return true;
            }
            let fr = &self.frames[f.0 as usize];
            match (fr.parent, fr.called_at) {
                (Some(p), Some(at)) => (f, bb) = (p, at),
                _ => return false,
            }
        }
        false
    }

    /// Whether block `bb` of frame `f` runs in every round of a loop it is in (here or in a
    /// caller, through calls that run it on every path): it dominates every block its loop
    /// goes back from. An allocation under a test in the loop (`if p.is_null() { alloc }`,
    /// made once and kept) does not.
    fn runs_every_round(&mut self, mut f: FrameId, mut bb: BasicBlock) -> bool {
        for _ in 0..=MAX_INLINE_DEPTH {
            let body = self.frames[f.0 as usize].body;
            let dominators = body.basic_blocks.dominators();
            if self.in_loop(f, bb) {
                let blocks = self.loop_of(f, bb);
                return blocks.iter().all(|u| {
                    let back = body.basic_blocks[u]
                        .terminator()
                        .successors()
                        .any(|h| blocks.contains(h) && dominators.dominates(h, u));
                    !back || dominators.dominates(bb, u)
                });
            }
            // Not in a loop here: the function must reach it on every path to its return.
            let returns_through = body.basic_blocks.iter_enumerated().all(|(b, data)| {
                !matches!(data.terminator().kind, TerminatorKind::Return) || dominators.dominates(bb, b)
            });
            let fr = &self.frames[f.0 as usize];
            match (returns_through, fr.parent, fr.called_at) {
                (true, Some(p), Some(at)) => (f, bb) = (p, at),
                _ => return false,
            }
        }
        false
    }

    /// Whether an object stands for several: an element of a collection, or one created in a
    /// loop or in a closure (which `map` and the like call once per item).
    fn stands_for_many(&mut self, l: LocId) -> bool {
        let (root, projs) = self.locs.path(l);
        if projs.contains(&Proj::Index) {
            return true;
        }
        let Root::Fresh { frame, block, .. } = root else {
            return false;
        };
        let (mut f, mut bb) = (frame, block);
        for _ in 0..=MAX_INLINE_DEPTH {
            let (def_id, parent, called_at) = {
                let fr = &self.frames[f.0 as usize];
                (fr.def_id, fr.parent, fr.called_at)
            };
            if self.tcx.is_closure_like(def_id) || self.in_loop(f, bb) {
                return true;
            }
            match (parent, called_at) {
                (Some(p), Some(at)) => (f, bb) = (p, at),
                _ => return false,
            }
        }
        false
    }

    /// The blocks of the loop block `bb` of frame `f`'s body is in (computed once).
    fn loop_of(&mut self, f: FrameId, bb: BasicBlock) -> LoopBlocks {
        if let Some(blocks) = self.loop_sets.get(&(f, bb)) {
            return blocks.clone();
        }
        let blocks = Rc::new(loop_blocks(self.frames[f.0 as usize].body, bb));
        self.loop_sets.insert((f, bb), blocks.clone());
        blocks
    }

    /// Whether block `bb` of frame `f`'s body is part of a loop (it can reach itself).
    fn in_loop(&mut self, f: FrameId, bb: BasicBlock) -> bool {
        if let Some(&known) = self.loop_blocks.get(&(f, bb)) {
            return known;
        }
        let blocks = &self.frames[f.0 as usize].body.basic_blocks;
        let mut seen = rustc_index::bit_set::DenseBitSet::new_empty(blocks.len());
        let mut work: Vec<BasicBlock> = blocks[bb].terminator().successors().collect();
        let mut found = false;
        while let Some(b) = work.pop() {
            if b == bb {
                found = true;
                break;
            }
            if seen.insert(b) {
                work.extend(blocks[b].terminator().successors());
            }
        }
        self.loop_blocks.insert((f, bb), found);
        found
    }

    /// Whether asynchronous work can still be using memory at `l` after the call that enqueued
    /// it returned: memory that is not pageable, or pageable memory page-locked in place.
    pub(super) fn can_be_in_flight(&self, l: LocId, state: &State) -> bool {
        self.machine.can_be_in_flight(&state.m, l, &self.regions())
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
        self.machine.users(&state.m, data, &self.regions())
    }

    pub(super) fn arg(&self, call: &CallSite<'_, 'tcx>, a: u8, ret: &LocSet) -> LocSet {
        if a == RET {
            ret.clone()
        } else {
            call.argvals.get(a as usize).cloned().unwrap_or_default()
        }
    }

    /// The legacy default stream of the current context (one object for the whole analysis).
    pub(super) fn legacy_stream(&mut self, span: Span) -> LocId {
        let stream = self.locs.global(u32::MAX, Target::Obj(ObjKind::Stream), span);
        self.locs.set_allocated(stream);
        self.machine.set_legacy(stream);
        stream
    }

    /// Whether an argument is (a reference to) one of the tables' handle types, not plain data
    /// (a `&[T]`, a `Vec<T>`, a raw pointer).
    pub(super) fn arg_is_handle(&self, call: &CallSite<'_, 'tcx>, a: u8) -> bool {
        let body = self.frames[call.f.0 as usize].body;
        let Some(arg) = call.args.get(a as usize) else {
            return false;
        };
        let ty = self.instantiate(call.f, arg.node.ty(&body.local_decls, self.tcx));
        self.rs.role(ty.peel_refs()).is_some()
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
        if a == LEGACY {
            return LocSet::single(self.legacy_stream(call.span));
        }
        let v = self.arg(call, a, ret);
        let mut d = self.derive(state, &v);
        d.retain(|l| {
            matches!(
                self.locs.kind(l),
                LocKind::Object(_) | LocKind::Data(MemKind::VmmMapping)
            )
        });
        // A null handle where an object is expected is the legacy default stream (`stream = 0`,
        // `null_mut()`): the only CUDA object the APIs take as null.
        if d.is_empty() && self.is_null_arg(call, a) {
            d.insert(self.legacy_stream(call.span));
        }
        d
    }

    /// Whether argument `a` is a null pointer or zero written in the program (`null_mut()`,
    /// `0 as CUstream`, `ptr::null()`), followed through locals and helpers' parameters.
    fn is_null_arg(&self, call: &CallSite<'_, 'tcx>, a: u8) -> bool {
        let tcx = self.tcx;
        let env = self.typing_env;
        self.through_helpers(call, a, |body, op| null_in_body(tcx, env, body, op, 4).then_some(()))
            .0
            .is_some()
    }

    /// The constant strings an argument may be (`[None]` when it is not a constant), followed
    /// through the parameters of inlined helpers to the constants their callers pass; and
    /// whether it comes from a parameter of the function being linted, whose callers judge it.
    pub(super) fn const_strs(&self, call: &CallSite<'_, 'tcx>, a: u8) -> (Vec<Option<String>>, bool) {
        match self.through_helpers(call, a, |body, op| {
            const_strs_of(self.tcx, self.typing_env, body, op, 4)
        }) {
            (Some(strings), _) => (strings.into_iter().map(Some).collect(), false),
            (None, from_caller) => (vec![None], from_caller),
        }
    }

    /// What `eval` makes of argument `a`, followed through the parameters of inlined helpers to
    /// what their callers pass; and whether it comes from a parameter of the function being
    /// linted (its callers judge it).
    fn through_helpers<T>(
        &self,
        call: &CallSite<'_, 'tcx>,
        a: u8,
        eval: impl Fn(&'a Body<'tcx>, &Operand<'tcx>) -> Option<T>,
    ) -> (Option<T>, bool) {
        match call.args.get(a as usize) {
            Some(op) => self.operand_through_helpers(call.f, &op.node, eval),
            None => (None, false),
        }
    }

    /// [`Self::through_helpers`] for an operand `op` of frame `f`.
    pub(super) fn operand_through_helpers<T>(
        &self,
        mut f: FrameId,
        mut op: &Operand<'tcx>,
        eval: impl Fn(&'a Body<'tcx>, &Operand<'tcx>) -> Option<T>,
    ) -> (Option<T>, bool) {
        for _ in 0..=MAX_INLINE_DEPTH {
            let frame = &self.frames[f.0 as usize];
            if let Some(found) = eval(frame.body, op) {
                return (Some(found), false);
            }
            let Some(param) = param_source(frame.body, op, 4) else {
                break;
            };
            let (Some(parent), Some(bb)) = (frame.parent, frame.called_at) else {
                // A parameter of the function being linted.
                return (None, true);
            };
            // A closure's parameters are untupled from its call's arguments: not followed.
            if self.tcx.is_closure_like(frame.def_id) {
                break;
            }
            let TerminatorKind::Call { args, .. } =
                &self.frames[parent.0 as usize].body.basic_blocks[bb].terminator().kind
            else {
                break;
            };
            let Some(arg) = args.get(param.as_usize() - 1) else {
                break;
            };
            op = &arg.node;
            f = parent;
        }
        (None, false)
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
        let mut dst_data = self.data_arg(call, dst, ret, state);
        let mut src_data = self.data_arg(call, src, ret, state);
        // An argument whose type is a handle of device memory (`&mut CudaSlice<T>`, a crate's
        // `DeviceBuffer`) is device memory, whatever a container it was taken out of holds
        // (`map.get_mut(k)` that no table knows answers with the map's own memory).
        self.keep_what_the_handle_type_allows(call, dst, &mut dst_data);
        self.keep_what_the_handle_type_allows(call, src, &mut src_data);
        // The direction the code states (a constant `cudaMemcpyKind`, a function of one
        // direction), against where the memory lives.
        let stated = match dir {
            Dir::KindArg(a) => match self.const_int(call, a) {
                Some(0) => Some(cuda_lint_machine::Dir::HostToHost),
                Some(1) => Some(cuda_lint_machine::Dir::HostToDevice),
                Some(2) => Some(cuda_lint_machine::Dir::DeviceToHost),
                Some(3) => Some(cuda_lint_machine::Dir::DeviceToDevice),
                _ => None,
            },
            Dir::HostToDevice => Some(cuda_lint_machine::Dir::HostToDevice),
            Dir::DeviceToHost => Some(cuda_lint_machine::Dir::DeviceToHost),
            Dir::DeviceToDevice => Some(cuda_lint_machine::Dir::DeviceToDevice),
            Dir::Infer => None,
        };
        if let Some(stated) = stated {
            let event = Event::StatedCopy {
                dst: &dst_data,
                src: &src_data,
                dir: stated,
            };
            self.emit(call.f, call.span, call.si, event, state);
        }
        if let Some(whole) = self.copy_covers_whole
            && self.reporting
        {
            let data = if whole == src { &src_data } else { &dst_data };
            self.copy_count = self.whole_arg_bytes(call, whole, data);
        }
        self.deref_event(call, dst, &dst_data, DerefRole::CopyDestination, state);
        self.deref_event(call, src, &src_data, DerefRole::CopySource, state);
        let dir = self.concrete_dir(call, dir, &dst_data, &src_data);
        let (host, host_arg) = match dir {
            Dir::HostToDevice => (Some(&src_data), src),
            Dir::DeviceToHost => (Some(&dst_data), dst),
            _ => (None, dst),
        };
        if is_async && let Some(host) = host {
            // A C API's one-dimensional copy (`cuMemcpyHtoDAsync`, `cudaMemcpyAsync`) gives its
            // byte count after its two pointers.
            let count = (dst == 0 && src == 1 && self.calls_c_function(call))
                .then(|| self.const_int(call, 2))
                .flatten()
                .and_then(|c| u64::try_from(c).ok());
            self.async_copy_event(call, host, host_arg, dir, count, state);
            // cudarc records an event on the host side only for its own types.
            let recorded = self.arg_is_handle(call, host_arg);
            if let Some(tracking) = self.call_tracking.as_mut()
                && !recorded
            {
                tracking.unrecorded = host.clone();
                tracking.unrecorded_note = cudarc::HOST_UNRECORDED;
            }
        }
        // The host side of a pageable copy is done when the call returns.
        let in_flight = |this: &Self, set: &LocSet| -> LocSet {
            let mut s = set.clone();
            s.retain(|l| this.can_be_in_flight(l, state));
            s
        };
        let reads = in_flight(self, &src_data);
        let mut writes = in_flight(self, &dst_data);
        // (The source as written: a pointer to an array's first element is no `Data` location.)
        let src_values = self.arg(call, src, ret);
        let mut src_places = self.derive(state, &src_values);
        src_places.union_with(&src_data);
        self.copy_stored_pointers(&src_places, &dst_data, state);
        let streams = self.objects(call, stream, state);
        // A copy into pageable memory returns only once it is done (CUDA's documented
        // behaviour, which cudarc's `clone_dtoh` relies on): the stream's earlier work is done too.
        let into_pageable = dir == Dir::DeviceToHost
            && !dst_data.is_empty()
            && dst_data.iter().all(|l| {
                matches!(self.locs.kind(l), LocKind::Data(MemKind::Pageable))
                    && !state.m.registered_may.contains(self.locs.data_root(l))
            });
        // A blocking copy returns once it is done, but one from pageable memory to the device
        // returns once the data is staged: the DMA to the device may still run on its stream.
        let staged = !is_async
            && dir == Dir::HostToDevice
            && !src_data.is_empty()
            && src_data.iter().all(|l| !self.can_be_in_flight(l, state));
        // A raw asynchronous copy into pageable memory is done when the call returns only by
        // the driver's way of doing it: it keeps its destination, for what relies on that.
        let implicit = into_pageable && is_async && self.calls_c_function(call);
        if implicit {
            writes.union_with(&dst_data);
        }
        self.enqueue(call, OpKind::Copy, streams.clone(), reads, writes, state);
        let op = self.op_index.get(&(call.f, call.bb)).copied();
        if !is_async && let Some(id) = op {
            self.machine.set_blocking(id);
        }
        if implicit {
            // An asynchronous copy into pageable memory "might be synchronous with respect to
            // host": what relies on it is `relies_on_implicit_sync`'s. (cudarc's safe copies into
            // a `Vec` rely on it themselves: the library's contract, not the caller's code.)
            let work = self.machine.stream_work(&state.m, &streams);
            self.machine.wait_implicitly_for(&mut state.m, &work);
        } else if into_pageable || (!is_async && !staged) {
            self.machine.sync_streams(&mut state.m, &streams);
        }
        if staged && let Some(id) = op {
            self.machine.add_note(
                id,
                "a blocking copy from pageable memory returns once the data is staged; the DMA to \
                 the device may still run (CUDA's API synchronization behavior)",
            );
        }
    }

    /// Device pointers stored in copied memory (a table of them, made on the host) are stored
    /// in the destination too: a kernel given the table reaches what they point to.
    fn copy_stored_pointers(&mut self, src: &LocSet, dst: &LocSet, state: &mut State) {
        let stored = self.stored_device_pointers(src, state);
        if stored.is_empty() {
            return;
        }
        for d in dst.iter() {
            let element = self.locs.child(d, Proj::Index);
            state.values.entry(element).or_default().union_with(&stored);
        }
    }

    /// The device memory that pointers stored in `data` point to (anywhere inside: an array's
    /// elements, the array inside `vec![..]`'s box).
    fn stored_device_pointers(&self, data: &LocSet, state: &State) -> LocSet {
        let mut stored = self.stored_values(data, state);
        stored.retain(|l| matches!(self.locs.kind(l), LocKind::Data(k) if k.is_device_only()));
        stored
    }

    /// The array literals stored in the memory at `data` (within a `Box<MaybeUninit<[T; N]>>`
    /// `vec![..]` fills): locations with elements by position.
    fn arrays_within(&self, data: &LocSet) -> Vec<LocId> {
        let mut found = Vec::new();
        let mut work: Vec<(LocId, u32)> = data.iter().map(|d| (d, 0)).collect();
        while let Some((l, depth)) = work.pop() {
            let children = &self.locs.get(l).children;
            if children.iter().any(|(p, _)| *p == Proj::Index)
                && children.iter().any(|(p, _)| matches!(p, Proj::Field(_)))
            {
                found.push(l);
                continue;
            }
            if depth < 4 {
                work.extend(
                    children
                        .iter()
                        .filter(|(p, _)| matches!(p, Proj::Field(_)))
                        .map(|&(_, c)| (c, depth + 1)),
                );
            }
        }
        found
    }

    /// What the memory at `data` holds (the values of its parts), as pointers and handles.
    fn stored_values(&self, data: &LocSet, state: &State) -> LocSet {
        let mut stored = LocSet::new();
        for s in data.iter() {
            let mut work = vec![(s, 0u32)];
            // A pointer to an element is the element (an array's first, `ptrs.as_ptr()`).
            let is_element = matches!(self.locs.get(s).parent, Some((_, Proj::Index)));
            while let Some((l, depth)) = work.pop() {
                if (l != s || is_element)
                    && let Some(v) = state.values.get(&l)
                {
                    stored.union_with(v);
                }
                if depth < 4 {
                    work.extend(
                        self.locs
                            .get(l)
                            .children
                            .iter()
                            .filter(|(p, _)| *p != Proj::Deref)
                            .map(|&(_, c)| (c, depth + 1)),
                    );
                }
            }
        }
        stored
    }

    /// A batch of copies (see [`Effect::BatchCopy`]).
    fn batch_copy(&mut self, call: &CallSite<'_, 'tcx>, dsts: u8, srcs: u8, attrs: u8, state: &mut State) {
        let Some(stream) = call.args.len().checked_sub(1) else {
            return;
        };
        let dst_data = self.pointees_of_array(call, dsts, state);
        let mut src_data = self.pointees_of_array(call, srcs, state);
        // Sources read during the call are done with when it returns.
        if self.batch_src_order(call, attrs) == Some(SRC_ACCESS_ORDER_DURING_API_CALL) {
            src_data = LocSet::new();
        }
        let streams = self.objects(call, stream as u8, state);
        self.enqueue(call, OpKind::Copy, streams, src_data, dst_data, state);
        if let Some(&id) = self.op_index.get(&(call.f, call.bb)) {
            self.machine.set_host_in_stream_order(id);
        }
    }

    /// The memory the pointers in the array argument `a` points to (`srcs.as_mut_ptr()`, a
    /// `Vec` of them).
    fn pointees_of_array(&mut self, call: &CallSite<'_, 'tcx>, a: u8, state: &State) -> LocSet {
        let v = self.arg(call, a, &LocSet::new());
        let mut elements = LocSet::new();
        for l in v.iter() {
            // A pointer to the first element, or to the array (or a `Vec`'s buffer).
            let element = match self.locs.get(l).parent {
                Some((_, Proj::Index)) => l,
                _ => self.locs.child(l, Proj::Index),
            };
            elements.union_with(&self.read_value(state, element));
        }
        let mut data = self.derive(state, &elements);
        data.retain(|l| matches!(self.locs.kind(l), LocKind::Data(k) if k != MemKind::Unknown));
        data
    }

    /// The `srcAccessOrder` the body (or its callers, for a helper) gives the batch's
    /// attributes (`CUmemcpyAttributes { srcAccessOrder: .., .. }` or a field assignment), when
    /// every one it gives is the same constant.
    fn batch_src_order(&self, call: &CallSite<'_, 'tcx>, _attrs: u8) -> Option<u128> {
        let mut found: Vec<u128> = Vec::new();
        let mut f = Some(call.f);
        for _ in 0..=MAX_INLINE_DEPTH {
            let Some(g) = f else { break };
            let body = self.frames[g.0 as usize].body;
            for op in src_orders_set_in(self.tcx, body) {
                for v in const_ints_of(self.tcx, self.typing_env, body, op, 4)? {
                    if !found.contains(&v) {
                        found.push(v);
                    }
                }
            }
            // Attributes a helper of the crate builds (`attributes(ORDER)`): what it sets,
            // from a constant or from the argument the body passes.
            for data in body.basic_blocks.iter() {
                let TerminatorKind::Call {
                    func,
                    args,
                    destination,
                    ..
                } = &data.terminator().kind
                else {
                    continue;
                };
                let is_attrs = matches!(destination.ty(&body.local_decls, self.tcx).ty.kind(),
                    ty::Adt(def, _) if is_memcpy_attributes(self.tcx, def.did()));
                let ty::FnDef(callee, _) = *func.ty(&body.local_decls, self.tcx).kind() else {
                    continue;
                };
                if !is_attrs || !callee.is_local() || !self.tcx.is_mir_available(callee) {
                    continue;
                }
                let inner = self.tcx.optimized_mir(callee);
                for op in src_orders_set_in(self.tcx, inner) {
                    let values = match const_ints_of(self.tcx, self.typing_env, inner, op, 4) {
                        Some(v) => v,
                        None => {
                            let param = param_source(inner, op, 4)?;
                            let arg = args.get(param.as_usize().checked_sub(1)?)?;
                            const_ints_of(self.tcx, self.typing_env, body, &arg.node, 4)?
                        }
                    };
                    for v in values {
                        if !found.contains(&v) {
                            found.push(v);
                        }
                    }
                }
            }
            f = self.frames[g.0 as usize].parent;
        }
        match found.as_slice() {
            [one] => Some(*one),
            _ => None,
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

    /// The constant integer field `field` of the struct argument `a` is, where the body builds
    /// it as a struct literal (through locals and helpers' parameters): `PinnedFlags {
    /// write_combined: true, ..Default::default() }`.
    pub(super) fn const_struct_field(&self, call: &CallSite<'_, 'tcx>, a: u8, field: u8) -> Option<u128> {
        let tcx = self.tcx;
        let env = self.typing_env;
        let eval = |body: &'a Body<'tcx>, op: &Operand<'tcx>| -> Option<Vec<u128>> {
            // A constant struct (a `const` item, or a literal the compiler made one).
            if let Operand::Constant(c) = op {
                let ty = c.ty();
                if ty.has_non_region_param() {
                    return None;
                }
                let value = c.const_.eval(tcx, env, c.span).ok()?;
                let fields = tcx.try_destructure_mir_constant_for_user_output(value, ty)?;
                let (field_value, _) = fields.fields.get(field as usize)?;
                return Some(vec![field_value.try_to_scalar_int()?.to_bits_unchecked()]);
            }
            let mut local = op.place()?.as_local()?;
            // Through plain copies to the struct literal.
            for _ in 0..4 {
                let mut next = None;
                for data in body.basic_blocks.iter() {
                    for stmt in &data.statements {
                        let StatementKind::Assign(box (dest, rv)) = &stmt.kind else {
                            continue;
                        };
                        if dest.as_local() != Some(local) {
                            continue;
                        }
                        match rv {
                            Rvalue::Aggregate(_, fields) => {
                                let op = fields.iter().nth(field as usize)?;
                                return const_ints_of(tcx, env, body, op, 4);
                            }
                            Rvalue::Use(Operand::Copy(p) | Operand::Move(p), _) => next = p.as_local(),
                            _ => return None,
                        }
                    }
                }
                local = next?;
            }
            None
        };
        match self.through_helpers(call, a, eval).0?.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }

    /// How many bytes argument `a` spans, where it names a whole owner (`&CudaSlice<T>`,
    /// `&Vec<T>`, `&[T; N]`, or a slice coerced from a reference to one of them right there:
    /// not a slice of a part, `&v[..k]`) and the size of every allocation it may be (`data`)
    /// is known: the least of them.
    fn whole_arg_bytes(&mut self, call: &CallSite<'_, 'tcx>, a: u8, data: &LocSet) -> Option<u64> {
        if !self.body_scannable(call.f) {
            return None;
        }
        let tcx = self.tcx;
        let whole = self
            .through_helpers(call, a, |body, op| names_whole_owner(tcx, body, op, 3).then_some(()))
            .0
            .is_some();
        if !whole || data.is_empty() {
            return None;
        }
        self.note_stack_sizes(data);
        let regions = self.regions();
        let mut least: Option<u64> = None;
        for l in data.iter() {
            let b = cuda_lint_machine::Regions::bytes(&regions, l)?;
            least = Some(least.map_or(b, |x| x.min(b)));
        }
        least
    }

    /// Drops from `data` the host memory an argument cannot be when its type (references
    /// peeled) is a handle of device memory: a part of a container the analysis took the
    /// handle's place for.
    fn keep_what_the_handle_type_allows(&self, call: &CallSite<'_, 'tcx>, a: u8, data: &mut LocSet) {
        let Some(arg) = call.args.get(a as usize) else { return };
        let body = self.frames[call.f.0 as usize].body;
        let mut ty = self.instantiate(call.f, arg.node.ty(&body.local_decls, self.tcx));
        while let ty::Ref(_, inner, _) = ty.kind() {
            ty = *inner;
        }
        if matches!(self.rs.role(ty), Some(Target::Mem(k)) if k.is_device_only()) {
            data.retain(|l| !matches!(self.locs.kind(l), LocKind::Data(MemKind::Pageable)));
        }
    }

    /// The constant an argument is, as a `u64` (a byte count, an element count), built of
    /// constants where an inlined helper computes it from its parameters (`count * 4`).
    fn const_u64(&self, call: &CallSite<'_, 'tcx>, a: u8) -> Option<u64> {
        let op = &call.args.get(a as usize)?.node;
        match self.frame_const_ints(call.f, op, 6)?.as_slice() {
            [one] => u64::try_from(*one).ok(),
            _ => None,
        }
    }

    /// The constant values `op` may be in frame `f`, its parameters answered by what the call
    /// that entered the frame passes (a few helpers deep).
    fn frame_const_ints(&self, f: FrameId, op: &Operand<'tcx>, depth: u32) -> Option<Vec<u128>> {
        let frame = &self.frames[f.0 as usize];
        let params = |param: Local| -> Option<Vec<u128>> {
            if depth == 0 || self.tcx.is_closure_like(frame.def_id) {
                return None;
            }
            let (parent, bb) = (frame.parent?, frame.called_at?);
            let TerminatorKind::Call { args, .. } =
                &self.frames[parent.0 as usize].body.basic_blocks[bb].terminator().kind
            else {
                return None;
            };
            let arg = args.get(param.as_usize() - 1)?;
            self.frame_const_ints(parent, &arg.node, depth - 1)
        };
        const_ints_with(self.tcx, self.typing_env, frame.body, op, 4, &params)
    }

    /// An allocation stores its new memory in `slot`, where the only pointer to memory made
    /// before was (this call's in the round before, or another call's), and nothing released
    /// that: it is lost. (This call's own only where it runs in every round: `if p.is_null()
    /// { alloc(&mut p) }` in a loop allocates once.)
    fn overwritten_allocation(&mut self, call: &CallSite<'_, 'tcx>, slot: Option<LocId>, new: LocId, state: &State) {
        let Some(slot) = slot else { return };
        if !self.reporting {
            return;
        }
        // An element of a collection (`for slot in raw.iter_mut() { cudaMalloc(slot, ..) }`) is
        // one location for all of them: what it held is another element's, not overwritten.
        if matches!(self.locs.get(slot).parent, Some((_, Proj::Index))) {
            return;
        }
        let Some(old) = state.values.get(&slot) else { return };
        let unreleased = state.m.unreleased();
        let mut lost = LocSet::new();
        for l in old.iter() {
            let root = self.locs.data_root(l);
            if !unreleased.contains(root) || lost.contains(root) {
                continue;
            }
            // Held anywhere else (another variable, pushed to a `Vec`, stored in a struct) it
            // is not lost; a compiler temporary (an argument copied for a call) holds nothing.
            let elsewhere = state
                .values
                .iter()
                .any(|(&h, v)| h != slot && !self.is_temporary(h) && v.iter().any(|x| self.locs.data_root(x) == root));
            if elsewhere || (root == self.locs.data_root(new) && !self.runs_every_round(call.f, call.bb)) {
                continue;
            }
            lost.insert(root);
        }
        if !lost.is_empty() {
            self.origins_at_root_calls = true;
            self.emit(call.f, call.span, call.si, Event::Reallocated { lost: &lost }, state);
            self.origins_at_root_calls = false;
        }
    }

    /// Whether `l` is a local the compiler made (no variable of the program's).
    fn is_temporary(&self, l: LocId) -> bool {
        let d = self.locs.get(l);
        match d.root {
            Root::Local { frame, local } if d.parent.is_none() => {
                let body = self.frames[frame.0 as usize].body;
                // A variable of the program's has a name in the debug information.
                local.as_usize() > body.arg_count
                    && !body
                        .var_debug_info
                        .iter()
                        .any(|v| matches!(v.value, VarDebugInfoContents::Place(p) if p.local == local))
            }
            _ => false,
        }
    }

    /// Tells the lints that a copy or memset dereferences argument `a`, whose memory is `data`
    /// (`role`: how), covering the call's constant byte count where it has one. An argument
    /// with no memory that is a null pointer written in the program (`0`, `null_mut()`, and
    /// never given memory since) is the null location.
    pub(super) fn deref_event(
        &mut self,
        call: &CallSite<'_, 'tcx>,
        a: u8,
        data: &LocSet,
        role: DerefRole,
        state: &State,
    ) {
        if !self.reporting {
            return;
        }
        // A scalar or a struct on the stack (`&mut count as *mut u32`) is no `Data` location,
        // yet a copy given its address must fit in it.
        let mut data = data.clone();
        let given = self.arg(call, a, &LocSet::new());
        for l in self.derive(state, &given).iter() {
            if self.locs.kind(l) == LocKind::Plain
                && self.locs.enclosing_stack_value(l) == Some(l)
                && self.locs.get(l).ty.is_some_and(|t| !self.locs.holds_pointers(t))
            {
                data.insert(l);
            }
        }
        // A pointer the program sets to null and nothing else (what it points to, here, is a
        // placeholder for memory never given).
        // (Asked only where the argument reaches no memory an allocation made: a copy of a
        // buffer the program allocated is no null pointer's.)
        let made = data.iter().any(|l| self.locs.get(self.locs.data_root(l)).allocated);
        let regions = if !made && self.is_surely_null_arg(call, a) {
            LocSet::single(self.locs.null_pointer(call.span))
        } else if !data.is_empty() {
            self.note_stack_sizes(&data);
            data
        } else {
            return;
        };
        // A copy at a constant offset past the pointer's memory (`d + FIELD_BYTES`) ends that
        // much further from its start; an offset not known counts nothing.
        let offset = if self.copy_count.is_some() {
            self.const_offset_arg(call, a).unwrap_or(0)
        } else {
            0
        };
        let event = Event::Deref {
            regions: &regions,
            role,
            bytes: self.copy_count.and_then(|c| c.checked_add(offset)),
        };
        self.emit(call.f, call.span, call.si, event, state);
    }

    /// The memory `root` was made (again) holding `size` bytes (`None`: not a constant): it
    /// holds the most of every time it was made, if each is known.
    pub(super) fn record_size(&mut self, root: LocId, size: Option<u64>) {
        let attrs = self.attrs.entry(root).or_default();
        match size {
            Some(size) if !attrs.size_unknown => attrs.bytes = Some(attrs.bytes.map_or(size, |b| b.max(size))),
            _ => {
                attrs.size_unknown = true;
                attrs.bytes = None;
            }
        }
    }

    /// Forgets the sizes of the buffers `data` is in (a call that may grow them).
    pub(super) fn forget_sizes(&mut self, data: &LocSet) {
        for l in data.iter() {
            let whole = self.locs.whole_of_elements(l);
            if let Some(a) = self.attrs.get_mut(&whole)
                && a.bytes.is_some()
                && a.allocator == Some(cuda_lint_machine::Allocator::RustHeap)
            {
                a.size_unknown = true;
            }
        }
    }

    /// Records the size of each location in `data` that is a whole variable on the stack (a
    /// scalar, an array, a struct: `&mut x as *mut _`), from its type's layout.
    fn note_stack_sizes(&mut self, data: &LocSet) {
        for l in data.iter() {
            let l = self.locs.whole_of_elements(l);
            if self.locs.enclosing_stack_value(l) != Some(l) || self.attrs.get(&l).is_some_and(|a| a.bytes.is_some()) {
                continue;
            }
            let Some(ty) = self.locs.get(l).ty else {
                continue;
            };
            if let Ok(layout) = self.tcx.layout_of(self.typing_env.as_query_input(ty))
                && layout.is_sized()
            {
                self.attrs.entry(l).or_default().bytes = Some(layout.size.bytes());
            }
        }
    }

    /// Whether the body of frame `f` is small enough for the questions answered by reading all
    /// of it (a local's every assignment and borrow: `surely_null_in_body`,
    /// `const_offset_in_body`, `names_whole_owner`), asked at each copy: in a larger body each
    /// would cost as much as the body, and their answers (a null pointer, an offset) are left
    /// unknown there, which only ever means no finding.
    fn body_scannable(&self, f: FrameId) -> bool {
        self.frames[f.0 as usize].body.basic_blocks.len() <= MAX_SCANNED_BLOCKS
    }

    /// How far past its memory's pointer argument `a` points, where that is a sum of constants
    /// (see `const_offset_in_body`).
    fn const_offset_arg(&self, call: &CallSite<'_, 'tcx>, a: u8) -> Option<u64> {
        if !self.body_scannable(call.f) {
            return None;
        }
        let tcx = self.tcx;
        let env = self.typing_env;
        self.through_helpers(call, a, |body, op| const_offset_in_body(tcx, env, body, op, 6))
            .0
    }

    /// Whether argument `a` is surely a null pointer: zero or `null_mut()` written in the
    /// program, through locals that nothing borrows or assigns otherwise, followed through
    /// inlined helpers' parameters to what their callers pass.
    fn is_surely_null_arg(&self, call: &CallSite<'_, 'tcx>, a: u8) -> bool {
        if !self.body_scannable(call.f) {
            return false;
        }
        let tcx = self.tcx;
        let env = self.typing_env;
        let rs = self.rs;
        let zero = |s: DefId| rs.static_stays_zero(s);
        if self
            .through_helpers(call, a, |body, op| {
                surely_null_in_body(tcx, env, body, op, 4, &zero).then_some(())
            })
            .0
            .is_some()
        {
            return true;
        }
        // A helper given the struct by reference (`clear(&bufs)` reading `bufs.output`): the
        // field of the caller's struct.
        let Some(arg) = call.args.get(a as usize) else {
            return false;
        };
        let frame = &self.frames[call.f.0 as usize];
        let body = frame.body;
        let Some(place) = copied_place(body, &arg.node, 4) else {
            return false;
        };
        let [ProjectionElem::Deref, ProjectionElem::Field(field, _)] = place.projection.as_slice() else {
            return false;
        };
        let Some(param) = param_source(body, &Operand::Copy(place.local.into()), 4) else {
            return false;
        };
        let (Some(parent), Some(bb)) = (frame.parent, frame.called_at) else {
            return false;
        };
        let parent_body = self.frames[parent.0 as usize].body;
        let TerminatorKind::Call { args, .. } = &parent_body.basic_blocks[bb].terminator().kind else {
            return false;
        };
        let Some(given) = args.get(param.as_usize() - 1).and_then(|g| g.node.place()) else {
            return false;
        };
        // `_t = &bufs` (a shared borrow of the whole struct), passed as `move _t`.
        if !given.projection.is_empty() {
            return false;
        }
        let borrowed = parent_body
            .basic_blocks
            .iter()
            .flat_map(|d| &d.statements)
            .find_map(|stmt| match &stmt.kind {
                StatementKind::Assign(box (dest, Rvalue::Ref(_, mir::BorrowKind::Shared, src)))
                    if dest.local == given.local && src.projection.is_empty() =>
                {
                    Some(src.local)
                }
                _ => None,
            });
        borrowed.is_some_and(|local| field_surely_null(tcx, env, parent_body, local, *field, 4, &zero))
    }

    /// The constant integer an argument is (an enum's discriminant included), if it is one.
    pub(super) fn const_int(&self, call: &CallSite<'_, 'tcx>, a: u8) -> Option<u128> {
        let eval = |body: &'a Body<'tcx>, op: &Operand<'tcx>| const_ints_of(self.tcx, self.typing_env, body, op, 4);
        match self.through_helpers(call, a, eval).0?.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }

    /// Memory an allocation site makes: when the site runs again (a loop, a helper called
    /// again), the object is new, and the work started before used the old one.
    fn renew(&mut self, call: &CallSite<'_, 'tcx>, target: Target, new: LocId, state: &mut State) {
        if matches!(target, Target::Mem(_)) {
            // Made again while the one made before is still held (in a loop that keeps each
            // buffer): the location stands for all of them. (Only a call in a loop can be made
            // again: the scan is not paid on straight-line code.)
            if !self.attrs.get(&new).is_some_and(|a| a.one_of_many)
                && self.in_a_loop_here(call.f, call.bb)
                && state.values.iter().any(|(_, v)| v.contains(new))
            {
                self.attrs.entry(new).or_default().one_of_many = true;
            }
            self.machine.renew(&mut state.m, &LocSet::single(new));
        }
    }

    /// Reports an asynchronous copy with host side `host` (written as argument `host_arg`).
    pub(super) fn async_copy_event(
        &mut self,
        call: &CallSite<'_, 'tcx>,
        host: &LocSet,
        host_arg: u8,
        dir: Dir,
        count: Option<u64>,
        state: &State,
    ) {
        let dir = match dir {
            Dir::HostToDevice => cuda_lint_machine::Dir::HostToDevice,
            Dir::DeviceToHost => cuda_lint_machine::Dir::DeviceToHost,
            Dir::DeviceToDevice => cuda_lint_machine::Dir::DeviceToDevice,
            Dir::Infer | Dir::KindArg(_) => cuda_lint_machine::Dir::Unknown,
        };
        let event = Event::AsyncCopy {
            host,
            dir,
            host_arg: call.args.get(host_arg as usize).map(|a| a.span),
            bytes: match (count, self.host_bytes(host)) {
                (Some(c), Some(b)) => Some(c.min(b)),
                (c, b) => c.or(b),
            },
            advice: &self.family.advice,
        };
        self.emit(call.f, call.span, call.si, event, state);
    }

    /// Whether the call being applied is one of the driver's or the runtime's C functions
    /// (through `extern "C"`, cudarc's `sys` or `result` layers).
    fn calls_c_function(&self, _call: &CallSite<'_, 'tcx>) -> bool {
        std::ptr::eq(self.family, &crate::api::cuda_driver::FAMILY)
            || std::ptr::eq(self.family, &crate::api::cuda_runtime::FAMILY)
    }

    /// The most bytes a copy's host side may span, when each location it may be lies in a
    /// variable on the stack (a scalar, an array, a struct: a copy cannot reach past it); `None`
    /// when one may be heap memory (a `Vec`'s, a slice's, raw memory) or a type of unknown size.
    fn host_bytes(&self, host: &LocSet) -> Option<u64> {
        let mut most = None;
        for l in host.iter() {
            let var = self.locs.enclosing_stack_value(l)?;
            let ty = self.locs.get(var).ty?;
            let layout = self.tcx.layout_of(self.typing_env.as_query_input(ty)).ok()?;
            most = Some(most.unwrap_or(0).max(layout.size.bytes()));
        }
        most
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
        // Which arguments the kernel may write through, when its source is visible (the others
        // it only loads from); else every argument may be written.
        let written = if apart {
            self.kernel_writes(kernels, slots.len())
        } else {
            None
        };
        let keep = |this: &Self, set: &mut LocSet| {
            set.retain(|l| this.can_be_in_flight(l, state) || !matches!(this.locs.kind(l), LocKind::Data(_)));
        };
        let mut touched = LocSet::new();
        let mut writes = LocSet::new();
        for (i, slot) in slots.iter().enumerate() {
            touched.union_with(slot);
            if written.as_ref().is_none_or(|w| w[i]) {
                writes.union_with(slot);
            }
        }
        keep(self, &mut touched);
        keep(self, &mut writes);
        if self.reporting {
            // What the kernel's source says matters only to a launch given VMM mappings (two
            // of them may alias): elsewhere it is not asked (it may ask the whole crate who
            // calls the linted function, which would tie this module's result to every body).
            let maps = slots.iter().any(|s| {
                s.iter().any(|l| {
                    [l, self.locs.data_root(l)]
                        .iter()
                        .any(|&x| matches!(self.locs.kind(x), LocKind::Data(MemKind::VmmMapping)))
                })
            });
            let verdict = if maps { self.kernel_verdict(kernels) } else { None };
            self.launch_event(call, verdict, &slots, apart, written.as_deref(), state);
        }
        // What the kernel's source says of each argument: the memory it only loads from is
        // read (`uninitialized_device_read`); what it surely stores into holds its output.
        let uses = if apart {
            self.kernel_param_uses(kernels, slots.len())
        } else {
            None
        };
        if let Some(uses) = &uses {
            let mut per_arg = Vec::new();
            let sources = std::mem::take(&mut self.slot_sources);
            for (i, (slot, (u, w))) in slots.iter().zip(uses.iter().zip(written.iter().flatten())).enumerate() {
                let mut data = slot.clone();
                data.retain(|l| matches!(self.locs.kind(l), LocKind::Data(_)));
                // A null pointer the kernel dereferences without testing it (what the variable
                // points to, if anything, is a placeholder for memory never given).
                let null = u.used
                    && !u.null_tested
                    && self.reporting
                    && sources.get(i).is_some_and(|s| self.surely_null_variables(s));
                if null {
                    data = LocSet::new();
                }
                if null {
                    let null = LocSet::single(self.locs.null_pointer(call.span));
                    let role = if u.loads_only {
                        DerefRole::KernelReads
                    } else {
                        DerefRole::KernelUses
                    };
                    let event = Event::Deref {
                        regions: &null,
                        role,
                        bytes: None,
                    };
                    self.emit(call.f, call.span, call.si, event, state);
                }
                if u.used && u.loads_only && !data.is_empty() && self.reporting {
                    let event = Event::Deref {
                        regions: &data,
                        role: DerefRole::KernelReads,
                        bytes: None,
                    };
                    self.emit(call.f, call.span, call.si, event, state);
                }
                if *w {
                    per_arg.push((data, u.stores));
                }
            }
            self.launch_writes_per_arg = Some(per_arg);
        }
        // Without the kernel's source, every argument is taken to be written: assumed, not seen.
        self.launch_writes_unseen = written.is_none();
        if !state.capturing.is_empty() {
            self.capture_slots = Some(slots.clone());
        }
        self.enqueue(call, OpKind::Launch, streams, touched, writes, state);
        self.capture_slots = None;
        self.launch_writes_unseen = false;
    }

    /// The memory each kernel argument reaches, one set per argument when the argument list
    /// is an array literal (`&[&a, &b, &n]`), else one set for all (`false`).
    pub(super) fn arg_slots(&mut self, state: &State, argv: &LocSet) -> (Vec<LocSet>, bool) {
        // By slot number (a position, or a launch builder's `.arg(..)` call site): sparse.
        let mut slots: BTreeMap<u32, LocSet> = BTreeMap::new();
        let mut sources: BTreeMap<u32, LocSet> = BTreeMap::new();
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
                sources.entry(i).or_default().union_with(&values);
                let mut reached = self.reach_args(state, &values);
                reached.union_with(&self.through_device_tables(state, &reached));
                slots.entry(i).or_default().union_with(&reached);
            }
        }
        if slots.is_empty() {
            let mut reached = self.reach_args(state, argv);
            reached.union_with(&self.through_device_tables(state, &reached));
            self.slot_sources = vec![argv.clone()];
            (vec![reached], false)
        } else {
            self.slot_sources = sources.into_values().collect();
            (slots.into_values().collect(), true)
        }
    }

    /// Whether `sources` (what a kernel argument points to: the variables holding its value)
    /// are only variables that hold a null pointer on every path (`let d: CUdeviceptr = 0;`
    /// never given memory since).
    fn surely_null_variables(&self, sources: &LocSet) -> bool {
        !sources.is_empty()
            && sources.iter().all(|l| match self.locs.get(l).root {
                Root::Local { frame, .. } => self.body_scannable(frame),
                _ => true,
            })
            && sources.iter().all(|l| {
                let d = self.locs.get(l);
                match d.root {
                    Root::Local { frame, local } if d.parent.is_none() => {
                        let body = self.frames[frame.0 as usize].body;
                        let rs = self.rs;
                        surely_null_in_body(self.tcx, self.typing_env, body, &Operand::Copy(local.into()), 4, &|s| {
                            rs.static_stays_zero(s)
                        })
                    }
                    Root::Static { def_id } if d.parent.is_none() => self.rs.static_stays_zero(def_id),
                    _ => false,
                }
            })
    }

    /// CUDA-aware MPI's call uses `data` on the host's timeline (see `Effect::UsedByLibrary`).
    fn library_access(
        &mut self,
        call: &CallSite<'_, 'tcx>,
        data: &LocSet,
        write: bool,
        name: &'static str,
        state: &mut State,
    ) {
        if data.is_empty() {
            return;
        }
        if self.reporting {
            let access = if write { Access::Write } else { Access::Read };
            let event = Event::LibraryAccess {
                regions: data,
                access,
                call: name,
            };
            self.emit(call.f, call.span, call.si, event, state);
        }
        let regions = self.regions();
        self.machine.host_touched(&mut state.m, data, write, &regions);
    }

    /// A new request, made by the nonblocking call and stored where its argument `a` points
    /// (`&mut req`, `&mut reqs[1]`): a handle, copied by value (`reqs[0] = post_recv(..)`).
    fn new_request(
        &mut self,
        call: &CallSite<'_, 'tcx>,
        a: crate::api::Arg,
        ret: &LocSet,
        state: &mut State,
    ) -> LocSet {
        let new = self.locs.fresh(
            call.f,
            call.bb,
            REQUEST_SLOT,
            Target::Obj(ObjKind::Request),
            call.span,
            None,
        );
        self.machine.set_request(new);
        let slots = self.arg(call, a, ret);
        // An element of an array (`&mut reqs[1]`) is one location for all of them: the others'
        // requests stay.
        let element = |l: LocId| matches!(self.locs.get(l).parent, Some((_, Proj::Index)));
        let strong = slots.len() == 1 && !slots.iter().any(element);
        for slot in slots.iter() {
            self.store(state, slot, &LocSet::single(new), strong);
        }
        LocSet::single(new)
    }

    /// The requests held where argument `a` points (`&mut req`, and an array of them:
    /// `reqs.as_mut_ptr()`, whose elements are all of them). Empty where none is known.
    fn requests_held(&mut self, call: &CallSite<'_, 'tcx>, a: crate::api::Arg, ret: &LocSet, state: &State) -> LocSet {
        let places = self.arg(call, a, ret);
        let mut held = LocSet::new();
        for p in places.iter() {
            held.union_with(&self.read_value(state, p));
            let element = self.locs.child(p, Proj::Index);
            held.union_with(&self.read_value(state, element));
        }
        held.intersect_with(self.machine.requests());
        held
    }

    /// A nonblocking operation that reads `reads` and writes `writes` until `requests` complete
    /// (`MPI_Irecv`).
    fn start_request(
        &mut self,
        call: &CallSite<'_, 'tcx>,
        requests: &LocSet,
        reads: &LocSet,
        writes: &LocSet,
        state: &mut State,
    ) {
        if requests.is_empty() || (reads.is_empty() && writes.is_empty()) {
            return;
        }
        let id = self.op_at(call, OpKind::Request, &MPI_ADVICE);
        self.machine.add_uses(id, requests, reads, writes);
        // It holds pageable memory too, until completed.
        self.machine.set_host_in_stream_order(id);
        self.emit(call.f, call.span, call.si, Event::Enqueue { op: id }, state);
        self.machine.start(&mut state.m, id);
        for per_variant in state.running_when.values_mut() {
            for ops in per_variant.values_mut() {
                ops.insert(id);
            }
        }
    }

    /// `MPI_Wait`, `MPI_Waitall`, a polled `MPI_Test`: the operations on `requests` finish. No
    /// request known (held where the analysis did not follow it) may be any.
    /// `over_collection`: by a test in a loop, or a wait over an array's requests (see
    /// [`cuda_lint_machine::Machine::complete_requests`]).
    fn complete_requests(&mut self, requests: &LocSet, over_collection: bool, state: &mut State) {
        // Not `record_wait_loop`: the request was started before the polling loop, and a loop
        // around both (a time step) starts it again each round, so nothing of a later round is
        // left "before the wait".
        self.machine.complete_requests(&mut state.m, requests, over_collection);
    }

    /// The operation of the call (one for every execution of it), made the first time with
    /// `advice`.
    fn op_at(&mut self, call: &CallSite<'_, 'tcx>, kind: OpKind, advice: &'static cuda_lint_machine::Advice) -> OpId {
        if let Some(&id) = self.op_index.get(&(call.f, call.bb)) {
            return id;
        }
        let id = self.machine.new_op(kind, advice);
        self.op_sites.push((call.f, call.span));
        self.op_blocks.push(call.bb);
        self.op_index.insert((call.f, call.bb), id);
        id
    }

    /// Enqueues an operation: the lints see it against the work already in flight, then it starts.
    /// Reports a call of a kind stream capture restricts, made while a stream captures (the
    /// lint decides whether the capture's mode forbids it).
    fn capture_event(&mut self, call: &CallSite<'_, 'tcx>, rule: CaptureRule, state: &State) {
        // Evidence: a capture under way on every path here, not on one that left it early.
        if (state.capturing_must.is_empty() && rule != CaptureRule::CaptureOnLegacy) || state.returning_error {
            return;
        }
        let name = self.called_name.clone().unwrap_or_else(|| "this call".to_string());
        // A stream made where the analysis cannot see is not known to be blocking.
        let blocking = state.capturing.iter().any(|s| {
            matches!(self.locs.kind(s), LocKind::Object(ObjKind::Stream))
                && !self.machine.is_legacy(s)
                && !self.machine.is_non_blocking(s)
                && !self.unknown_identity_stream(s)
        });
        let captured = state
            .building
            .iter()
            .find_map(|g| self.graphs.get(&g).map(|held| held.site));
        self.emit(
            call.f,
            call.span,
            call.si,
            Event::DuringCapture {
                call: &name,
                rule,
                strict: state.capture_strict,
                blocking,
                captured,
            },
            state,
        );
    }

    /// The kinds of call stream capture restricts, made while a stream captures: waits for
    /// capturing streams or the context, synchronous copies and memsets, allocations and frees
    /// that are not stream-ordered (of the CUDA APIs, not the standard library's), batches.
    pub(super) fn check_capture(&mut self, call: &CallSite<'_, 'tcx>, effects: &[Effect], cuda: bool, state: &State) {
        let stream_ordered = effects.iter().any(|e| matches!(e, Effect::AllocatedOn(_)));
        let mut rule = None;
        for e in effects {
            rule = match *e {
                Effect::SyncContext | Effect::SyncContextOf(_) => Some(CaptureRule::SyncsCapture),
                Effect::SyncStream(s) | Effect::QueryStream(s) if s != LEGACY => {
                    let streams = self.objects(call, s, state);
                    streams
                        .iter()
                        .any(|s| state.capturing.contains(s))
                        .then_some(CaptureRule::SyncsCapture)
                }
                Effect::SyncEvent(e) | Effect::QueryEvent(e) => {
                    let events = self.objects(call, e, state);
                    events
                        .iter()
                        .any(|e| state.capturing.contains(e))
                        .then_some(CaptureRule::SyncsCapture)
                }
                Effect::Copy { is_async: false, .. } | Effect::Memset { is_async: false, .. } if cuda => {
                    Some(CaptureRule::SynchronousWork)
                }
                Effect::New(Target::Mem(k))
                | Effect::NewOut {
                    target: Target::Mem(k), ..
                } if cuda && !stream_ordered && k != MemKind::Pageable => Some(CaptureRule::PotentiallyUnsafe),
                Effect::Free { .. } if cuda => Some(CaptureRule::PotentiallyUnsafe),
                Effect::BatchCopy { .. } => Some(CaptureRule::Unsupported),
                _ => None,
            };
            if rule.is_some() {
                break;
            }
        }
        if let Some(rule) = rule {
            self.capture_event(call, rule, state);
        }
    }

    /// The library handles argument `a` refers to.
    fn library_handles(&mut self, call: &CallSite<'_, 'tcx>, a: u8, state: &State) -> LocSet {
        let mut h = self.objects(call, a, state);
        h.retain(|l| matches!(self.locs.kind(l), LocKind::Object(ObjKind::LibraryHandle)));
        h
    }

    /// A library routine: work on its handle's stream (or its stream argument) that reads and
    /// writes what its pointer arguments refer to (see [`Effect::LibraryWork`]).
    fn library_work(
        &mut self,
        call: &CallSite<'_, 'tcx>,
        on: crate::api::LibraryStream,
        reads: &[u8],
        writes: &[u8],
        result: Option<u8>,
        state: &mut State,
    ) {
        let device_mode = match on {
            crate::api::LibraryStream::Handle(h) => self
                .library_handles(call, h, state)
                .iter()
                .any(|h| self.device_pointer_mode.contains(&h)),
            crate::api::LibraryStream::Stream(_) => false,
        };
        let streams = match on {
            crate::api::LibraryStream::Stream(s) => self.streams(call, s, state),
            crate::api::LibraryStream::Handle(h) => {
                let handles = self.library_handles(call, h, state);
                // No handle the analysis knows (a raw handle from code it cannot see, maybe a
                // host generator's): no work it can speak of.
                if handles.is_empty() {
                    return;
                }
                let held: Vec<LocSet> = handles
                    .iter()
                    .map(|h| state.values.get(&h).cloned().unwrap_or_default())
                    .collect();
                // A handle made where the analysis cannot see, or one whose stream it does not
                // know, runs on a stream it does not know.
                if held.is_empty() || held.iter().any(LocSet::is_empty) {
                    LocSet::new()
                } else {
                    held.into_iter().fold(LocSet::new(), |mut all, s| {
                        all.union_with(&s);
                        all
                    })
                }
            }
        };
        let used = |this: &mut Self, args: &[u8], state: &State| {
            let mut all = LocSet::new();
            for &a in args {
                let mut data = this.data_arg(call, a, &LocSet::new(), state);
                data.retain(|l| this.can_be_in_flight(l, state));
                all.union_with(&data);
            }
            all
        };
        let read = used(self, reads, state);
        let mut written = used(self, writes, state);
        // A scalar result: into device memory, written on the stream; into host memory, the call
        // returns once it is written, which waits for the stream.
        let (result_memory, on_host) = match result {
            Some(r) => {
                let m = self.data_arg(call, r, &LocSet::new(), state);
                let host = !device_mode
                    && !m.is_empty()
                    && m.iter()
                        .all(|l| !matches!(self.locs.kind(l), LocKind::Data(k) if k.is_device_only()));
                (m, host)
            }
            None => (LocSet::new(), false),
        };
        if !on_host {
            written.union_with(&result_memory);
        }
        self.enqueue(call, OpKind::Library, streams.clone(), read, written, state);
        // On the legacy stream because its handle's stream was never set.
        let unset = match on {
            crate::api::LibraryStream::Handle(h) => {
                let handles = self.library_handles(call, h, state);
                !handles.is_empty() && handles.iter().all(|h| self.unset_handles.contains(&h))
            }
            crate::api::LibraryStream::Stream(_) => false,
        };
        if unset && !streams.is_empty() && streams.iter().all(|s| self.machine.is_legacy(s)) {
            let op = self.op_at(call, OpKind::Library, &self.family.advice);
            self.machine.add_note(op, cuda_lint_machine::UNSET_HANDLE_NOTE);
        }
        if on_host {
            self.machine.sync_streams(&mut state.m, &streams);
        }
    }

    pub(super) fn enqueue(
        &mut self,
        call: &CallSite<'_, 'tcx>,
        kind: OpKind,
        streams: LocSet,
        reads: LocSet,
        writes: LocSet,
        state: &mut State,
    ) {
        // Work on the legacy default stream while a stream captures.
        if !state.capturing.is_empty() && !streams.is_empty() && streams.iter().all(|s| self.machine.is_legacy(s)) {
            self.capture_event(call, CaptureRule::LegacyStreamWork, state);
        }
        // Captured into a graph: it runs when the graph is launched, reading and writing its
        // memory then; cudarc's tracking records nothing here that a wait could rely on.
        if !streams.is_empty() && streams.iter().all(|s| state.capturing.contains(s)) {
            self.call_tracking = None;
            self.launch_writes_per_arg = None;
            // A launch's arguments one by one; a copy's source and destination.
            let slots = self
                .capture_slots
                .take()
                .unwrap_or_else(|| vec![reads.clone(), writes.clone()]);
            for g in state.building.iter() {
                if let Some(held) = self.graphs.get_mut(&g) {
                    held.reads.union_with(&reads);
                    held.writes.union_with(&writes);
                    for slot in &slots {
                        if !slot.is_empty() && !held.slots.contains(slot) {
                            held.slots.push(slot.clone());
                        }
                    }
                }
            }
            let mut used = reads;
            used.union_with(&writes);
            let regions = self.regions();
            self.machine.handed_over(&mut state.m, &used, &regions);
            return;
        }
        let id = self.op_at(call, kind, &self.family.advice);
        self.machine.add_uses(id, &streams, &reads, &writes);
        if self.launch_writes_unseen {
            self.machine.set_writes_unseen(id);
        }
        // A cudarc call that records events first waits for the events on what it uses.
        let tracking = self.call_tracking.take().map(|call_tracking| {
            let mut used = reads.clone();
            used.union_with(&writes);
            let regions = self.regions();
            let tracked = cudarc::before_enqueue(
                &self.machine,
                &mut state.m,
                &call_tracking,
                kind,
                &used,
                &streams,
                &regions,
            );
            (call_tracking, tracked)
        });
        self.emit(call.f, call.span, call.si, Event::Enqueue { op: id }, state);
        self.machine.start(&mut state.m, id);
        // Where the code tests the call's status, nothing runs on the branch where it failed.
        self.enqueued_by_call.get_or_insert_default().insert(id);
        // What it does to the contents of memory: written, read, a kernel's output.
        let writes_per_arg = self
            .launch_writes_per_arg
            .take()
            .unwrap_or_else(|| vec![(writes.clone(), false)]);
        let regions = self.regions();
        self.machine
            .contents_used(&mut state.m, id, &reads, &writes_per_arg, &regions);
        // Running now, whatever variant any enum is (see `State::running_when`).
        for per_variant in state.running_when.values_mut() {
            for ops in per_variant.values_mut() {
                ops.insert(id);
            }
        }
        if let Some((call_tracking, tracked)) = tracking {
            cudarc::after_enqueue(&mut self.machine, &mut state.m, id, call_tracking, tracked);
        }
    }

    /// Reports a launch whose arguments reach `slots` (see [`Self::arg_slots`]); `written`: which
    /// of them the kernel may write through, when known.
    pub(super) fn launch_event(
        &mut self,
        call: &CallSite<'_, 'tcx>,
        kernel: Option<Kernel>,
        slots: &[LocSet],
        apart: bool,
        written: Option<&[bool]>,
        state: &State,
    ) {
        let event = Event::Launch {
            slots,
            apart,
            written,
            kernel: kernel.as_ref(),
        };
        self.emit(call.f, call.span, call.si, event, state);
    }

    pub(super) fn drop_place(
        &mut self,
        f: FrameId,
        bb: BasicBlock,
        place: Place<'tcx>,
        si: SourceInfo,
        state: &mut State,
    ) {
        let body = self.frames[f.0 as usize].body;
        let ty = self.instantiate(f, place.ty(&body.local_decls, self.tcx).ty);
        let locs = self.place(f, place, state);
        self.drop_at(f, bb, ty, &locs, si, state, 0);
    }

    /// Drops the value of type `ty` held at `locs`, as drop glue does: a type the tables know
    /// frees what it owns; a type of the crate with its own `Drop` impl runs it (inline, with
    /// `self` pointing at `locs`); then the fields are dropped, each the same way. Nested
    /// fields are followed [`MAX_DROP_NESTING`] deep.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn drop_at(
        &mut self,
        f: FrameId,
        bb: BasicBlock,
        ty: Ty<'tcx>,
        locs: &LocSet,
        si: SourceInfo,
        state: &mut State,
        nesting: u32,
    ) {
        // A `Vec` of the crate's types drops its elements first (their `Drop` impls: a
        // `Vec<RawBuf>` that frees each buffer), where `push` put them (see `Effect::Push`).
        if nesting < MAX_DROP_NESTING
            && let ty::Adt(def, args) = ty.kind()
            && self.tcx.is_diagnostic_item(rustc_span::sym::Vec, def.did())
            && let Some(element_ty) = args.types().next()
            && matches!(element_ty.kind(), ty::Adt(d, _) if d.did().is_local())
        {
            let mut data = self.derive(state, locs);
            data.retain(|l| matches!(self.locs.kind(l), LocKind::Data(_)));
            let elements: LocSet = data.iter().map(|d| self.locs.child(d, Proj::Index)).collect();
            if !elements.is_empty() {
                self.drop_at(f, bb, element_ty, &elements, si, state, nesting + 1);
            }
        }
        if self.rs.role(ty).is_some() {
            let mut vals = LocSet::new();
            for l in locs.iter() {
                vals.union_with(&self.read_value(state, l));
            }
            self.drop_value(f, ty, &vals, si, state);
            return;
        }
        // An `Option<CudaGraph>` dropped (`self.frame = None`) destroys the graph it held.
        if let ty::Adt(def, args) = ty.kind()
            && def.is_enum()
            && let Some(inner) = args.types().next()
            && matches!(self.rs.role(inner), Some(Target::Obj(ObjKind::Graph)))
        {
            let mut vals = LocSet::new();
            for l in locs.iter() {
                vals.union_with(&self.read_value(state, l));
                if let Some(p) = self.payload(l) {
                    vals.union_with(&self.read_value(state, p));
                    let children: Vec<LocId> = self.locs.get(p).children.iter().map(|&(_, c)| c).collect();
                    for c in children {
                        vals.union_with(&self.read_value(state, c));
                    }
                }
            }
            self.drop_value(f, inner, &vals, si, state);
            return;
        }
        if nesting >= MAX_DROP_NESTING {
            return;
        }
        if self.rs.has_user_drop(ty)
            && let Some(dtor) = self.user_drop_instance(ty)
        {
            self.run_user_drop(f, bb, dtor, locs, si, state);
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
        for (i, fty) in fields.into_iter().enumerate() {
            // Only what may hold CUDA memory or run a crate's `Drop`: a type the tables know,
            // or a struct or tuple of the crate's (another crate's `Vec` frees host memory).
            let may_matter = self.rs.role(fty).is_some()
                || matches!(fty.kind(), ty::Tuple(_))
                || matches!(fty.kind(), ty::Adt(def, _) if def.did().is_local());
            if !may_matter {
                continue;
            }
            let mut children = LocSet::new();
            for l in locs.iter() {
                children.insert(self.locs.child(l, Proj::Field(i as u32)));
            }
            self.drop_at(f, bb, fty, &children, si, state, nesting + 1);
        }
    }

    /// The `Drop::drop` of a type of the crate, for this type's arguments.
    fn user_drop_instance(&self, ty: Ty<'tcx>) -> Option<Instance<'tcx>> {
        let drop_trait = self.tcx.lang_items().drop_trait()?;
        let method = *self.tcx.associated_item_def_ids(drop_trait).first()?;
        self.resolve_instance(method, self.tcx.mk_args(&[ty.into()]))
    }

    /// Runs a crate's `impl Drop` (`dtor`, resolved for the dropped type) as a call made at the
    /// drop: `self` points at the dropped value. A free on a deallocator stream inside it is
    /// seen where the value is dropped.
    fn run_user_drop(
        &mut self,
        f: FrameId,
        bb: BasicBlock,
        dtor: Instance<'tcx>,
        locs: &LocSet,
        si: SourceInfo,
        state: &mut State,
    ) {
        let call = CallSite {
            f,
            bb,
            si,
            span: si.span,
            args: &[],
            argvals: &[],
            derefs_raw: false,
        };
        let bindings = [(1, locs.clone(), None)];
        // A `Drop` impl that cannot be run here (too deep, recursive) changes nothing.
        let _ = self.inline_body(&call, dtor.def_id(), Some(dtor.args), &bindings, state);
    }

    /// Drops a handle of type `ty` whose value is `vals` (the memory it owns).
    pub(super) fn drop_value(&mut self, f: FrameId, ty: Ty<'tcx>, vals: &LocSet, si: SourceInfo, state: &mut State) {
        let owned = match self.rs.role(ty) {
            Some(Target::Mem(kind)) => kind,
            Some(Target::Obj(ObjKind::Guard)) => return self.guard_dropped(vals, state),
            // A graph dropped is destroyed: it is launched no more (a path that launches it after
            // this is one a program cannot take).
            Some(Target::Obj(ObjKind::Graph)) => {
                for g in vals.iter() {
                    self.graphs.remove(&g);
                }
                return;
            }
            _ => return,
        };
        let mut data = vals.clone();
        // A `Vec` frees its own heap buffer: device or pinned memory among what a `Vec<u64>` of
        // addresses (or of guards) refers to is not its to free.
        data.retain(|l| match self.locs.kind(l) {
            LocKind::Data(kind) => owned != MemKind::Pageable || matches!(kind, MemKind::Pageable | MemKind::Unknown),
            _ => false,
        });
        if let Some(kind) = self.rs.drop_kind(ty) {
            self.free(f, &data, kind, si, state);
        }
    }

    /// Frees memory: one that waits lets the work using it finish first; one that does not
    /// races with that work.
    pub(super) fn free(&mut self, f: FrameId, data: &LocSet, kind: FreeKind, si: SourceInfo, state: &mut State) {
        self.free_now(f, data, kind, si, state);
        let regions = self.regions();
        self.machine.released(&mut state.m, data, &regions);
    }

    fn free_now(&mut self, f: FrameId, data: &LocSet, kind: FreeKind, si: SourceInfo, state: &mut State) {
        match kind {
            FreeKind::Immediate => {
                self.emit(
                    f,
                    si.span,
                    si,
                    Event::HostAccess {
                        regions: data,
                        access: Access::Free,
                    },
                    state,
                );
            }
            // `cuMemFree` of stream-ordered memory (`cuMemAllocAsync`) does not wait: "callers
            // must ensure that all accesses to these pointers have completed".
            FreeKind::Waits | FreeKind::WaitsImplicitly if self.allocated_on_a_stream(data) => {
                self.free_now(f, data, FreeKind::Immediate, si, state);
            }
            FreeKind::Waits => self.machine.free_waiting(&mut state.m, data, &self.regions()),
            FreeKind::WaitsImplicitly => {
                // The driver synchronizes the device here; no documentation says it must.
                self.emit(f, si.span, si, Event::ImplicitWait { regions: data }, state);
                self.machine.wait_implicitly(&mut state.m);
            }
            FreeKind::StreamOrdered => {
                // Released as device memory (`cuMemFreeAsync`), whatever made it.
                let event = Event::Dealloc {
                    regions: data,
                    by: cuda_lint_machine::Allocator::Device,
                };
                self.emit(f, si.span, si, event, state);
                // Each allocation is freed in the order of the stream it was allocated on, after
                // the work that recorded events on it (cudarc's slices wait for their events).
                for d in data.iter() {
                    let root = self.locs.data_root(d);
                    let streams = self.attrs.get(&root).map(|a| a.streams.clone()).unwrap_or_default();
                    // A slice's stream not made here may be the stream other work ran on.
                    let streams = self.with_possible_aliases(streams, state);
                    let one = LocSet::single(d);
                    let exempt =
                        cudarc::exempt_from_stream_ordered_free(&self.machine, &state.m, &one, &self.regions());
                    self.free_on_streams(f, &one, &streams, &exempt, si, state);
                }
            }
        }
    }

    /// Whether any of `data` is device memory from a stream-ordered allocator (`cuMemAllocAsync`).
    fn allocated_on_a_stream(&self, data: &LocSet) -> bool {
        data.iter().any(|d| {
            self.attrs
                .get(&self.locs.data_root(d))
                .is_some_and(|a| a.allocator == Some(cuda_lint_machine::Allocator::Device) && a.stream_ordered)
        })
    }

    /// Frees `data` in the order of `streams` (see [`Event::FreeOnStreams`]).
    pub(super) fn free_on_streams(
        &mut self,
        f: FrameId,
        data: &LocSet,
        streams: &LocSet,
        exempt: &OpSet,
        si: SourceInfo,
        state: &mut State,
    ) {
        let event = Event::FreeOnStreams {
            regions: data,
            streams,
            exempt,
        };
        self.emit(f, si.span, si, event, state);
    }

    /// A guard of cudarc's `device_ptr` dropped (see `cudarc_safe::model::guard_dropped`).
    pub(super) fn guard_dropped(&mut self, vals: &LocSet, state: &mut State) {
        for guard in vals.iter() {
            let Some(attrs) = self.attrs.get(&guard) else {
                continue;
            };
            cudarc::guard_dropped(
                &self.machine,
                &mut state.m,
                &attrs.memory,
                &attrs.streams,
                &self.regions(),
            );
        }
    }

    /// Applies one of cudarc's own effects (its event-tracking policy, `cudarc_safe::model`);
    /// returns the call's result when the effect makes it (`device_ptr`'s pointer and guard).
    pub(super) fn apply_cudarc(
        &mut self,
        call: &CallSite<'_, 'tcx>,
        effect: CudarcEffect,
        which: usize,
        ret: &LocSet,
        state: &mut State,
    ) -> Option<Vec<(Proj, LocSet, Option<LocId>)>> {
        match effect {
            // Read before the call's operations are enqueued (see `Interp::call_tracking`).
            CudarcEffect::TrackedByEvents => None,
            CudarcEffect::Context(change) => {
                cudarc::context_change(&self.machine, &mut state.m, change);
                None
            }
            CudarcEffect::SyncMemory(a) => {
                let data = self.data_arg(call, a, ret, state);
                cudarc::sync_memory(&self.machine, &mut state.m, &data, &self.regions());
                None
            }
            CudarcEffect::DevicePtrGuard { mem, stream } => {
                let data = self.data_arg(call, mem, ret, state);
                let streams = self.streams(call, stream, state);
                let guard = self.locs.fresh(
                    call.f,
                    call.bb,
                    which as u8,
                    Target::Obj(ObjKind::Guard),
                    call.span,
                    None,
                );
                cudarc::device_ptr(&self.machine, &mut state.m, &data, &streams, &self.regions());
                let attrs = self.attrs.entry(guard).or_default();
                attrs.memory.union_with(&data);
                attrs.streams.union_with(&streams);
                Some(vec![
                    (Proj::Field(0), data, None),
                    (Proj::Field(1), LocSet::single(guard), None),
                ])
            }
        }
    }
}

/// The most blocks of a body read whole at each copy (see `Interp::body_scannable`).
const MAX_SCANNED_BLOCKS: usize = 1500;

/// The blocks of the loop `bb` is in: those it reaches that reach it back.
fn loop_blocks(body: &Body<'_>, bb: BasicBlock) -> rustc_index::bit_set::DenseBitSet<BasicBlock> {
    let blocks = &body.basic_blocks;
    let walk = |next: &dyn Fn(BasicBlock) -> Vec<BasicBlock>| {
        let mut seen = rustc_index::bit_set::DenseBitSet::new_empty(blocks.len());
        let mut work = vec![bb];
        while let Some(b) = work.pop() {
            if seen.insert(b) {
                work.extend(next(b));
            }
        }
        seen
    };
    let forward = walk(&|b| blocks[b].terminator().successors().collect());
    let preds = blocks.predecessors();
    let mut both = walk(&|b| preds[b].to_vec());
    both.intersect(&forward);
    both
}

/// `CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL` (`cudaMemcpySrcAccessOrderDuringApiCall`).
const SRC_ACCESS_ORDER_DURING_API_CALL: u128 = 2;

/// The operands a body stores as a batch copy attributes' `srcAccessOrder` (a struct literal,
/// or an assignment to the field).
fn src_orders_set_in<'b, 'tcx>(tcx: TyCtxt<'tcx>, body: &'b Body<'tcx>) -> Vec<&'b Operand<'tcx>> {
    let mut ops = Vec::new();
    for data in body.basic_blocks.iter() {
        for stmt in &data.statements {
            let StatementKind::Assign(box (dest, rv)) = &stmt.kind else {
                continue;
            };
            match rv {
                Rvalue::Aggregate(kind, fields) => {
                    if let mir::AggregateKind::Adt(adt, ..) = **kind
                        && is_memcpy_attributes(tcx, adt)
                        && let Some(op) = fields.iter().next()
                    {
                        ops.push(op);
                    }
                }
                Rvalue::Use(op, _) => {
                    if let [.., ProjectionElem::Field(field, _)] = dest.projection.as_slice()
                        && field.as_u32() == 0
                    {
                        let parent = Place {
                            local: dest.local,
                            projection: tcx.mk_place_elems(&dest.projection[..dest.projection.len() - 1]),
                        };
                        if matches!(parent.ty(&body.local_decls, tcx).ty.kind(),
                            ty::Adt(def, _) if is_memcpy_attributes(tcx, def.did()))
                        {
                            ops.push(op);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    ops
}

/// Whether `adt` is a batch copy's attributes (`CUmemcpyAttributes_st`, `cudaMemcpyAttributes`).
fn is_memcpy_attributes(tcx: TyCtxt<'_>, adt: DefId) -> bool {
    let name = tcx.item_name(adt);
    matches!(
        name.as_str(),
        "CUmemcpyAttributes_st" | "CUmemcpyAttributes_v1" | "cudaMemcpyAttributes"
    )
}

/// The item types of `Option<(A, B, ..)>` (what `next()` of a `zip` returns).
fn option_tuple_tys(ty: Ty<'_>) -> Option<&ty::List<Ty<'_>>> {
    match peel_result(ty).kind() {
        ty::Tuple(items) => Some(items),
        _ => None,
    }
}

/// How MPI's findings say to fix them.
static MPI_ADVICE: cuda_lint_machine::Advice = cuda_lint_c_api::MPI_ADVICE;

/// Which fresh location of a nonblocking MPI call its request is (its effects make no other).
const REQUEST_SLOT: u8 = 200;
