//! What the lints are told and how they name things: events emitted to the machine's lints at a
//! site, the machine's view of the file's places (`FileRegions`), and the names and origins of
//! memory and work in diagnostics (`Describer`).

use super::*;

impl<'s, 't> FileAnalysis<'s, 't> {
    pub(super) fn emit(&mut self, at: Node<'t>, event: Event<'_, Site>, flow: &Flow) {
        self.emit_ordered(at, event, flow, true);
    }

    /// [`Self::emit`] of what the syntax alone says (`unchecked_cuda_result`'s events): its
    /// findings take no part in which of the others' comes first at a site.
    pub(super) fn emit_syntactic(&mut self, at: Node<'t>, event: Event<'_, Site>, flow: &Flow) {
        self.emit_ordered(at, event, flow, false);
    }

    fn emit_ordered(&mut self, at: Node<'t>, event: Event<'_, Site>, flow: &Flow, ordered: bool) {
        let span = self.site(at);
        let mut found = Vec::new();
        {
            let regions = self.regions();
            let describe = Describer { a: self };
            let cx = Cx {
                machine: &self.machine,
                state: &flow.m,
                regions: &regions,
                describe: &describe,
                span,
                in_helper: false,
                options: &self.options,
                in_test: false,
            };
            check_all(&event, &cx, &mut found);
        }
        for f in found {
            if ordered {
                let order = self.found_in.len() as u64;
                self.found_in.entry(f.span).or_insert((self.root, order));
            }
            self.findings.insert((f.lint.name, f.kind, f.span), f);
        }
    }

    /// The function analysed on its own ends at `at` (a `return` of `returned`, or its body's
    /// end): the allocations its variables held, and nothing else holds, are lost: no object's
    /// field (at the program's end, the file's variables end too), not the returned value.
    pub(super) fn scope_exit(&mut self, at: Node<'t>, returned: &LocSet, flow: &mut Flow) {
        let unreleased = flow.m.unreleased();
        if unreleased.is_empty() {
            return;
        }
        let program_end = self.root_is_main;
        // `main` giving up after a failed call, or returning a failure status (`return 1;`,
        // `return EXIT_FAILURE;`): the process ends, and the device memory with it.
        let failure_status = at.kind() == "return_statement"
            && at
                .named_child(0)
                .is_some_and(|v| !matches!(self.text(v).trim(), "0" | "EXIT_SUCCESS" | "0L"));
        if program_end && (flow.failing || failure_status) {
            return;
        }
        // What the function's own variables hold (at the program's end, the file's variables
        // too): what may be lost. Memory stored where the analysis does not follow is not.
        let mut local = LocSet::new();
        let mut held = returned.clone();
        for (name, v) in &flow.vars {
            // What was stored through an out-parameter (`*p = ..`) is the caller's.
            if name.starts_with('*') || self.root_out_params.contains(name) || self.outliving_vars.contains(name) {
                held.union_with(v);
            } else {
                local.union_with(v);
            }
        }
        for ((o, _), v) in &flow.fields {
            if program_end && *o == self.globals_obj {
                local.union_with(v);
            } else {
                held.union_with(v);
            }
        }
        let regions = self.regions();
        let roots = |set: &LocSet| -> LocSet { set.iter().map(|l| regions.root(l)).collect() };
        let (local, held) = (roots(&local), roots(&held));
        let lost: LocSet = unreleased
            .iter()
            .filter(|r| local.contains(*r) && !held.contains(*r))
            .collect();
        if lost.is_empty() {
            return;
        }
        self.emit(
            at,
            Event::ScopeExit {
                lost: &lost,
                program_end,
            },
            flow,
        );
    }

    /// The machine's view of the file's places.
    pub(super) fn regions(&self) -> FileRegions<'_> {
        FileRegions {
            locs: &self.locs,
            null: self.null,
        }
    }
}

pub(super) struct FileRegions<'a> {
    pub(super) locs: &'a [LocInfo],
    /// The location that stands for a null pointer.
    pub(super) null: Loc,
}

impl Regions for FileRegions<'_> {
    fn mem_kind(&self, l: Loc) -> Option<MemKind> {
        self.locs.get(l.0 as usize).and_then(|i| i.kind)
    }
    fn overlaps(&self, a: Loc, b: Loc) -> bool {
        self.root(a) == self.root(b)
    }
    fn root(&self, l: Loc) -> Loc {
        self.locs.get(l.0 as usize).and_then(|i| i.parent).unwrap_or(l)
    }
    fn mapping(&self, l: Loc) -> Loc {
        l
    }
    fn write_combined(&self, l: Loc) -> bool {
        self.locs.get(l.0 as usize).is_some_and(|i| i.write_combined)
    }
    fn attached(&self, l: Loc) -> bool {
        self.locs.get(l.0 as usize).is_some_and(|i| i.attached)
    }

    fn attached_streams(&self, l: Loc) -> LocSet {
        self.locs
            .get(l.0 as usize)
            .map(|i| i.attached_streams.clone())
            .unwrap_or_default()
    }
    fn allocator(&self, l: Loc) -> Option<cuda_lint_machine::Allocator> {
        self.locs.get(l.0 as usize).and_then(|i| i.allocator)
    }
    fn bytes(&self, l: Loc) -> Option<u64> {
        self.locs
            .get(l.0 as usize)
            .filter(|i| i.parent.is_none())
            .and_then(|i| i.bytes)
    }
    fn apart(&self, a: Loc, b: Loc) -> bool {
        a != b
            && self.root(a) == self.root(b)
            && [a, b].iter().any(|l| self.locs.get(l.0 as usize).is_some_and(|i| i.parent.is_some()))
            // A part at an offset that may be any (`h + i * chunk`) may be the other.
            && ![a, b].iter().any(|l| self.locs.get(l.0 as usize).is_some_and(|i| i.any_offset))
            && self.mem_kind(a) != Some(MemKind::VmmMapping)
    }
    fn one_of_many(&self, l: Loc) -> bool {
        self.locs.get(self.root(l).0 as usize).is_some_and(|i| i.many)
    }
    fn is_null(&self, l: Loc) -> bool {
        l == self.null
    }
    fn physical(&self, mapping: Loc) -> Option<LocSet> {
        self.locs
            .get(mapping.0 as usize)
            .map(|i| i.physical.clone())
            .filter(|p| !p.is_empty())
    }
}

struct Describer<'a, 's, 't> {
    a: &'a FileAnalysis<'s, 't>,
}

impl Describe<Site> for Describer<'_, '_, '_> {
    fn region(&self, root: Loc) -> Region<Site> {
        let info = &self.a.locs[root.0 as usize];
        Region {
            name: info.name.clone(),
            kind: info.kind.unwrap_or(MemKind::Unknown),
            origin: info.origin,
            origin_kind: if info.allocated {
                Origin::Allocated
            } else {
                Origin::Declared
            },
            ty: None,
            advice: &ADVICE,
        }
    }

    fn in_flight(&self, op: OpId) -> InFlight<Site> {
        let (span, stream) = self.a.op_sites[op.0 as usize].clone();
        let mut notes = Vec::new();
        if self.a.on_unset_handle.contains(&op) {
            notes.push(cuda_lint_machine::UNSET_HANDLE_NOTE);
        }
        InFlight {
            what: self.a.machine.op(op).kind.describe(),
            span,
            stream,
            advice: self.a.machine.op(op).advice,
            notes,
        }
    }
}
