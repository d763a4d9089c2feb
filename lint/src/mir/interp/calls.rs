//! Calls: to a function the tables know (their effects are applied), to a function of the crate
//! (run inline in the caller's state), or to anything else (taken to read what it is given).

#[allow(unused_imports)]
use super::*;

impl<'a, 'tcx> Interp<'a, 'tcx> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn call(
        &mut self,
        f: FrameId,
        bb: BasicBlock,
        si: SourceInfo,
        fn_span: Span,
        func: &Operand<'tcx>,
        args: &[rustc_span::Spanned<Operand<'tcx>>],
        destination: Place<'tcx>,
        state: &mut State,
    ) {
        let argvals: Vec<LocSet> = args.iter().map(|a| self.operand(f, &a.node, si, state)).collect();
        let body = self.frames[f.0 as usize].body;
        let func_ty = self.instantiate(f, func.ty(&body.local_decls, self.tcx));
        // Who dereferences a raw device pointer it is given: the standard library's pointer
        // functions (`ptr::read`, `copy_nonoverlapping`), and Rust function pointers (to them).
        // The crate's own functions are run inline and show what they do; one that is not (too
        // deep), a C function, or another crate's function given a device pointer is a CUDA
        // library's (cuBLAS, cuDNN... or their bindings): it uses it on the device.
        let derefs_raw = match *func_ty.kind() {
            ty::FnDef(def_id, _) => {
                !self.tcx.is_foreign_item(def_id)
                    && matches!(self.tcx.crate_name(def_id.krate).as_str(), "core" | "alloc" | "std")
            }
            ty::FnPtr(..) => func_ty.fn_sig(self.tcx).abi() == rustc_abi::ExternAbi::Rust,
            _ => true,
        };
        let call = CallSite {
            f,
            bb,
            si,
            span: fn_span,
            args,
            argvals: &argvals,
            derefs_raw,
        };

        // Where the crate's function called here returned an error (see `note_error_exit`).
        let mut direct_error_exit = None;
        let ret = if let ty::FnDef(def_id, fargs) = *func_ty.kind() {
            let resolved = self.resolve_instance(def_id, fargs);
            let effects = resolved
                .and_then(|inst| self.rs.effects(inst.def_id()))
                .or_else(|| self.rs.effects(def_id));
            if let Some(entry) = effects {
                let ret_ty = self.instantiate(f, destination.ty(&body.local_decls, self.tcx).ty);
                // The CUDA API in use (what diagnostics name in their advice).
                if entry.family.advises() {
                    self.family = entry.family;
                }
                if !state.capturing.is_empty() {
                    self.called_name = Some(self.tcx.item_name(def_id).to_string());
                    self.check_capture(&call, entry.effects, entry.family.advises(), state);
                }
                self.apply(&call, entry.effects, ret_ty, state)
            } else if let Some(ret) = self.try_inline(&call, def_id, fargs, resolved, state) {
                direct_error_exit = self.last_error_exit.take();
                ret
            } else if let Some(ret) = self.dyn_dispatch(&call, resolved, state) {
                ret
            } else if self.polls_unseen_cuda_future(resolved) {
                // `.await` of the crate's own `async fn` that uses CUDA (polling a stream until
                // it is idle, say): it is not followed, and it may have waited for anything.
                self.machine.sync_all(&mut state.m);
                self.unknown_call(&call, destination, state)
            } else {
                if self.rs.report_unknown && self.rs.is_cuda_crate(def_id.krate) && !self.reporting {
                    eprintln!(
                        "cuda-lint: no table entry for {}",
                        super::super::resolve::def_key(self.tcx, def_id)
                    );
                }
                self.unknown_call(&call, destination, state)
            }
        } else {
            self.unknown_call(&call, destination, state)
        };
        self.note_map_result(f, destination);
        self.status_returned_by_helper(f, bb, destination);
        if let ty::FnDef(def_id, _) = *func_ty.kind() {
            self.status_call(f, def_id, args, destination);
        }
        if destination == Place::return_place() {
            // `return Err(e.into())` through `?` ends in `FromResidual::from_residual`.
            state.returning_error = matches!(*func_ty.kind(), ty::FnDef(def_id, _)
                if self.tcx.item_name(def_id).as_str() == "from_residual");
        }
        let tree_src = match &ret {
            Val::Tree(src, _) => Some(*src),
            _ => None,
        };
        self.last_error_exit = None;
        self.assign(f, destination, ret, si, state);
        self.note_error_exit(f, bb, destination, direct_error_exit, state);
        // A value moved through a call (`take`, `unwrap`, a helper's return) keeps its variant.
        if let Some(src) = tree_src
            && let Some(dest) = self.strong_dest(f, destination, state)
        {
            let known = state.variants.get(&src).copied();
            self.copy_variants(state, src, dest, known, 3);
        }
        if let Some(pending) = self.pending_store.take() {
            self.finish_store(pending, state);
        }
    }

    /// Keeps the state where the crate's function just called returned `Err` (`error_exit`)
    /// for the match on its result right after the call (`if let Err(e) = run() { cleanup }`:
    /// the cleanup runs where `run` failed, not where it succeeded). A result taken apart by
    /// `?` is not matched on directly: its error path returns, as before.
    fn note_error_exit(
        &mut self,
        f: FrameId,
        bb: BasicBlock,
        destination: Place<'tcx>,
        error_exit: Option<State>,
        state: &State,
    ) {
        let Some(dest) = self.strong_dest(f, destination, state) else {
            return;
        };
        let body = self.frames[f.0 as usize].body;
        let TerminatorKind::Call { target: Some(next), .. } = body.basic_blocks[bb].terminator().kind else {
            self.error_states.remove(&dest);
            return;
        };
        let matched = body.basic_blocks[next].statements.iter().any(
            |stmt| matches!(&stmt.kind, StatementKind::Assign(box (_, Rvalue::Discriminant(p))) if *p == destination),
        );
        // `Err` is `Result`'s variant 1, `None` `Option`'s variant 0.
        let ty = self.instantiate(f, destination.ty(&body.local_decls, self.tcx).ty);
        let failed_variant = match ty.kind() {
            ty::Adt(adt, _) if self.tcx.is_diagnostic_item(rustc_span::sym::Result, adt.did()) => Some(1),
            ty::Adt(adt, _) if self.tcx.is_diagnostic_item(rustc_span::sym::Option, adt.did()) => Some(0),
            _ => None,
        };
        match (error_exit, failed_variant) {
            (Some(mut err), Some(v)) if matched => {
                err.variants.insert(dest, 1 << v);
                self.error_states.insert(dest, (v, err));
            }
            _ => {
                self.error_states.remove(&dest);
            }
        }
    }

    /// Stores what a `Replace`/`InsertSome` leaves behind, once the call's result holds the
    /// old value.
    fn finish_store(&mut self, p: PendingStore, state: &mut State) {
        let slot = if p.some {
            self.locs.child(p.slot, Proj::Variant(1, 0))
        } else {
            p.slot
        };
        if p.keep {
            // `get_or_insert`: the old value, or the new one.
            if let Some((vals, _)) = p.value {
                self.store(state, slot, &vals, false);
            }
            return;
        }
        self.clear(state, p.slot);
        // `Option::take` leaves `None`; `insert` and `replace` leave `Some`.
        if p.some || p.value.is_none() {
            self.set_variant(state, p.slot, Some(u32::from(p.some)));
        }
        if let Some((vals, src)) = p.value {
            if let Some(src) = src {
                self.copy_tree(state, src, slot, 3);
                if !p.some {
                    let known = state.variants.get(&src).copied();
                    self.copy_variants(state, src, slot, known, 3);
                }
            }
            self.store(state, slot, &vals, true);
        }
    }

    /// Whether an iterator type's items are references, or tuples of references and numbers
    /// (`chunks_mut(..).zip(src)`, `enumerate()`): iterating reads nothing; what the items
    /// point to is read or written where they are used.
    fn yields_only_refs(&self, iter_ty: Ty<'tcx>) -> bool {
        let tcx = self.tcx;
        let mut ty = iter_ty;
        while let ty::Ref(_, inner, _) = ty.kind() {
            ty = *inner;
        }
        let Some(iterator) = tcx.get_diagnostic_item(rustc_span::sym::Iterator) else {
            return false;
        };
        let Some(item) = tcx
            .associated_items(iterator)
            .in_definition_order()
            .find(|a| a.name().as_str() == "Item")
        else {
            return false;
        };
        if ty.has_escaping_bound_vars() || ty.has_infer() {
            return false;
        }
        let projection = Ty::new_projection(tcx, item.def_id, [ty]);
        let Ok(item_ty) = tcx.try_normalize_erasing_regions(self.typing_env, ty::Unnormalized::new_wip(projection))
        else {
            return false;
        };
        // References (what they point to is read where they are used, by the closure given),
        // numbers (`enumerate`'s index), and tuples of them (`a.zip(b).enumerate()`'s
        // `(i, (&x, &y))`).
        fn no_read(t: Ty<'_>, depth: u8) -> bool {
            match t.kind() {
                ty::Tuple(parts) => depth < 4 && parts.iter().all(|p| no_read(p, depth + 1)),
                _ => t.is_ref() || t.is_primitive(),
            }
        }
        match item_ty.kind() {
            ty::Ref(..) => true,
            ty::Tuple(_) => no_read(item_ty, 0),
            _ => false,
        }
    }

    pub(super) fn resolve_instance(&self, def_id: DefId, args: GenericArgsRef<'tcx>) -> Option<Instance<'tcx>> {
        if args.has_escaping_bound_vars() || args.references_error() || args.has_infer() {
            return None;
        }
        let args = self
            .tcx
            .try_normalize_erasing_regions(self.typing_env, ty::Unnormalized::new_wip(args))
            .ok()?;
        Instance::try_resolve(self.tcx, self.typing_env, def_id, args)
            .ok()
            .flatten()
    }

    /// A call to a function no table knows: it reads (or, through `&mut`, writes) the memory
    /// its arguments refer to, and its result refers to what they did, or, if it returns a
    /// new owner of memory (a `Vec`), to new memory.
    pub(super) fn unknown_call(
        &mut self,
        call: &CallSite<'_, 'tcx>,
        destination: Place<'tcx>,
        state: &mut State,
    ) -> Val {
        let f = call.f;
        let body = self.frames[f.0 as usize].body;
        let derefs_raw = call.derefs_raw;
        let mut all = LocSet::new();
        // A method of `Iterator` reads the items it iterates over before the closure it is given
        // runs on them (`try_for_each(|c| copy(c))` reads, then copies); called on adapters that
        // hold closures (`collect` of a `Map`), what it touches, those closures do, and they ran
        // where they were given. Other calls run the closures they are given first.
        let has_closure = |t: Ty<'tcx>| t.walk().any(|t| t.as_type().is_some_and(|t| t.is_closure()));
        let iterator_method = self.iterator_method(call).is_some();
        let moves_into_new = self.is_constructor(f, call);
        let callee = self.callee(call);
        // The standard library reads and writes what it is given; it releases no CUDA memory.
        let from_std =
            callee.is_some_and(|c| matches!(self.tcx.crate_name(c.krate).as_str(), "std" | "core" | "alloc"));
        let receiver_holds_closures = iterator_method
            && call
                .args
                .first()
                .is_some_and(|a| has_closure(self.instantiate(f, a.node.ty(&body.local_decls, self.tcx))));
        let takes_closure = call
            .args
            .iter()
            .any(|a| self.instantiate(f, a.node.ty(&body.local_decls, self.tcx)).is_closure());
        let ret_is_ref = self
            .instantiate(f, destination.ty(&body.local_decls, self.tcx).ty)
            .is_ref();
        // A closure the result holds (`Box::new(move || free(p))`, stored to run later) is not
        // called by the call.
        let stores_closure = self
            .instantiate(f, destination.ty(&body.local_decls, self.tcx).ty)
            .walk()
            .any(|t| t.as_type().is_some_and(|t| t.is_closure()));
        if !iterator_method && !stores_closure {
            // `opt.unwrap_or_else(|| make())`: the result may be what the closure returned;
            // `cell.get_or_init(|| make())` returns a reference to where it was stored.
            let returned = self.run_passed_closures(call, state);
            if !ret_is_ref {
                all.union_with(&returned);
            }
        }
        for (i, (arg, vals)) in call.args.iter().zip(call.argvals).enumerate() {
            let ty = self.instantiate(f, arg.node.ty(&body.local_decls, self.tcx));
            // What a closure captured is not what the result refers to (it ran above).
            if !ty.is_closure() {
                all.union_with(vals);
            }
            // An address passed as a number is not memory read; nor is what a closure captured
            // (it ran above: what it touches, its body did).
            // A function the analysis cannot see (a library: cuRAND, cuBLAS) given device or
            // pinned memory, as a pointer or an address (`CUdeviceptr`), may write, read and
            // release it.
            if !ty.is_closure() && !from_std {
                let mut given = self.reach(state, vals, 2);
                given.retain(|l| matches!(self.locs.kind(l), LocKind::Data(k) if k != MemKind::Pageable));
                if !given.is_empty() {
                    let regions = self.regions();
                    self.machine.handed_over(&mut state.m, &given, &regions);
                }
            }
            if ty.is_integral() || ty.is_closure() {
                continue;
            }
            // An iterator consumed (`collect`, `sum`) whose adapters hold closures: what it
            // touches, the closures do, and they ran where they were given.
            if receiver_holds_closures && i == 0 {
                continue;
            }
            // An iterator whose items are references (`iter_mut()`, `chunks_mut`, a `zip` of
            // them), given a closure (`for_each`): the closure reads or writes what they point
            // to; iterating reads nothing (`sum()` of `&f32` items, with no closure, reads).
            if iterator_method && i == 0 && takes_closure && self.yields_only_refs(ty) {
                continue;
            }
            // A value moved into a new owner (`Box::new(sink)`, `Vec::from(array)`) is not read:
            // what its fields point to is not touched.
            if moves_into_new && !ty.is_ref() && !ty.is_raw_ptr() {
                continue;
            }
            // Nor is one a generic callee takes as a bare type parameter it cannot look into
            // (`tx.send(frame)`, `map.insert(k, buf)`: `T` bound by no trait with a method).
            if callee.is_some_and(|c| self.param_is_opaque_generic(c, i)) {
                continue;
            }
            let mut data = self.reach(state, vals, 2);
            // Device memory is dereferenced only through a raw pointer passed itself
            // (`ptr::read(p)`), to a function that does that; a function given a device handle
            // or a number, or a pointer to a handle, uses CUDA calls.
            if ty.is_raw_ptr() && derefs_raw {
                self.keep_device_only_if_direct(&mut data, vals);
            } else {
                data.retain(|l| !matches!(self.locs.kind(l), LocKind::Data(k) if k.is_device_only()));
            }
            let access = if writes_through(self.tcx, ty) {
                // It may grow a buffer it gets through `&mut` (`v.resize(..)`, `v.extend(..)`):
                // its size is no longer known.
                self.forget_sizes(&data);
                // What it may write, it may set to another variant: forget what was known.
                if !state.variants.is_empty() {
                    let targets = vals.clone();
                    state
                        .variants
                        .retain(|l, _| !targets.iter().any(|t| self.locs.is_within(*l, t)));
                }
                Access::Write
            } else {
                Access::Read
            };
            self.host_access(f, &data, access, call.si, state);
        }
        let mut mapped = None;
        if iterator_method {
            let returned = self.run_passed_closures(call, state);
            // `map(|x| ..)` and kin: the iterator yields what the closure returns.
            if let Some(method) = self.iterator_method(call)
                && matches!(
                    self.tcx.item_name(method).as_str(),
                    "map" | "filter_map" | "flat_map" | "map_while" | "scan"
                )
            {
                mapped = Some(returned);
            }
        }
        if let Some(items) = mapped {
            return Val::Set(items);
        }
        let ret_ty = self.instantiate(f, destination.ty(&body.local_decls, self.tcx).ty);
        let handle = peel_result(ret_ty);
        if let Some(Target::Mem(kind)) = self.rs.role(handle)
            && !call
                .args
                .iter()
                .any(|a| self.instantiate(f, a.node.ty(&body.local_decls, self.tcx)) == ret_ty)
        {
            let ty = self.locs.target_ty(handle);
            let fresh = self.locs.fresh(f, call.bb, 0, Target::Mem(kind), call.span, ty);
            // Constructors (`vec![..]`, `Vec::new`, `collect`) allocate; other functions (a
            // queue's `pop`) return memory made elsewhere.
            if self.is_constructor(f, call) {
                self.locs.set_allocated(fresh);
                // A standard-library owner (`vec![..]`, `Vec::with_capacity`, `clone`) made it
                // with Rust's allocator: no C or CUDA function releases or unregisters it.
                if kind == MemKind::Pageable
                    && self
                        .callee(call)
                        .is_some_and(|c| matches!(self.tcx.crate_name(c.krate).as_str(), "alloc" | "std"))
                {
                    self.attrs.entry(fresh).or_default().allocator = Some(cuda_lint_machine::Allocator::RustHeap);
                }
                // `vec![x; N]` with `N` a constant holds `N` elements.
                if self.reporting
                    && let Some(c) = self.callee(call)
                    && self.tcx.crate_name(c.krate).as_str() == "alloc"
                    && self.tcx.item_name(c).as_str() == "from_elem"
                    && let ty::Adt(_, args) = handle.kind()
                    && let Some(elem) = args.types().next()
                {
                    let size = self
                        .tcx
                        .layout_of(self.typing_env.as_query_input(elem))
                        .ok()
                        .map(|l| l.size.bytes());
                    let count = self.const_int(call, 1).and_then(|n| u64::try_from(n).ok());
                    let attrs = self.attrs.entry(fresh).or_default();
                    match size.zip(count).and_then(|(s, n)| s.checked_mul(n)) {
                        Some(bytes) if !attrs.size_unknown => {
                            attrs.bytes = Some(attrs.bytes.map_or(bytes, |b| b.max(bytes)))
                        }
                        _ => attrs.size_unknown = true,
                    }
                }
                // `collect()` of an iterator: its elements are the iterator's items (addresses
                // a `map` closure returned, buffers).
                if iterator_method && let Some(items) = call.argvals.first() {
                    let element = self.locs.child(fresh, Proj::Index);
                    if !matches!(self.locs.kind(element), LocKind::Handle(_)) && !items.is_empty() {
                        let items = items.clone();
                        state.values.entry(element).or_default().union_with(&items);
                    }
                }
            }
            return Val::Set(LocSet::single(fresh));
        }
        if !self.locs.holds_pointers(ret_ty) {
            return Val::Set(LocSet::new());
        }
        Val::Set(all)
    }

    /// Whether parameter `i` of `callee`, as declared, is a type parameter `T` (or `&T`,
    /// `&mut T`) whose every bound is a trait without methods (`Send`, `Sized`, `Copy`), of a
    /// function that is not a trait's method: the callee can move the value, not look into
    /// it, so what it points to is not read.
    fn param_is_opaque_generic(&self, callee: DefId, i: usize) -> bool {
        let tcx = self.tcx;
        // A trait's method runs an implementation where the parameter may be a concrete type
        // it reads (`FnMut::call_mut`'s arguments, `Sink<Vec<u8>>::put`).
        if !tcx.def_kind(callee).is_fn_like() || tcx.trait_of_assoc(callee).is_some() {
            return false;
        }
        let sig = tcx.fn_sig(callee).instantiate_identity().skip_binder();
        let Some(&declared) = sig.inputs().get(i) else {
            return false;
        };
        let param = match declared.kind() {
            ty::Ref(_, t, _) => *t,
            _ => declared,
        };
        if !matches!(param.kind(), ty::Param(_)) {
            return false;
        }
        tcx.param_env(callee)
            .caller_bounds()
            .iter()
            .all(|clause| match clause.as_trait_clause() {
                Some(pred) if pred.self_ty().skip_binder() == param => tcx
                    .associated_items(pred.def_id())
                    .in_definition_order()
                    .next()
                    .is_none(),
                _ => true,
            })
    }

    /// Whether a call builds a new value (by the callee's name).
    pub(super) fn is_constructor(&self, f: FrameId, call: &CallSite<'_, 'tcx>) -> bool {
        const CONSTRUCTORS: &[&str] = &[
            "new",
            "with_capacity",
            "from_elem",
            "into_vec",
            "collect",
            "to_vec",
            "to_owned",
            "clone",
            "from",
            "into",
            "default",
            "from_iter",
            "new_in",
            "into_boxed_slice",
        ];
        let body = self.frames[f.0 as usize].body;
        let TerminatorKind::Call {
            func: Operand::Constant(c),
            ..
        } = &body.basic_blocks[call.bb].terminator().kind
        else {
            return false;
        };
        match *c.const_.ty().kind() {
            ty::FnDef(def_id, _) => CONSTRUCTORS.contains(&self.tcx.item_name(def_id).as_str()),
            _ => false,
        }
    }

    pub(super) fn try_inline(
        &mut self,
        call: &CallSite<'_, 'tcx>,
        def_id: DefId,
        fargs: GenericArgsRef<'tcx>,
        resolved: Option<Instance<'tcx>>,
        state: &mut State,
    ) -> Option<Val> {
        let tcx = self.tcx;
        let f = call.f;
        // A closure called through `Fn*::call*`: run its body with the arguments untupled.
        let (callee, callee_args, is_closure) = match resolved {
            Some(inst) if matches!(inst.def, ty::InstanceKind::Item(_)) => {
                let callee = inst.def_id();
                (callee, Some(inst.args), tcx.is_closure_like(callee))
            }
            Some(_) | None => {
                let self_ty = fargs.types().next()?;
                match self_ty.peel_refs().kind() {
                    ty::Closure(closure, cargs) if tcx.trait_of_assoc(def_id).is_some() => {
                        (*closure, Some(*cargs), true)
                    }
                    _ => return None,
                }
            }
        };
        let local = callee.as_local()?;
        // Nothing to learn from a helper that touches no CUDA API and gets no tracked memory
        // (nor a map call's status to test).
        if !self.rs.touches_cuda(local)
            && call.argvals.iter().all(LocSet::is_empty)
            && call.args.iter().all(|a| self.map_status_of(f, &a.node).is_none())
        {
            return None;
        }
        let mut bindings = Vec::new();
        if is_closure && call.args.len() == 2 {
            // (env, (a, b, ...)): env binds to _1, the tuple's fields to _2, _3, ...
            let env_src = self.arg_place_loc(f, &call.args[0].node, state);
            bindings.push((1, call.argvals[0].clone(), env_src));
            bindings.extend(self.untupled(f, &call.args[1].node, state));
        } else {
            for (i, (arg, vals)) in call.args.iter().zip(call.argvals).enumerate() {
                let src = self.arg_place_loc(f, &arg.node, state);
                bindings.push((i + 1, vals.clone(), src));
            }
        }
        self.inline_body(call, callee, callee_args, &bindings, state)
    }

    /// A method called on a trait object (`stage.enqueue(..)` for a `Box<dyn Stage>`): each
    /// implementation the crate has runs, on the value of its own type the object may be, and
    /// their outcomes are joined as "may". `None` where the call is not one, or the trait has
    /// no such implementation or too many to run.
    fn dyn_dispatch(
        &mut self,
        call: &CallSite<'_, 'tcx>,
        resolved: Option<Instance<'tcx>>,
        state: &mut State,
    ) -> Option<Val> {
        let tcx = self.tcx;
        let ty::InstanceKind::Virtual(method, _) = resolved?.def else {
            return None;
        };
        let trait_id = tcx.trait_of_assoc(method)?;
        let mut impls: Vec<(DefId, Ty<'tcx>)> = Vec::new();
        for imp in tcx.all_impls(trait_id) {
            if !imp.is_local() || tcx.generics_of(imp).count() > 0 {
                continue;
            }
            let Some(&callee) = tcx.impl_item_implementor_ids(imp).get(&method) else {
                continue;
            };
            impls.push((callee, tcx.type_of(imp).instantiate_identity().skip_normalization()));
        }
        if impls.is_empty() || impls.len() > MAX_DYN_IMPLS {
            return None;
        }
        // The receiver (`&mut dyn Stage`) points to the object: each implementation sees the
        // value of its own type there.
        let objects = call.argvals.first()?.clone();
        let f = call.f;
        let mut joined: Option<State> = None;
        let mut returned = LocSet::new();
        for (callee, self_ty) in impls {
            let mut receiver = LocSet::new();
            for o in objects.iter() {
                receiver.insert(self.locs.inside(o, self_ty));
            }
            let mut bindings: Vec<Binding> = vec![(1, receiver, None)];
            for (i, (arg, vals)) in call.args.iter().zip(call.argvals).enumerate().skip(1) {
                let src = self.arg_place_loc(f, &arg.node, state);
                bindings.push((i + 1, vals.clone(), src));
            }
            let mut branch = state.clone();
            let Some(ret) = self.inline_body(call, callee, None, &bindings, &mut branch) else {
                // An implementation that cannot be run here: what it does is not known.
                return None;
            };
            if let Val::Tree(_, vals) | Val::Set(vals) = ret {
                returned.union_with(&vals);
            }
            match &mut joined {
                Some(j) => {
                    j.join(&branch);
                }
                None => joined = Some(branch),
            }
        }
        *state = joined?;
        Some(Val::Set(returned))
    }

    /// Whether a call polls a future the analysis does not follow (the crate's `async fn`, a
    /// coroutine) whose body uses CUDA.
    fn polls_unseen_cuda_future(&self, resolved: Option<Instance<'tcx>>) -> bool {
        let Some(inst) = resolved else { return false };
        let def_id = inst.def_id();
        self.tcx.is_coroutine(def_id) && def_id.as_local().is_some_and(|local| self.rs.touches_cuda(local))
    }

    /// The fields of a tuple argument (a closure's arguments), as bindings of parameters 2, 3...
    pub(super) fn untupled(&mut self, f: FrameId, tuple_op: &Operand<'tcx>, state: &State) -> Vec<Binding> {
        let Some(tuple) = self.arg_place_loc(f, tuple_op, state) else {
            return Vec::new();
        };
        let body = self.frames[f.0 as usize].body;
        let arity = match tuple_op.ty(&body.local_decls, self.tcx).kind() {
            ty::Tuple(tys) => tys.len(),
            _ => 0,
        };
        (0..arity)
            .map(|i| {
                let field = self.locs.child(tuple, Proj::Field(i as u32));
                (i + 2, self.read_value(state, field), Some(field))
            })
            .collect()
    }

    /// The one location an argument operand denotes, if it is a place.
    pub(super) fn arg_place_loc(&mut self, f: FrameId, op: &Operand<'tcx>, state: &State) -> Option<LocId> {
        let place = op.place()?;
        single(&self.place(f, place, state))
    }

    /// Runs a function of the crate in the caller's state, its parameters bound to the given
    /// values (and, for aggregates, the fields of a location); `None` if it cannot be run here.
    pub(super) fn inline_body(
        &mut self,
        call: &CallSite<'_, 'tcx>,
        callee: DefId,
        callee_args: Option<GenericArgsRef<'tcx>>,
        bindings: &[Binding],
        state: &mut State,
    ) -> Option<Val> {
        self.inline_body_with(call, callee, callee_args, bindings, &[], state)
    }

    /// [`Self::inline_body`], with some parameters' fields bound one by one (a closure's
    /// `(a, b)` parameter given the items of a `zip`).
    pub(super) fn inline_body_with(
        &mut self,
        call: &CallSite<'_, 'tcx>,
        callee: DefId,
        callee_args: Option<GenericArgsRef<'tcx>>,
        bindings: &[Binding],
        field_bindings: &[(usize, Vec<Proj>, LocSet)],
        state: &mut State,
    ) -> Option<Val> {
        let tcx = self.tcx;
        let frame = &self.frames[call.f.0 as usize];
        if frame.depth >= MAX_INLINE_DEPTH
            || !callee.is_local()
            || !tcx.is_mir_available(callee)
            // A coroutine's body (an `async` fn polled by `.await`) keeps what lives across its
            // suspension points in per-state fields the analysis does not tie together: not
            // followed.
            || tcx.is_coroutine(callee)
            || self.on_stack(call.f, callee)
            || crate::mir::resolve::has_unsatisfiable_preds(tcx, callee)
        {
            return None;
        }
        let body = tcx.optimized_mir(callee);
        if body.basic_blocks.iter().map(|b| b.statements.len()).sum::<usize>() > MAX_INLINE_STATEMENTS {
            return None;
        }
        let child = self.enter_frame(call, callee, callee_args, body);
        let mut entry = state.clone();
        for (param, vals, src) in bindings {
            if *param >= body.local_decls.len() || *param > body.arg_count {
                continue;
            }
            let loc = self.local_loc(child, Local::from_usize(*param));
            self.clear(&mut entry, loc);
            if let Some(src) = src {
                self.copy_tree(&mut entry, *src, loc, 3);
            }
            // An aggregate (a closure's captures) bound field by field: not also as the union.
            let empty = LocSet::new();
            let vals = if src.is_some() && self.fields_hold_values(loc, &entry) {
                &empty
            } else {
                vals
            };
            self.store(&mut entry, loc, vals, true);
        }
        // A map call's status handed to a helper (`ok(cuMemMap(..))`, `check(status)`): the
        // helper's test of it tells where the map failed, and so does its `Err` result.
        if self.callee(call) == Some(callee) {
            for (i, arg) in call.args.iter().enumerate().take(body.arg_count) {
                let param = (child, Local::from_usize(i + 1));
                match self.map_status_of(call.f, &arg.node) {
                    Some(status) => {
                        self.map_status.insert(param, status);
                    }
                    None => {
                        self.map_status.remove(&param);
                    }
                }
            }
        }
        for (param, proj, vals) in field_bindings {
            if *param >= body.local_decls.len() || *param > body.arg_count {
                continue;
            }
            let loc = self.local_loc(child, Local::from_usize(*param));
            let field = proj.iter().fold(loc, |at, &p| self.locs.child(at, p));
            self.store(&mut entry, field, vals, true);
        }
        let exit = self.run_frame(child, entry, self.reporting)?;
        let mut error_exit = self.last_error_exit.take();
        *state = exit;
        self.leave_item_loops(child, None, state);
        let ret_loc = self.local_loc(child, mir::RETURN_PLACE);
        let ret_val = self.read_value(state, ret_loc);
        // The callee's locals are dead now.
        for local in body.local_decls.indices() {
            if local == mir::RETURN_PLACE {
                continue;
            }
            for &loc in self.locs.of_local(child, local) {
                state.values.remove(&loc);
                state.running_when.remove(&loc);
                if let Some(e) = &mut error_exit {
                    e.values.remove(&loc);
                    e.running_when.remove(&loc);
                }
            }
        }
        self.last_error_exit = error_exit;
        Some(Val::Tree(ret_loc, ret_val))
    }

    /// Runs the crate's closures a call we cannot see into receives (`iter.map(|x| ..)`,
    /// `for_each`, a `&dyn Fn`): the callee is taken to call them, with arguments unknown
    /// (except a `dyn Fn` called directly, whose arguments are the call's).
    /// Returns what the closures returned.
    pub(super) fn run_passed_closures(&mut self, call: &CallSite<'_, 'tcx>, state: &mut State) -> LocSet {
        let mut returned = LocSet::new();
        let f = call.f;
        let body = self.frames[f.0 as usize].body;
        let mut closures: Vec<LocId> = Vec::new();
        for (arg, vals) in call.args.iter().zip(call.argvals) {
            let ty = self.instantiate(f, arg.node.ty(&body.local_decls, self.tcx));
            if matches!(ty.kind(), ty::Closure(..))
                && let Some(loc) = self.arg_place_loc(f, &arg.node, state)
            {
                closures.push(loc);
            }
            closures.extend(
                vals.iter()
                    .filter(|l| self.locs.get(*l).ty.is_some_and(|t| t.is_closure())),
            );
        }
        closures.sort();
        closures.dedup();
        let mut runs: Vec<(Option<LocId>, DefId, GenericArgsRef<'tcx>)> = Vec::new();
        for closure in closures {
            if let Some(ty::Closure(def_id, cargs)) = self.locs.get(closure).ty.map(|t| *t.kind()) {
                runs.push((Some(closure), def_id, cargs));
            }
        }
        // A closure that captures nothing is a constant (`map(|&n| ..)`): run it too where the
        // call says what it is given (an iterator's items, an `Option`'s payload); given to a
        // call the analysis cannot see, it would run with nothing known of its arguments.
        let gives_items = self.iterator_method(call).is_some() || self.option_method(call);
        for arg in call.args.iter().filter(|_| gives_items) {
            if let Operand::Constant(c) = &arg.node
                && let ty::Closure(def_id, cargs) = *self.instantiate(f, c.ty()).kind()
            {
                runs.push((None, def_id, cargs));
            }
        }
        for (closure, def_id, cargs) in runs {
            if !def_id.is_local() || !self.tcx.is_mir_available(def_id) {
                continue;
            }
            let env_by_ref = self
                .tcx
                .optimized_mir(def_id)
                .local_decls
                .get(Local::from_usize(1))
                .is_some_and(|d| d.ty.is_ref());
            let mut bindings = match closure {
                None => Vec::new(),
                Some(closure) if env_by_ref => vec![(1, LocSet::single(closure), None)],
                Some(closure) => vec![(1, self.read_value(state, closure), Some(closure))],
            };
            // `f(args)` on a `&dyn Fn`: the arguments are the call's second operand.
            let mut fields = Vec::new();
            if call.args.len() == 2 && matches!(call.args[1].node.ty(&body.local_decls, self.tcx).kind(), ty::Tuple(_))
            {
                bindings.extend(self.untupled(f, &call.args[1].node, state));
            } else if let Some((param, items)) = self.adapter_items(call, def_id, state) {
                // An iterator adapter (`map`, `for_each`, `fold`...): the closure's item is an
                // item of the iterator it is called on.
                match items {
                    Items::Whole(vals) => bindings.push((param, vals, None)),
                    Items::Held(holder, items) => {
                        state.values.insert(holder, items);
                        bindings.push((param, LocSet::single(holder), None));
                    }
                    Items::Fields(per_field) => {
                        fields.extend(per_field.into_iter().map(|(proj, vals)| (param, proj, vals)));
                    }
                }
            }
            if let Some(Val::Tree(_, vals) | Val::Set(vals)) =
                self.inline_body_with(call, def_id, Some(cargs), &bindings, &fields, state)
            {
                returned.union_with(&vals);
            }
        }
        returned
    }

    /// For a closure given to a method of `Iterator` (an adapter, or a consumer such as
    /// `for_each` or `fold`), the closure parameter that takes the iterator's items, and the
    /// items: what the iterator (the call's receiver) refers to, narrowed to the parameter's
    /// type; a `zip`'s items field by field.
    /// The items of the `zip`/`enumerate` at `recv`, side by side, as the closure parameter of
    /// type `item_ty` takes them: a side that is itself a `zip` (`a.zip(b).enumerate()`, whose
    /// item is `(i, (x, y))`) is followed apart too, so each part of the pattern gets its own
    /// side's items.
    fn zip_items(
        &mut self,
        recv: LocId,
        item_ty: Ty<'tcx>,
        path: &mut Vec<Proj>,
        out: &mut Vec<(Vec<Proj>, LocSet)>,
        state: &State,
    ) {
        let ty::Tuple(tys) = item_ty.kind() else {
            return;
        };
        for (i, ty) in tys.iter().enumerate() {
            let side = self.locs.child(recv, Proj::Field(i as u32));
            path.push(Proj::Field(i as u32));
            let vals = self.read_value(state, side);
            // The inner `zip` moved into this one is held in place (its sides are this side's
            // fields), or referred to.
            let nested = path.len() < 4 && matches!(ty.kind(), ty::Tuple(_));
            let held_in_place =
                nested
                    && self.locs.get(side).children.iter().any(|&(p, c)| {
                        matches!(p, Proj::Field(_)) && state.values.get(&c).is_some_and(|v| !v.is_empty())
                    });
            let inner_zip = if held_in_place {
                Some(side)
            } else {
                single(&vals).filter(|&z| nested && self.locs.get(z).ty.is_some_and(|t| is_zip(self.tcx, t)))
            };
            match inner_zip {
                Some(z) => self.zip_items(z, ty, path, out, state),
                None => out.push((path.clone(), self.narrow_item(state, &vals, ty))),
            }
            path.pop();
        }
    }

    /// The function a call calls, when it is a known function (not a pointer).
    fn callee(&self, call: &CallSite<'_, 'tcx>) -> Option<DefId> {
        let body = self.frames[call.f.0 as usize].body;
        let TerminatorKind::Call { func, .. } = &body.basic_blocks[call.bb].terminator().kind else {
            return None;
        };
        match *self.instantiate(call.f, func.ty(&body.local_decls, self.tcx)).kind() {
            ty::FnDef(method, _) => Some(method),
            _ => None,
        }
    }

    /// Whether a call calls a method of `Option`.
    fn option_method(&self, call: &CallSite<'_, 'tcx>) -> bool {
        self.callee(call)
            .and_then(|method| self.tcx.impl_of_assoc(method))
            .is_some_and(|imp| {
                matches!(self.tcx.type_of(imp).instantiate_identity().skip_normalization().kind(),
                    ty::Adt(adt, _) if self.tcx.is_diagnostic_item(rustc_span::sym::Option, adt.did()))
            })
    }

    /// For a closure given to a method of `Option` (`map`, `map_or`, `and_then`, `is_some_and`...),
    /// what it is called with: the value in the `Some` of the receiver (behind a reference too).
    /// Also where the `Some` holds it, for a closure given a reference to it (`filter`).
    fn option_payload(&mut self, call: &CallSite<'_, 'tcx>, state: &State) -> Option<(LocId, LocSet)> {
        if !self.option_method(call) {
            return None;
        }
        let receiver = call.args.first()?;
        let mut slot = self.arg_place_loc(call.f, &receiver.node, state)?;
        if self.locs.get(slot).ty.is_some_and(|t| t.is_ref()) {
            slot = single(&self.read_value(state, slot))?;
        }
        let payload = self.locs.child(slot, Proj::Variant(1, 0));
        Some((payload, self.read_value(state, payload)))
    }

    /// The type an `Option` method's receiver holds in its `Some` (`T` of `Option<T>`, behind a
    /// reference too).
    fn option_item_ty(&self, call: &CallSite<'_, 'tcx>) -> Option<Ty<'tcx>> {
        let body = self.frames[call.f.0 as usize].body;
        let recv = self.instantiate(call.f, call.args.first()?.node.ty(&body.local_decls, self.tcx));
        match recv.peel_refs().kind() {
            ty::Adt(_, args) => args.types().next(),
            _ => None,
        }
    }

    /// The method of `Iterator` a call calls, if it calls one.
    fn iterator_method(&self, call: &CallSite<'_, 'tcx>) -> Option<DefId> {
        let method = self.callee(call)?;
        let iterator = self.tcx.get_diagnostic_item(rustc_span::sym::Iterator)?;
        (self.tcx.trait_of_assoc(method) == Some(iterator)).then_some(method)
    }

    fn adapter_items(&mut self, call: &CallSite<'_, 'tcx>, closure: DefId, state: &State) -> Option<(usize, Items)> {
        let f = call.f;
        if let Some((payload, items)) = self.option_payload(call, state) {
            // `filter(|s| ..)`, `inspect`, `take_if`: the closure gets a reference to the value
            // (`&&Scratch` for an `Option<&Scratch>`), which points at where the `Some` holds it.
            let param_ty = self
                .tcx
                .optimized_mir(closure)
                .local_decls
                .get(Local::from_usize(2))
                .map(|d| d.ty);
            let depth = |t: Ty<'tcx>| {
                let mut n = 0;
                let mut t = t;
                while let ty::Ref(_, inner, _) = t.kind() {
                    n += 1;
                    t = *inner;
                }
                n
            };
            if let (Some(param_ty), Some(item_ty)) = (param_ty, self.option_item_ty(call))
                && depth(param_ty) == depth(item_ty) + 1
            {
                return Some((2, Items::Whole(LocSet::single(payload))));
            }
            return Some((2, Items::Whole(items)));
        }
        let method = self.iterator_method(call)?;
        // `fold(init, |acc, item| ..)`, `try_fold`, `scan`: the item is the second parameter.
        let name = self.tcx.item_name(method);
        let param = if matches!(name.as_str(), "fold" | "try_fold" | "scan" | "rfold" | "try_rfold") {
            3
        } else {
            2
        };
        let closure_body = self.tcx.optimized_mir(closure);
        let param_ty = closure_body.local_decls.get(Local::from_usize(param))?.ty;
        let receiver = call.args.first()?;
        let mut receiver_loc = self.arg_place_loc(f, &receiver.node, state);
        // `try_for_each(&mut self, ..)`: the iterator is what the reference points to.
        if let Some(r) = receiver_loc
            && self.locs.get(r).ty.is_some_and(|t| t.is_ref())
        {
            receiver_loc = single(&self.read_value(state, r));
        }
        if let Some(recv) = receiver_loc
            && matches!(param_ty.kind(), ty::Tuple(_))
            && self.locs.get(recv).ty.is_some_and(|t| is_zip(self.tcx, t))
        {
            let mut per_field = Vec::new();
            self.zip_items(recv, param_ty, &mut Vec::new(), &mut per_field, state);
            return Some((param, Items::Fields(per_field)));
        }
        let vals = match receiver_loc {
            Some(r)
                if receiver
                    .node
                    .ty(&self.frames[f.0 as usize].body.local_decls, self.tcx)
                    .is_ref() =>
            {
                self.read_value(state, r)
            }
            _ => call.argvals.first()?.clone(),
        };
        // `filter(|s| ..)`, `find`, `position`...: the closure gets a reference to the item
        // (`&&mut Slot`), which points at where the iterator holds it.
        if let ty::Ref(_, item_ty, _) = param_ty.kind()
            && matches!(item_ty.kind(), ty::Ref(..) | ty::RawPtr(..))
            && let Some(recv) = receiver_loc
        {
            let items = self.narrow_item(state, &vals, *item_ty);
            let holder = self.locs.child(recv, Proj::Index);
            return Some((param, Items::Held(holder, items)));
        }
        Some((param, Items::Whole(self.narrow_item(state, &vals, param_ty))))
    }

    /// Runs the crate's closure passed as argument `a` (with its arguments unknown, a
    /// `thread::scope` closure's scope included); its return value.
    pub(super) fn run_closure_arg(&mut self, call: &CallSite<'_, 'tcx>, a: u8, state: &mut State) -> Option<Val> {
        let f = call.f;
        let arg = call.args.get(a as usize)?;
        let body = self.frames[f.0 as usize].body;
        let ty = self.instantiate(f, arg.node.ty(&body.local_decls, self.tcx));
        // A closure that captures nothing is passed as a constant: it has no place, only its
        // type (`thread::spawn(move || worker(0))`).
        // So is a function of the crate (`thread::spawn(worker)`).
        if let (ty::Closure(def_id, cargs) | ty::FnDef(def_id, cargs), Operand::Constant(_)) = (ty.kind(), &arg.node) {
            let (def_id, cargs) = (*def_id, *cargs);
            if !def_id.is_local() || !self.tcx.is_mir_available(def_id) {
                return None;
            }
            return self.inline_body(call, def_id, Some(cargs), &[], state);
        }
        let closure = match ty.kind() {
            ty::Closure(..) => self.arg_place_loc(f, &arg.node, state)?,
            _ => single(&call.argvals[a as usize])?,
        };
        let Some(ty::Closure(def_id, cargs)) = self.locs.get(closure).ty.map(|t| *t.kind()) else {
            return None;
        };
        if !def_id.is_local() || !self.tcx.is_mir_available(def_id) {
            return None;
        }
        let env_by_ref = self
            .tcx
            .optimized_mir(def_id)
            .local_decls
            .get(Local::from_usize(1))
            .is_some_and(|d| d.ty.is_ref());
        let bindings = if env_by_ref {
            vec![(1, LocSet::single(closure), None)]
        } else {
            vec![(1, self.read_value(state, closure), Some(closure))]
        };
        self.inline_body(call, def_id, Some(cargs), &bindings, state)
    }

    pub(super) fn on_stack(&self, mut f: FrameId, callee: DefId) -> bool {
        loop {
            let frame = &self.frames[f.0 as usize];
            if frame.def_id == callee {
                return true;
            }
            if f == FrameId::ROOT {
                return false;
            }
            f = frame.parent.unwrap_or(FrameId::ROOT);
        }
    }

    pub(super) fn enter_frame(
        &mut self,
        call: &CallSite<'_, 'tcx>,
        callee: DefId,
        args: Option<GenericArgsRef<'tcx>>,
        body: &'tcx Body<'tcx>,
    ) -> FrameId {
        if let Some(&id) = self.frame_index.get(&(call.f, call.bb, callee)) {
            return id;
        }
        let parent = &self.frames[call.f.0 as usize];
        let entered_from = match &parent.entered_from {
            Some(e) => Some(e.clone()),
            None => {
                let name = self
                    .tcx
                    .opt_item_name(callee)
                    .map_or_else(|| "a closure".to_string(), |n| format!("`{n}`"));
                Some((call.span, self.lint_root(call.f, call.si), name))
            }
        };
        let id = FrameId(self.frames.len() as u32);
        // A closure is part of the function that writes it (run where an adapter, a thread or
        // the function itself calls it): it does not count as a level of helpers.
        let depth = parent.depth + u32::from(!self.tcx.is_closure_like(callee));
        let (names, named_paths) = debug_names(self.tcx, body);
        self.frames.push(Frame {
            body,
            def_id: callee,
            args,
            depth,
            entered_from,
            parent: Some(call.f),
            called_at: Some(call.bb),
            current: None,
            names,
            named_paths,
        });
        self.frame_index.insert((call.f, call.bb, callee), id);
        id
    }
}

/// The items a closure given to an iterator method takes.
pub(super) enum Items {
    /// All of them as one value.
    Whole(LocSet),
    /// A tuple's fields (a `zip`'s two sides), each at its path in the item (`(i, (x, y))`).
    Fields(Vec<(Vec<Proj>, LocSet)>),
    /// A reference to the item (`filter`'s `&&mut T`): where the iterator holds it, and the
    /// items held there.
    Held(LocId, LocSet),
}

/// Whether `ty` is `core::iter::Zip` or `Enumerate`: an iterator of pairs whose sides are
/// followed apart (see `Effect::Zip`).
pub(super) fn is_zip(tcx: TyCtxt<'_>, ty: Ty<'_>) -> bool {
    match ty.kind() {
        ty::Adt(def, _) => {
            matches!(tcx.item_name(def.did()).as_str(), "Zip" | "Enumerate")
                && tcx.crate_name(def.did().krate).as_str() == "core"
        }
        _ => false,
    }
}
