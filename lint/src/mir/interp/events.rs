//! The front end's side of the lints: during the reporting sweep, the events it reports
//! (host accesses and views, copies, enqueues, launches, frees), and its answers to the
//! machine and the lints: where locations are ([`Regions`]), what to call them ([`Describe`]).
//! The lints decide (`cuda_lint_machine::lints`); nothing here does.

use cuda_lint_cuda_source::ParamUse;
use cuda_lint_machine::{Cx, Describe, Regions};

#[allow(unused_imports)]
use super::*;

/// Locations as the machine sees them: their kind, nesting and the physical allocations VMM
/// mappings map.
pub(super) struct RegionsView<'i, 'a, 'tcx> {
    locs: &'i Locs<'a, 'tcx>,
    attrs: &'i FxHashMap<LocId, ObjAttrs>,
}

impl Regions for RegionsView<'_, '_, '_> {
    fn mem_kind(&self, l: LocId) -> Option<MemKind> {
        match self.locs.kind(l) {
            LocKind::Data(k) => Some(k),
            _ => None,
        }
    }

    fn overlaps(&self, a: LocId, b: LocId) -> bool {
        self.locs.overlaps(a, b)
    }

    fn root(&self, l: LocId) -> LocId {
        self.locs.data_root(l)
    }

    fn allocation(&self, l: LocId) -> Option<LocId> {
        let root = self.locs.data_root(l);
        // Up from `l` to its root: a `Deref` on the way is a pointer stored in the root.
        let mut cur = l;
        while cur != root {
            let (parent, proj) = self.locs.get(cur).parent?;
            if proj == Proj::Deref {
                return None;
            }
            cur = parent;
        }
        Some(root)
    }

    fn within(&self, inner: LocId, outer: LocId) -> bool {
        self.locs.is_within(inner, outer)
    }

    fn write_combined(&self, l: LocId) -> bool {
        self.locs.kind(l) == LocKind::Data(MemKind::Pinned)
            && self
                .attrs
                .get(&self.locs.data_root(l))
                .is_some_and(|a| a.write_combined)
    }

    fn one_of_many(&self, l: LocId) -> bool {
        self.attrs.get(&self.locs.data_root(l)).is_some_and(|a| a.one_of_many)
    }

    fn attached(&self, l: LocId) -> bool {
        self.attrs.get(&self.locs.data_root(l)).is_some_and(|a| a.attached)
    }

    fn attached_streams(&self, l: LocId) -> LocSet {
        self.attrs
            .get(&self.locs.data_root(l))
            .map(|a| a.attached_streams.clone())
            .unwrap_or_default()
    }

    fn bytes(&self, l: LocId) -> Option<u64> {
        // An element (`h.as_ptr()` of an array, a `Vec`'s buffer): a copy from it stays
        // within the whole, from the element on.
        let whole = self.locs.whole_of_elements(l);
        self.attrs.get(&whole).filter(|a| !a.size_unknown).and_then(|a| a.bytes)
    }

    fn is_null(&self, l: LocId) -> bool {
        self.locs.is_null(l)
    }

    fn allocator(&self, l: LocId) -> Option<cuda_lint_machine::Allocator> {
        self.attrs.get(&self.locs.data_root(l)).and_then(|a| a.allocator)
    }

    fn mapping(&self, l: LocId) -> LocId {
        self.locs.mapping_view(l)
    }

    fn at_unknown_offset(&self, view: LocId) -> bool {
        let root = self.locs.data_root(view);
        view != root && !self.locs.views(root).any(|(v, at)| v == view && at.is_some())
    }

    fn physical(&self, mapping: LocId) -> Option<LocSet> {
        let root = self.locs.data_root(mapping);
        if !self.at_unknown_offset(mapping) {
            let own = self.attrs.get(&mapping).map(|a| a.physical.clone());
            if own.as_ref().is_some_and(|p| !p.is_empty()) {
                return own;
            }
            // Not mapped at this offset itself: mapped, if at all, where the program maps at
            // computed offsets (`cuMemMap(base + i * size, ..)` in a loop).
            return self
                .locs
                .views(root)
                .find(|(_, at)| at.is_none())
                .and_then(|(any, _)| self.attrs.get(&any))
                .map(|a| a.physical.clone())
                .filter(|p| !p.is_empty())
                .or(own);
        }
        // A view at an offset not known (`base + self.size`) is somewhere in its reservation:
        // it aliases another view only where the reservation maps one allocation at two places
        // of its own (a mirrored ring buffer), and then with what is mapped twice. Mapping at
        // such an offset what is also mapped at a known one (`cuMemMap(base, ..)` and
        // `cuMemMap(base + size, ..)` of one handle) is such a second place; chunks mapped at
        // computed offsets in a loop, each its own allocation, are not.
        let mut seen = LocSet::new();
        let mut twice = LocSet::new();
        for (view, at) in self.locs.views(root) {
            if at.is_none() {
                continue;
            }
            if let Some(a) = self.attrs.get(&view) {
                for p in a.physical.iter() {
                    if !seen.insert(p) {
                        twice.insert(p);
                    }
                }
            }
        }
        if let Some(own) = self.attrs.get(&mapping) {
            let mut also_known = own.physical.clone();
            also_known.intersect_with(&seen);
            twice.union_with(&also_known);
        }
        (!twice.is_empty()).then_some(twice)
    }
}

/// Names and origins of regions and operations, as seen from frame `f` in `state`.
struct Describer<'i, 'a, 'tcx> {
    interp: &'i Interp<'a, 'tcx>,
    f: FrameId,
    state: &'i State,
}

impl Describe<Span> for Describer<'_, '_, '_> {
    fn region(&self, root: LocId) -> Region<Span> {
        self.interp.region(self.f, root, self.state)
    }

    fn in_flight(&self, op: OpId) -> InFlight<Span> {
        self.interp.in_flight(self.f, op, self.state)
    }
}

impl<'a, 'tcx> Interp<'a, 'tcx> {
    pub(super) fn regions(&self) -> RegionsView<'_, 'a, 'tcx> {
        RegionsView {
            locs: &self.locs,
            attrs: &self.attrs,
        }
    }

    /// Reports an event that happened at `span` in frame `f` to every lint, during the
    /// reporting sweep. An event inside a helper is reported at its call in the linted body.
    pub(super) fn emit(&mut self, f: FrameId, span: Span, si: SourceInfo, event: Event<'_, Span>, state: &State) {
        if !self.reporting {
            return;
        }
        // Code a macro generated is reported where the macro is invoked (what the user wrote;
        // arguments the user passed keep their own spans).
        let span = span.source_callsite();
        let entered = self.frames[f.0 as usize].entered_from.clone();
        let at = entered.as_ref().map_or(span, |(call_span, ..)| *call_span);
        let mut found = Vec::new();
        // Inside the loop whose wait covers work waited for over a collection, that work still
        // runs before the wait.
        let inside = self.waits_ahead_in_this_loop(f, state);
        let adjusted;
        let state = if inside.is_empty() {
            state
        } else {
            let mut s = state.clone();
            s.m.waited_over.subtract(&inside);
            adjusted = s;
            &adjusted
        };
        {
            let regions = self.regions();
            let describe = Describer { interp: self, f, state };
            let cx = Cx {
                machine: &self.machine,
                state: &state.m,
                regions: &regions,
                describe: &describe,
                span: at,
                in_helper: entered.is_some(),
                options: self.rs.options,
                in_test: self.in_test,
            };
            cuda_lint_machine::lints::check_all(&event, &cx, &mut found);
        }
        for inner in found {
            let finding = match &entered {
                None => Finding {
                    inner,
                    lint_root: self.lint_root(f, si),
                    via: None,
                },
                // Found inside a helper: reported at the call in the root body. When the
                // helper, linted on its own, reports the same event, the pass keeps only that.
                // The note names the function the event is in (the innermost helper).
                Some((_, lint_root, _)) => Finding {
                    inner,
                    lint_root: *lint_root,
                    via: Some(Via {
                        callee: self.frame_name(f),
                        helper: self.frames[f.0 as usize].def_id,
                        outer: self.frames[self.outermost_helper(f).0 as usize].def_id,
                        inner: span,
                        calls: self.calls_inside_helpers(f),
                    }),
                },
            };
            self.findings.insert(finding);
        }
    }

    /// The calls that lead to frame `f` from the outermost helper (not the call in the linted
    /// body), innermost first.
    fn calls_inside_helpers(&self, f: FrameId) -> Vec<Span> {
        let mut calls = Vec::new();
        let mut cur = f;
        while let (Some(parent), Some(bb)) = (
            self.frames[cur.0 as usize].parent,
            self.frames[cur.0 as usize].called_at,
        ) && parent != FrameId::ROOT
            && calls.len() < 16
        {
            let body = self.frames[parent.0 as usize].body;
            calls.push(body.basic_blocks[bb].terminator().source_info.span.source_callsite());
            cur = parent;
        }
        calls
    }

    /// The work waited for over a collection by a wait in a loop that the current point of
    /// frame `f` (or of a caller) is in.
    fn waits_ahead_in_this_loop(&self, f: FrameId, state: &State) -> OpSet {
        let mut inside = OpSet::new();
        for op in state.m.waited_over.iter() {
            let Some(loops) = self.wait_loops.get(&op) else {
                continue;
            };
            let (mut g, mut bb) = (f, self.frames[f.0 as usize].current);
            let mut hit = false;
            for _ in 0..=MAX_INLINE_DEPTH {
                let Some(b) = bb else { break };
                if loops.iter().any(|(lf, blocks)| *lf == g && blocks.contains(b)) {
                    hit = true;
                    break;
                }
                let fr = &self.frames[g.0 as usize];
                match fr.parent {
                    Some(p) => (g, bb) = (p, fr.called_at),
                    None => break,
                }
            }
            if hit {
                inside.insert(op);
            }
        }
        inside
    }

    /// The host reads or writes `locs` (or frees them at once).
    pub(super) fn host_access(&mut self, f: FrameId, locs: &LocSet, access: Access, si: SourceInfo, state: &State) {
        if !self.reporting || locs.is_empty() {
            return;
        }
        self.emit(f, si.span, si, Event::HostAccess { regions: locs, access }, state);
    }

    /// A raw pointer made into a slice (or, with `reference`, a reference) for the host.
    pub(super) fn host_view(
        &mut self,
        f: FrameId,
        data: &LocSet,
        write: bool,
        reference: bool,
        si: SourceInfo,
        state: &State,
    ) {
        let event = Event::HostView {
            regions: data,
            write,
            reference,
        };
        self.emit(f, si.span, si, event, state);
    }

    /// Which of `n` arguments the kernels a launch may run may write through, when the source and
    /// name of every one of them is visible (`cuda_lint_cuda_source::kernel_writes`).
    pub(super) fn kernel_writes(&self, kernels: &LocSet, n: usize) -> Option<Vec<bool>> {
        let mut written = vec![false; n];
        for (source, name) in self.kernel_sources(kernels)? {
            let writes = cuda_lint_cuda_source::kernel_writes(&source, &name)?;
            if writes.len() != n {
                return None;
            }
            for (w, k) in written.iter_mut().zip(writes) {
                *w |= k;
            }
        }
        Some(written)
    }

    /// How each of the `n` parameters of the kernels `kernels` may be is used, where the
    /// source of every one is visible: used by one, loads only in all, tested against null by
    /// one, surely stored through by all.
    pub(super) fn kernel_param_uses(&self, kernels: &LocSet, n: usize) -> Option<Vec<ParamUse>> {
        let mut joined: Option<Vec<ParamUse>> = None;
        for (source, name) in self.kernel_sources(kernels)? {
            let uses = cuda_lint_cuda_source::kernel_param_uses(&source, &name)?;
            if uses.len() != n {
                return None;
            }
            joined = Some(match joined {
                None => uses,
                Some(before) => before
                    .into_iter()
                    .zip(uses)
                    .map(|(a, b)| ParamUse {
                        used: a.used || b.used,
                        loads_only: a.loads_only && b.loads_only,
                        null_tested: a.null_tested || b.null_tested,
                        stores: a.stores && b.stores,
                        system_atomics_only: a.system_atomics_only && b.system_atomics_only,
                    })
                    .collect(),
            });
        }
        joined
    }

    /// The body being linted returns (`state`: what holds on the path that does, an error
    /// return included): the allocations nothing released that only locals held (its own and
    /// those of the functions it ran inline, all ended now) are lost. What the result, a
    /// parameter, a `static`, a struct's field or a collection holds is not: its owner goes on.
    /// `main` giving up with an error (`Err(..)`, `?`) ends the process, and its memory with it.
    pub(super) fn scope_exit(&mut self, si: SourceInfo, state: &State) {
        let unreleased = state.m.unreleased();
        if unreleased.is_empty() {
            return;
        }
        let root_fn = self.frames[0].def_id;
        let program_end = self.tcx.entry_fn(()).is_some_and(|(main, _)| main == root_fn);
        if program_end && state.returning_error {
            return;
        }
        let arg_count = self.frames[0].body.arg_count;
        let mut local = LocSet::new();
        let mut held = LocSet::new();
        for (&l, vals) in state.values.iter() {
            let d = self.locs.get(l);
            // A variable, or a part of one (a tuple's field, a plain struct's), unless a type
            // with a destructor holds it there (an owner that may release it when dropped).
            let dies = match d.root {
                Root::Local { frame, local } => {
                    (frame != FrameId::ROOT || local.as_usize() > arg_count) && !self.under_a_destructor(l)
                }
                _ => false,
            };
            for v in vals.iter() {
                let root = self.locs.data_root(v);
                if dies {
                    local.insert(root);
                } else {
                    held.insert(root);
                }
            }
        }
        let lost: LocSet = unreleased
            .iter()
            .filter(|r| local.contains(*r) && !held.contains(*r))
            .collect();
        if self.trace {
            eprintln!("  scope exit: unreleased {unreleased:?} local {local:?} held {held:?} lost {lost:?}");
        }
        if lost.is_empty() {
            return;
        }
        let event = Event::ScopeExit {
            lost: &lost,
            program_end,
        };
        self.origins_at_root_calls = true;
        self.emit(FrameId::ROOT, si.span, si, event, state);
        self.origins_at_root_calls = false;
    }

    /// Whether `l` or a value it is part of is of one of the crate's types with a destructor
    /// (`impl Drop`: an owner that may release it when dropped), is the payload of an enum (an
    /// `Option` or `Result` of a call, which may be the variant that holds nothing), or is behind
    /// a pointer (what another value points to outlives it). (Another crate's owner releases
    /// only what the program does not own: cudarc's slices, this project's buffers.)
    fn under_a_destructor(&self, l: LocId) -> bool {
        if self.locs.enclosing_stack_value(l).is_none() {
            return true;
        }
        let mut cur = Some(l);
        for _ in 0..16 {
            let Some(c) = cur else { return false };
            let d = self.locs.get(c);
            if let Some(ty) = d.ty
                && let Some(adt) = ty.ty_adt_def()
                && adt.did().is_local()
                && adt.has_dtor(self.tcx)
            {
                return true;
            }
            // What a closure captured goes where the closure goes (`get_or_init(|| Mutex::new(t))`
            // stores it in a `static`).
            if d.ty.is_some_and(|t| t.is_closure() || t.is_coroutine()) {
                return true;
            }
            if matches!(d.parent, Some((_, Proj::Variant(..)))) {
                return true;
            }
            cur = d.parent.map(|(p, _)| p);
        }
        true
    }

    /// The CUDA source and name of each kernel `kernels` may be, where every one is known.
    fn kernel_sources(&self, kernels: &LocSet) -> Option<Vec<(Rc<str>, String)>> {
        if kernels.is_empty() {
            return None;
        }
        let mut out = Vec::new();
        for k in kernels.iter() {
            let attrs = self.attrs.get(&k)?;
            if attrs.kernel_names.is_empty() || attrs.modules.is_empty() {
                return None;
            }
            for name in &attrs.kernel_names {
                let name = name.as_deref()?;
                for m in attrs.modules.iter() {
                    let sources = &self.attrs.get(&m)?.sources;
                    if sources.is_empty() {
                        return None;
                    }
                    for source in sources {
                        out.push((source.clone()?, name.to_string()));
                    }
                }
            }
        }
        Some(out)
    }

    /// Whether `l` is (inside) a parameter of the function being linted, and that function is
    /// called in the crate: what `l` refers to was made by a caller, which judges it when it runs
    /// this function inline. (A function no one here calls reports what it cannot see.)
    pub(super) fn is_root_param(&self, l: LocId) -> bool {
        self.is_linted_fn_param(l) && self.rs.has_local_caller(self.frames[0].def_id)
    }

    /// Whether `l` is (inside) a parameter of the function being linted. (Cheap: whether the
    /// function has callers in the crate is asked only where a verdict needs it.)
    pub(super) fn is_linted_fn_param(&self, l: LocId) -> bool {
        let (root, _) = self.locs.path(l);
        matches!(root, Root::Local { frame: FrameId::ROOT, local }
            if (1..=self.frames[0].body.arg_count).contains(&local.as_usize()))
    }

    /// What the CUDA sources say of the kernels a launch may run: `None` when all of them
    /// fence (or what is not visible comes from the linted function's callers, which judge it),
    /// else why the launch is reported.
    pub(super) fn kernel_verdict(&self, kernels: &LocSet) -> Option<Kernel> {
        let mut unfenced = None;
        let (mut name_unknown, mut not_in_source, mut source_unknown) = (false, None, None);
        if kernels.is_empty() {
            return Some(Kernel::SourceNotVisible { name: None });
        }
        for k in kernels.iter() {
            let Some(attrs) = self.attrs.get(&k) else {
                if !self.is_root_param(k) {
                    source_unknown = Some(None);
                }
                continue;
            };
            let mut sources: Vec<Option<Rc<str>>> = Vec::new();
            let mut deferred = false;
            for m in attrs.modules.iter() {
                match self.attrs.get(&m) {
                    Some(a) if a.from_caller && self.rs.has_local_caller(self.frames[0].def_id) => {
                        sources.extend(a.sources.iter().flatten().cloned().map(Some));
                        deferred = true;
                    }
                    Some(a) => sources.extend(a.sources.iter().cloned()),
                    None if self.is_root_param(m) => deferred = true,
                    None => sources.push(None),
                }
            }
            let mut names: Vec<Option<String>> = attrs.kernel_names.clone();
            if attrs.from_caller && self.rs.has_local_caller(self.frames[0].def_id) {
                names.retain(Option::is_some);
            } else if names.is_empty() {
                names.push(None);
            }
            let sources = if sources.is_empty() && !deferred {
                vec![None]
            } else {
                sources
            };
            for name in &names {
                for source in &sources {
                    match (name, source) {
                        (Some(n), Some(src)) => match kernel_fence(src, n) {
                            Fence::Fenced => {}
                            Fence::Unfenced => unfenced = Some(n.clone()),
                            Fence::NotFound => not_in_source = Some(n.clone()),
                        },
                        (None, Some(_)) => name_unknown = true,
                        (n, None) => source_unknown = Some(n.clone()),
                    }
                }
            }
        }
        if let Some(name) = unfenced {
            Some(Kernel::Unfenced { name })
        } else if let Some(name) = not_in_source {
            Some(Kernel::NotInSource { name })
        } else if name_unknown {
            Some(Kernel::NameNotConstant)
        } else {
            source_unknown.map(|name| Kernel::SourceNotVisible { name })
        }
    }
}
