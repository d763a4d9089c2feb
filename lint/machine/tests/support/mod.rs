//! A tiny front end for driving the machine in tests, with no rustc: a table of regions and
//! objects built by the test (allocations, parts nested in them, VMM mappings of physical
//! allocations, streams and events), its [`Regions`] and [`Describe`] answers, and a [`World`]
//! that holds the machine and a state and reports events to every lint.
//!
//! Sites are `u32`s: the "line" of the test's program at which a call happens.
#![allow(dead_code)]

use std::collections::BTreeMap;

use cuda_lint_machine::lints::{Cx, Options, check_all};
use cuda_lint_machine::{
    Access, Advice, Child, Describe, Diagnostic, Dir, Event, Ext, InFlight, Kernel, Loc, LocSet, Machine, MemKind,
    OpId, OpKind, OpSet, Origin, Region, Regions, State,
};

/// Where something happens in the test's program (a line number).
pub type Site = u32;

/// The advice of the test's API family: recognizable strings the tests look for.
pub static ADVICE: Advice = Advice {
    pinned: "allocate the host side with `alloc_pinned`",
    pinned_readback: "read back into `alloc_pinned_with_flags(len, 0)`",
    sync_stream: "`{stream}.synchronize()`",
    order_streams: "record an event on the first stream and wait for it on the second",
    copy_to_host: "copy it to the host with `clone_dtoh`",
    copy_to_device: "copy the data to the device with `clone_htod`",
    sync_statement: Some("{stream}.synchronize()?;"),
    error_type: "test::DriverError",
};

struct Entry {
    name: String,
    /// `None`: an object (a stream, an event, a physical allocation handle).
    kind: Option<MemKind>,
    parent: Option<Loc>,
    physical: Option<LocSet>,
    origin: Site,
    origin_kind: Origin,
    ty: Option<String>,
}

/// The front end's table of locations, and where each operation was enqueued.
#[derive(Default)]
pub struct Front {
    entries: Vec<Entry>,
    op_sites: BTreeMap<OpId, Site>,
}

impl Front {
    fn push(&mut self, entry: Entry) -> Loc {
        self.entries.push(entry);
        Loc(u32::try_from(self.entries.len() - 1).unwrap())
    }

    fn entry(&self, l: Loc) -> &Entry {
        &self.entries[l.0 as usize]
    }

    /// An allocation of `kind` made at `origin`.
    pub fn alloc(&mut self, name: &str, kind: MemKind, origin: Site) -> Loc {
        self.push(Entry {
            name: name.to_string(),
            kind: Some(kind),
            parent: None,
            physical: None,
            origin,
            origin_kind: Origin::Allocated,
            ty: None,
        })
    }

    /// An allocation whose owner has type `ty` (`Vec<f32>`).
    pub fn alloc_typed(&mut self, name: &str, kind: MemKind, ty: &str, origin: Site) -> Loc {
        let l = self.alloc(name, kind, origin);
        self.entries[l.0 as usize].ty = Some(ty.to_string());
        l
    }

    /// Memory the test's program gets as a parameter (declared, not allocated, in view).
    pub fn param(&mut self, name: &str, kind: MemKind, origin: Site) -> Loc {
        let l = self.alloc(name, kind, origin);
        self.entries[l.0 as usize].origin_kind = Origin::Declared;
        l
    }

    /// A part of `of` (a field, a sub-slice): inside it, of its kind.
    pub fn part(&mut self, name: &str, of: Loc) -> Loc {
        let parent = self.entry(of);
        let (kind, origin, origin_kind) = (parent.kind, parent.origin, parent.origin_kind);
        self.push(Entry {
            name: name.to_string(),
            kind,
            parent: Some(of),
            physical: None,
            origin,
            origin_kind,
            ty: None,
        })
    }

    /// An object that is not memory: a stream, an event, a physical allocation handle.
    pub fn object(&mut self, name: &str) -> Loc {
        self.push(Entry {
            name: name.to_string(),
            kind: None,
            parent: None,
            physical: None,
            origin: 0,
            origin_kind: Origin::Declared,
            ty: None,
        })
    }

    /// A VMM mapping of the physical allocations `physical`, mapped at `origin`.
    pub fn mapping(&mut self, name: &str, physical: &[Loc], origin: Site) -> Loc {
        self.push(Entry {
            name: name.to_string(),
            kind: Some(MemKind::VmmMapping),
            parent: None,
            physical: Some(set(physical)),
            origin,
            origin_kind: Origin::Mapped,
            ty: None,
        })
    }

    /// A VMM mapping whose physical allocation is not known (it comes from a parameter).
    pub fn mapping_of_unknown_origin(&mut self, name: &str, origin: Site) -> Loc {
        let l = self.param(name, MemKind::VmmMapping, origin);
        self.entries[l.0 as usize].physical = None;
        l
    }

    pub fn name(&self, l: Loc) -> &str {
        &self.entry(l).name
    }

    fn contains(&self, outer: Loc, mut inner: Loc) -> bool {
        loop {
            if inner == outer {
                return true;
            }
            match self.entry(inner).parent {
                Some(p) => inner = p,
                None => return false,
            }
        }
    }
}

impl Regions for Front {
    fn mem_kind(&self, l: Loc) -> Option<MemKind> {
        self.entry(l).kind
    }

    fn overlaps(&self, a: Loc, b: Loc) -> bool {
        self.entry(a).kind.is_some() && (self.contains(a, b) || self.contains(b, a))
    }

    fn root(&self, mut l: Loc) -> Loc {
        while let Some(p) = self.entry(l).parent {
            l = p;
        }
        l
    }

    fn physical(&self, mapping: Loc) -> Option<LocSet> {
        self.entry(mapping).physical.clone()
    }
}

/// The front end's descriptions: regions by the table, operations by their kind, site and
/// (first) stream.
pub struct Desc<'a> {
    pub front: &'a Front,
    pub machine: &'a Machine,
}

impl Describe<Site> for Desc<'_> {
    fn region(&self, root: Loc) -> Region<Site> {
        let e = self.front.entry(root);
        Region {
            name: Some(e.name.clone()),
            kind: e.kind.expect("a region is memory"),
            origin: e.origin,
            origin_kind: e.origin_kind,
            ty: e.ty.clone(),
            advice: &ADVICE,
        }
    }

    fn in_flight(&self, op: OpId) -> InFlight<Site> {
        let o = self.machine.op(op);
        InFlight {
            what: o.kind.describe(),
            span: self.front.op_sites[&op],
            stream: o.streams.iter().next().map(|s| self.front.name(s).to_string()),
            advice: o.advice,
            notes: o.notes.clone(),
        }
    }
}

/// A finding, flattened for assertions.
#[derive(Clone, Debug)]
pub struct Found {
    pub lint: &'static str,
    pub kind: &'static str,
    pub span: Site,
    pub some_paths: bool,
    pub message: String,
    pub diagnostic: Diagnostic<Site>,
}

impl Found {
    /// The secondary labels' texts, by site.
    pub fn label_at(&self, at: Site) -> Option<&str> {
        self.diagnostic
            .labels
            .iter()
            .find(|(s, _)| *s == at)
            .map(|(_, t)| t.as_str())
    }

    pub fn helps(&self) -> Vec<&str> {
        self.diagnostic
            .children
            .iter()
            .filter_map(|c| match c {
                Child::Help(h) => Some(h.as_str()),
                _ => None,
            })
            .collect()
    }

    pub fn notes(&self) -> Vec<&str> {
        self.diagnostic
            .children
            .iter()
            .filter_map(|c| match c {
                Child::Note(n) => Some(n.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// The machine, a state and the front end of one test program.
pub struct World<X: Ext = ()> {
    pub front: Front,
    pub machine: Machine,
    pub state: State<X>,
    /// The user's options (`cuda-lint.toml`'s `[perf]`).
    pub options: Options,
    /// Whether the code checked is a test, bench or example.
    pub in_test: bool,
}

impl<X: Ext> Default for World<X> {
    fn default() -> Self {
        World {
            front: Front::default(),
            machine: Machine::new(),
            state: State::default(),
            options: Options::default(),
            in_test: false,
        }
    }
}

impl<X: Ext> World<X> {
    pub fn new() -> Self {
        Self::default()
    }

    /// An operation enqueued at `at` on `streams` (empty: a stream the front end cannot name),
    /// reading and writing what is given; not started.
    pub fn op(&mut self, kind: OpKind, at: Site, streams: &[Loc], reads: &[Loc], writes: &[Loc]) -> OpId {
        let op = self.machine.new_op(kind, &ADVICE);
        self.machine.add_uses(op, &set(streams), &set(reads), &set(writes));
        self.front.op_sites.insert(op, at);
        op
    }

    /// Enqueues an operation as a front end does: reports [`Event::Enqueue`] against the work
    /// in flight, then starts it. Returns the operation and the findings.
    pub fn enqueue_checked(
        &mut self,
        kind: OpKind,
        at: Site,
        streams: &[Loc],
        reads: &[Loc],
        writes: &[Loc],
    ) -> (OpId, Vec<Found>) {
        let op = self.op(kind, at, streams, reads, writes);
        let found = self.check(at, &Event::Enqueue { op });
        self.machine.start(&mut self.state, op);
        (op, found)
    }

    /// [`World::enqueue_checked`], asserting that no lint fires.
    pub fn enqueue(&mut self, kind: OpKind, at: Site, streams: &[Loc], reads: &[Loc], writes: &[Loc]) -> OpId {
        let (op, found) = self.enqueue_checked(kind, at, streams, reads, writes);
        assert!(found.is_empty(), "enqueue at {at} fired: {found:#?}");
        op
    }

    /// Starts an operation made with [`World::op`] (no event reported), or starts one again
    /// (a call in a loop).
    pub fn start(&mut self, op: OpId) {
        self.machine.start(&mut self.state, op);
    }

    /// `if .. { then } else { els }`: runs both paths from the current state and joins them.
    /// Returns what each path returned and whether the join changed the `els` path's state.
    pub fn if_else<A, B>(
        &mut self,
        then: impl FnOnce(&mut Self) -> A,
        els: impl FnOnce(&mut Self) -> B,
    ) -> (A, B, bool) {
        let fork = self.state.clone();
        let a = then(self);
        let then_state = std::mem::replace(&mut self.state, fork);
        let b = els(self);
        let changed = self.state.join(&then_state);
        (a, b, changed)
    }

    /// Every lint's findings on `event` at `at`.
    pub fn check(&self, at: Site, event: &Event<'_, Site>) -> Vec<Found> {
        self.check_with(at, false, event)
    }

    /// The same, for an event that happened inside a function the linted code calls.
    pub fn check_with(&self, at: Site, in_helper: bool, event: &Event<'_, Site>) -> Vec<Found> {
        let desc = Desc {
            front: &self.front,
            machine: &self.machine,
        };
        let cx = Cx {
            machine: &self.machine,
            state: &self.state,
            regions: &self.front,
            describe: &desc,
            span: at,
            in_helper,
            options: &self.options,
            in_test: self.in_test,
        };
        let mut out = Vec::new();
        check_all(event, &cx, &mut out);
        out.into_iter()
            .map(|f| Found {
                lint: f.lint.name,
                kind: f.kind,
                span: f.span,
                some_paths: f.some_paths,
                message: f.diagnostic.message.clone(),
                diagnostic: f.diagnostic,
            })
            .collect()
    }

    /// The host reads (writes, frees at once) `regions` at `at`.
    pub fn host(&self, at: Site, access: Access, regions: &[Loc]) -> Vec<Found> {
        self.check(
            at,
            &Event::HostAccess {
                regions: &set(regions),
                access,
            },
        )
    }

    pub fn read(&self, at: Site, regions: &[Loc]) -> Vec<Found> {
        self.host(at, Access::Read, regions)
    }

    pub fn write(&self, at: Site, regions: &[Loc]) -> Vec<Found> {
        self.host(at, Access::Write, regions)
    }

    /// An asynchronous copy whose host side is `host`, written at `host_arg`.
    pub fn async_copy(&self, at: Site, host: &[Loc], dir: Dir, host_arg: Option<Site>) -> Vec<Found> {
        self.check(
            at,
            &Event::AsyncCopy {
                host: &set(host),
                dir,
                host_arg,
                bytes: None,
                advice: &ADVICE,
            },
        )
    }

    /// The same, of a copy whose byte count the front end knows.
    pub fn async_copy_sized(&self, at: Site, host: &[Loc], dir: Dir, bytes: u64) -> Vec<Found> {
        self.check(
            at,
            &Event::AsyncCopy {
                host: &set(host),
                dir,
                host_arg: None,
                bytes: Some(bytes),
                advice: &ADVICE,
            },
        )
    }

    /// A kernel launch whose arguments reach `slots`.
    pub fn launch_event(&self, at: Site, slots: &[&[Loc]], apart: bool, kernel: Option<&Kernel>) -> Vec<Found> {
        self.launch_event_written(at, slots, apart, None, kernel)
    }

    /// A kernel launch whose arguments reach `slots`, `written` saying which the kernel writes.
    pub fn launch_event_written(
        &self,
        at: Site,
        slots: &[&[Loc]],
        apart: bool,
        written: Option<&[bool]>,
        kernel: Option<&Kernel>,
    ) -> Vec<Found> {
        let slots: Vec<LocSet> = slots.iter().map(|s| set(s)).collect();
        self.check(
            at,
            &Event::Launch {
                slots: &slots,
                apart,
                written,
                kernel,
            },
        )
    }

    /// `regions` freed in the order of `streams`, with `exempt` work ordered by the family.
    pub fn free_on_streams(&self, at: Site, regions: &[Loc], streams: &[Loc], exempt: &[OpId]) -> Vec<Found> {
        self.check(
            at,
            &Event::FreeOnStreams {
                regions: &set(regions),
                streams: &set(streams),
                exempt: &ops(exempt),
            },
        )
    }

    pub fn sync_streams(&mut self, streams: &[Loc]) {
        self.machine.sync_streams(&mut self.state, &set(streams));
    }

    /// A wait on `streams` in a loop over a collection of streams; `many`: the streams that
    /// stand for several.
    pub fn sync_streams_over_collection(&mut self, streams: &[Loc], many: &[Loc]) -> OpSet {
        let many = set(many);
        self.machine
            .sync_streams_over_collection(&mut self.state, &set(streams), |s| many.contains(s))
    }

    pub fn sync_events(&mut self, events: &[Loc]) {
        self.machine.sync_events(&mut self.state, &set(events));
    }

    pub fn record(&mut self, events: &[Loc], streams: &[Loc]) {
        self.machine.record_events(&mut self.state, &set(events), &set(streams));
    }

    pub fn wait(&mut self, streams: &[Loc], events: &[Loc]) {
        self.machine.wait_events(&mut self.state, &set(streams), &set(events));
    }

    pub fn register(&mut self, roots: &[Loc]) {
        self.machine.register_in_place(&mut self.state, &set(roots));
    }

    pub fn unregister(&mut self, roots: &[Loc]) {
        self.machine.unregister(&mut self.state, &set(roots), &self.front);
    }

    pub fn free_waiting(&mut self, data: &[Loc]) {
        self.machine.free_waiting(&mut self.state, &set(data), &self.front);
    }

    /// Whether `op` may be in flight (on some path).
    pub fn may_run(&self, op: OpId) -> bool {
        self.state.inflight_may.contains(op)
    }

    /// Whether `op` is in flight on every path.
    pub fn must_run(&self, op: OpId) -> bool {
        self.state.surely_running(op)
    }

    pub fn ordered_before(&self, op: OpId, streams: &[Loc]) -> bool {
        self.machine.ordered_before(&self.state, op, &set(streams))
    }

    pub fn can_be_in_flight(&self, l: Loc) -> bool {
        self.machine.can_be_in_flight(&self.state, l, &self.front)
    }

    /// Joins the state `other` reached on another path into this one.
    pub fn join(&mut self, other: &State<X>) -> bool {
        self.state.join(other)
    }
}

pub fn set(locs: &[Loc]) -> LocSet {
    locs.iter().copied().collect()
}

pub fn ops(ids: &[OpId]) -> OpSet {
    ids.iter().copied().collect()
}

/// The one finding of `found`, which must be of `lint`.
#[track_caller]
pub fn only(found: Vec<Found>, lint: &str) -> Found {
    assert_eq!(found.len(), 1, "expected one `{lint}` finding, got {found:#?}");
    let f = found.into_iter().next().unwrap();
    assert_eq!(f.lint, lint, "{f:#?}");
    f
}

/// No finding at all.
#[track_caller]
pub fn none(found: Vec<Found>) {
    assert!(found.is_empty(), "expected no finding, got {found:#?}");
}

/// No finding of `lint` (others may fire).
#[track_caller]
pub fn none_of(found: &[Found], lint: &str) {
    assert!(
        found.iter().all(|f| f.lint != lint),
        "expected no `{lint}` finding, got {found:#?}"
    );
}
