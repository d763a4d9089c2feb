//! The abstract interpretation of MIR that every lint shares.
//!
//! Each body is run to a fixpoint over its control-flow graph (unwind paths are not followed).
//! Statements move values between abstract locations; calls do what the API tables say, or, for
//! functions of the crate being linted, are run inline in the caller's state (up to
//! [`MAX_INLINE_DEPTH`]), which is how a sync, copy or launch inside a helper counts at its
//! call. Calls the tables do not know read (or, through `&mut`, write) what their arguments
//! refer to. Once the fixpoint is reached, one more sweep reports findings against the final
//! states, so "on some paths" is decided on the joined state.

use std::collections::BTreeSet;
use std::rc::Rc;

use rustc_data_structures::fx::{FxHashMap, FxIndexSet};
use rustc_hir::HirId;
use rustc_hir::def_id::{DefId, LocalDefId};
use rustc_index::IndexVec;
use rustc_middle::mir::{
    self, BasicBlock, BinOp, Body, ClearCrossCrate, Local, Operand, Place, ProjectionElem, Rvalue, SourceInfo,
    StatementKind, TerminatorKind, VarDebugInfoContents,
};
use rustc_middle::ty::{self, GenericArgsRef, Instance, Ty, TyCtxt, TypeVisitableExt, TypingEnv};
use rustc_span::Span;

use super::finding::{Access, Finding, FindingKind, InFlight, Kernel, Origin, Region, Via};
use super::loc::{FrameId, LocId, LocKind, LocSet, Locs, Proj, Root};
use super::resolve::Resolver;
use super::state::{OpId, OpInfo, OpKind, OpSet, State};
use crate::api::{Dir, Effect, FreeKind, MemKind, ObjKind, RET, Target};
use cuda_lint_cuda_source::{Fence, kernel_fence};

/// How many calls deep helpers of the crate are run inline.
pub const MAX_INLINE_DEPTH: u32 = 3;
/// Helpers with more statements than this are treated as unknown calls.
const MAX_INLINE_STATEMENTS: usize = 4000;
/// Array literals up to this length keep their elements apart (see `Rvalue::Aggregate`).
const MAX_ARRAY_SLOTS: usize = 32;
/// Statements interpreted per analysed body, inlined calls included, before giving up on it
/// (a guard against pathological bodies; no finding is reported from an abandoned body).
const STEP_BUDGET: usize = 400_000;

struct Frame<'tcx> {
    body: &'tcx Body<'tcx>,
    def_id: DefId,
    /// Generic arguments of this instance (identity for the root).
    args: Option<GenericArgsRef<'tcx>>,
    depth: u32,
    /// For inlined frames: the call in the root body that leads here, its lint node, and the
    /// name of the helper it calls.
    entered_from: Option<(Span, HirId, String)>,
    parent: Option<FrameId>,
    names: FxHashMap<Local, String>,
    /// Names of places with projections (a closure's captures: `(*((*_1).0))`).
    named_paths: Vec<(Local, Vec<Proj>, String)>,
}

/// What the analysis knows of CUDA objects beyond their kind.
#[derive(Clone, Debug, Default)]
struct ObjAttrs {
    /// Modules: the CUDA sources they come from; `None` in the list: a source not visible.
    sources: Vec<Option<Rc<str>>>,
    /// Kernels: their names (`None`: not a constant) and modules.
    kernel_names: Vec<Option<String>>,
    modules: LocSet,
    /// Mappings: the physical allocations they map.
    physical: LocSet,
}

/// What an rvalue produces, for the assignment that stores it.
enum Val {
    Set(LocSet),
    /// Per-field values of an aggregate, with the location each field is moved from (so an
    /// aggregate nested in a field keeps its own fields).
    Fields(Vec<(Proj, LocSet, Option<LocId>)>),
    /// A copy of an aggregate at a location (its fields' values come along).
    Tree(LocId, LocSet),
}

pub struct Interp<'a, 'tcx> {
    rs: &'a Resolver<'tcx>,
    tcx: TyCtxt<'tcx>,
    typing_env: TypingEnv<'tcx>,
    locs: Locs<'a, 'tcx>,
    ops: Vec<OpInfo>,
    op_index: FxHashMap<(FrameId, BasicBlock), OpId>,
    frames: Vec<Frame<'tcx>>,
    frame_index: FxHashMap<(FrameId, BasicBlock, DefId), FrameId>,
    attrs: FxHashMap<LocId, ObjAttrs>,
    findings: FxIndexSet<Finding>,
    reporting: bool,
    steps: usize,
    gave_up: bool,
    /// `CUDA_LINT_TRACE=name` prints each statement of bodies whose path contains `name`.
    trace: bool,
}

impl<'a, 'tcx> Interp<'a, 'tcx> {
    /// Analyses one body of the crate and returns what it found.
    pub fn analyze(rs: &'a Resolver<'tcx>, def_id: LocalDefId) -> Vec<Finding> {
        let tcx = rs.tcx;
        let body = tcx.optimized_mir(def_id.to_def_id());
        let mut interp = Interp {
            rs,
            tcx,
            typing_env: TypingEnv::post_analysis(tcx, def_id),
            locs: Locs::new(rs),
            ops: Vec::new(),
            op_index: FxHashMap::default(),
            frames: Vec::new(),
            frame_index: FxHashMap::default(),
            attrs: FxHashMap::default(),
            findings: FxIndexSet::default(),
            reporting: false,
            steps: 0,
            gave_up: false,
            trace: std::env::var("CUDA_LINT_TRACE")
                .is_ok_and(|t| !t.is_empty() && tcx.def_path_str(def_id.to_def_id()).contains(&t)),
        };
        interp.frames.push(Frame {
            body,
            def_id: def_id.to_def_id(),
            args: None,
            depth: 0,
            entered_from: None,
            parent: None,
            names: debug_names(tcx, body).0,
            named_paths: debug_names(tcx, body).1,
        });
        let _ = interp.run_frame(FrameId::ROOT, State::default(), true);
        if interp.gave_up {
            return Vec::new();
        }
        interp.findings.into_iter().collect()
    }

    // ------------------------------------------------------------------------------------
    // Control flow

    /// Runs a frame to its fixpoint from `entry`; with `report`, sweeps once more reporting
    /// findings. Returns the state at its returns (`None` if it never returns).
    fn run_frame(&mut self, f: FrameId, entry: State, report: bool) -> Option<State> {
        let body = self.frames[f.0 as usize].body;
        let rpo: Vec<BasicBlock> = body.basic_blocks.reverse_postorder().to_vec();
        let mut order: IndexVec<BasicBlock, usize> = IndexVec::from_elem_n(usize::MAX, body.basic_blocks.len());
        for (i, bb) in rpo.iter().enumerate() {
            order[*bb] = i;
        }
        let mut ins: IndexVec<BasicBlock, Option<State>> = IndexVec::from_elem_n(None, body.basic_blocks.len());
        ins[mir::START_BLOCK] = Some(entry);
        let mut dirty: BTreeSet<usize> = BTreeSet::from([0]);
        let mut exit: Option<State> = None;
        let mut error_exit: Option<State> = None;
        let was_reporting = self.reporting;
        self.reporting = false;
        while let Some(i) = dirty.pop_first() {
            if self.gave_up {
                break;
            }
            let bb = rpo[i];
            let Some(mut state) = ins[bb].clone() else { continue };
            let mut next = self.block(f, bb, &mut state);
            // A path that has set its result to an error only drops and returns from here: it
            // goes to the error exit without joining (and weakening) the paths that succeed.
            if state.returning_error {
                next = Next::Return;
            }
            match next {
                // Error returns (`Err(..)`, `?`) are kept apart: a caller goes on after a
                // call only where it succeeded.
                Next::Return => match if state.returning_error {
                    &mut error_exit
                } else {
                    &mut exit
                } {
                    Some(e) => {
                        e.join(&state);
                    }
                    slot @ None => *slot = Some(state),
                },
                Next::Blocks(succs) => {
                    for succ in succs {
                        let changed = match &mut ins[succ] {
                            Some(s) => s.join(&state),
                            slot @ None => {
                                *slot = Some(state.clone());
                                true
                            }
                        };
                        if changed && order[succ] != usize::MAX {
                            dirty.insert(order[succ]);
                        }
                    }
                }
            }
        }
        if report && !self.gave_up {
            self.reporting = true;
            for &bb in &rpo {
                if let Some(state) = &ins[bb] {
                    let mut state = state.clone();
                    let _ = self.block(f, bb, &mut state);
                }
            }
        }
        self.reporting = was_reporting;
        exit.or(error_exit).map(|mut e| {
            e.returning_error = false;
            e
        })
    }

    fn block(&mut self, f: FrameId, bb: BasicBlock, state: &mut State) -> Next {
        let body = self.frames[f.0 as usize].body;
        let data = &body.basic_blocks[bb];
        let trace = self.trace;
        for stmt in &data.statements {
            self.steps += 1;
            self.statement(f, stmt, state);
            if trace {
                eprintln!("  {:?}/{bb:?} {stmt:?}\n      {}", f, self.show(state));
            }
        }
        if trace {
            eprintln!("  {:?}/{bb:?} {:?}", f, data.terminator().kind);
        }
        self.steps += 1;
        if self.steps > STEP_BUDGET {
            self.gave_up = true;
            return Next::Blocks(Vec::new());
        }
        let term = data.terminator();
        match &term.kind {
            TerminatorKind::Return => return Next::Return,
            TerminatorKind::Call {
                func,
                args,
                destination,
                target,
                fn_span,
                ..
            } => {
                self.call(f, bb, term.source_info, *fn_span, func, args, *destination, state);
                if target.is_none() {
                    return Next::Blocks(Vec::new());
                }
            }
            TerminatorKind::TailCall { func, args, fn_span } => {
                let ret = Place::return_place();
                self.call(f, bb, term.source_info, *fn_span, func, args, ret, state);
                return Next::Return;
            }
            TerminatorKind::Drop { place, .. } => self.drop_place(f, *place, term.source_info, state),
            TerminatorKind::InlineAsm { operands, .. } => {
                for op in operands {
                    if let mir::InlineAsmOperand::In { value, .. } = op {
                        let _ = self.operand(f, value, term.source_info, state);
                    }
                }
            }
            _ => {}
        }
        if trace {
            eprintln!("      after {bb:?}: {}", self.show(state));
        }
        Next::Blocks(
            term.successors()
                .filter(|s| !body.basic_blocks[*s].is_cleanup)
                .collect(),
        )
    }

    // ------------------------------------------------------------------------------------
    // Statements and values

    fn statement(&mut self, f: FrameId, stmt: &mir::Statement<'tcx>, state: &mut State) {
        match &stmt.kind {
            StatementKind::Assign(box (place, rvalue)) => {
                if *place == Place::return_place() {
                    state.returning_error = self.is_error_variant(rvalue);
                }
                let val = self.rvalue(f, rvalue, stmt.source_info, state);
                self.assign(f, *place, val, stmt.source_info, state);
            }
            StatementKind::StorageDead(local) => {
                for &loc in self.locs.of_local(f, *local) {
                    state.values.remove(&loc);
                }
            }
            StatementKind::Intrinsic(box mir::NonDivergingIntrinsic::CopyNonOverlapping(c)) => {
                let src = self.operand(f, &c.src, stmt.source_info, state);
                let dst = self.operand(f, &c.dst, stmt.source_info, state);
                let src = self.reach(state, &src, 0);
                let dst = self.reach(state, &dst, 0);
                self.host_access(f, &src, Access::Read, stmt.source_info, state);
                self.host_access(f, &dst, Access::Write, stmt.source_info, state);
            }
            _ => {}
        }
    }

    /// Whether an rvalue builds the failure variant of an enum (`Err(..)`, `None`).
    fn is_error_variant(&self, rvalue: &Rvalue<'tcx>) -> bool {
        match rvalue {
            Rvalue::Aggregate(box mir::AggregateKind::Adt(def_id, v, ..), _) => {
                let def = self.tcx.adt_def(*def_id);
                def.is_enum() && matches!(def.variant(*v).name.as_str(), "Err" | "None")
            }
            _ => false,
        }
    }

    fn local_loc(&mut self, f: FrameId, local: Local) -> LocId {
        let decl = &self.frames[f.0 as usize].body.local_decls[local];
        let ty = self.instantiate(f, decl.ty);
        self.locs.local(f, local, ty, decl.source_info.span)
    }

    fn instantiate<T>(&self, f: FrameId, value: T) -> T
    where
        T: ty::TypeFoldable<TyCtxt<'tcx>> + Copy,
    {
        match self.frames[f.0 as usize].args {
            None => value,
            Some(args) => self
                .tcx
                .try_instantiate_and_normalize_erasing_regions(args, self.typing_env, ty::EarlyBinder::bind(value))
                .unwrap_or(value),
        }
    }

    /// The locations a place may denote.
    fn place(&mut self, f: FrameId, place: Place<'tcx>, state: &State) -> LocSet {
        let mut cur = LocSet::single(self.local_loc(f, place.local));
        // The variant a `Downcast` selected, for the field projection that follows it.
        let mut variant = None;
        for elem in place.projection {
            if let ProjectionElem::Downcast(_, v) = elem {
                variant = Some(v.as_u32());
                continue;
            }
            let downcast = variant.take();
            cur = match elem {
                ProjectionElem::Deref => {
                    let mut next = LocSet::new();
                    for l in cur.iter() {
                        next.union_with(&self.read_value(state, l));
                    }
                    next
                }
                ProjectionElem::Field(field, _) => {
                    let proj = match downcast {
                        Some(v) => Proj::Variant(v, field.as_u32()),
                        None => Proj::Field(field.as_u32()),
                    };
                    cur.iter().map(|l| self.locs.child(l, proj)).collect()
                }
                ProjectionElem::Index(_) | ProjectionElem::ConstantIndex { .. } | ProjectionElem::Subslice { .. } => {
                    cur.iter().map(|l| self.locs.child(l, Proj::Index)).collect()
                }
                _ => cur,
            };
        }
        cur
    }

    /// What a location refers to (see [`State::values`]).
    fn read_value(&mut self, state: &State, loc: LocId) -> LocSet {
        if let Some(v) = state.values.get(&loc) {
            return v.clone();
        }
        // An aggregate: what its fields refer to.
        let mut acc = LocSet::new();
        let mut found = false;
        self.collect_fields(state, loc, &mut acc, &mut found, 3);
        if found {
            return acc;
        }
        // A field of an aggregate stored as a whole.
        let mut cur = loc;
        while let Some((parent, proj)) = self.locs.get(cur).parent {
            if proj == Proj::Deref {
                break;
            }
            if let Some(v) = state.values.get(&parent) {
                return v.clone();
            }
            cur = parent;
        }
        // Its own symbolic target.
        let data = self.locs.get(loc);
        let pointer_like =
            matches!(data.kind, LocKind::Handle(_)) || data.ty.is_some_and(|t| t.is_any_ptr() || t.is_box());
        if pointer_like {
            LocSet::single(self.locs.child(loc, Proj::Deref))
        } else {
            LocSet::new()
        }
    }

    fn collect_fields(&self, state: &State, loc: LocId, acc: &mut LocSet, found: &mut bool, depth: u32) {
        for &(proj, child) in &self.locs.get(loc).children {
            if proj == Proj::Deref {
                continue;
            }
            if let Some(v) = state.values.get(&child) {
                acc.union_with(v);
                *found = true;
            } else if depth > 0 {
                self.collect_fields(state, child, acc, found, depth - 1);
            }
        }
    }

    /// What the values refer to, with handles replaced by their memory or object.
    fn derive(&mut self, state: &State, values: &LocSet) -> LocSet {
        let mut out = LocSet::new();
        for l in values.iter() {
            match self.locs.kind(l) {
                LocKind::Handle(_) => {
                    out.union_with(&self.read_value(state, l));
                }
                _ => {
                    out.insert(l);
                }
            }
        }
        out
    }

    /// Pointers derived by a view, made to point at a value of the view's result type: an
    /// element of a slice (`Index::index` returning `&T`), or the value a wrapper holds
    /// (`Deref` of a `MutexGuard`, a `Ref`, an `Rc`), found by following what the wrapper
    /// points at.
    fn narrow(&mut self, state: &State, values: &LocSet, ret_ty: Ty<'tcx>) -> LocSet {
        let target = match peel_result(ret_ty).kind() {
            ty::Ref(_, t, _) | ty::RawPtr(t, _) => *t,
            _ => return values.clone(),
        };
        values
            .iter()
            .flat_map(|l| self.narrow_one(state, l, target, 3).iter().collect::<Vec<_>>())
            .collect()
    }

    fn narrow_one(&mut self, state: &State, l: LocId, target: Ty<'tcx>, depth: u32) -> LocSet {
        let Some(lty) = self.locs.get(l).ty else {
            return LocSet::single(l);
        };
        if lty == target || depth == 0 {
            return LocSet::single(l);
        }
        match (lty.kind(), self.locs.kind(l)) {
            (ty::Slice(elem) | ty::Array(elem, _), _) if *elem == target => {
                LocSet::single(self.locs.child(l, Proj::Index))
            }
            // An element of a `Vec<T>` (iterating over `&vec`).
            (_, LocKind::Handle(Target::Mem(_)))
                if self
                    .locs
                    .target_ty(lty)
                    .is_some_and(|t| matches!(t.kind(), ty::Slice(e) if *e == target)) =>
            {
                let data = self.read_value(state, l);
                data.iter().map(|d| self.locs.child(d, Proj::Index)).collect()
            }
            // Views of memory contents stay on the contents (`&[T]` from `&[T; N]`, `as_ptr`).
            (_, LocKind::Data(_)) | (_, LocKind::Handle(_)) | (_, LocKind::Object(_)) => LocSet::single(l),
            (ty::Adt(..), LocKind::Plain) => {
                // A guard or smart pointer points at its value; `ManuallyDrop<T>` holds it.
                if self.pointer_like(lty, 2) {
                    let inner = self.read_value(state, l);
                    inner
                        .iter()
                        .flat_map(|i| self.narrow_one(state, i, target, depth - 1).iter().collect::<Vec<_>>())
                        .collect()
                } else {
                    LocSet::single(self.locs.inside(l, target))
                }
            }
            _ => LocSet::single(l),
        }
    }

    /// Whether values of `ty` point at what they give access to (`MutexGuard`, `Ref`, `Rc`,
    /// `Box`, references) rather than holding it, judged by its fields (`depth` levels deep).
    fn pointer_like(&self, ty: Ty<'tcx>, depth: u32) -> bool {
        match ty.kind() {
            ty::Ref(..) | ty::RawPtr(..) => true,
            ty::Adt(..) if ty.is_box() => true,
            ty::Adt(..) if self.rs.role(ty).is_some() => false,
            ty::Adt(def, args) if depth > 0 => def
                .all_fields()
                .any(|f| self.pointer_like(f.ty(self.tcx, args).skip_normalization(), depth - 1)),
            _ => false,
        }
    }

    /// The memory reachable from `values` within `depth` more pointer hops. Numbers are not
    /// followed: an address printed or compared is not memory read.
    fn reach(&mut self, state: &State, values: &LocSet, depth: u32) -> LocSet {
        self.reach_nested(state, values, depth, false)
    }

    fn reach_nested(&mut self, state: &State, values: &LocSet, depth: u32, nested: bool) -> LocSet {
        let mut out = LocSet::new();
        for l in values.iter() {
            match self.locs.kind(l) {
                LocKind::Data(_) => {
                    out.insert(l);
                }
                LocKind::Handle(Target::Mem(_)) => {
                    let data = self.read_value(state, l);
                    out.union_with(&self.reach_nested(state, &data, 0, true));
                }
                // A raw pointer stored behind the argument (`format!("{p:?}")` gets `&p`) is
                // an address to print or compare; only one passed itself is dereferenced.
                LocKind::Plain
                    if depth > 0
                        && self.locs.get(l).ty.is_some_and(|t| {
                            !t.is_integral() && !(nested && t.is_raw_ptr()) && self.locs.holds_pointers(t)
                        }) =>
                {
                    let inner = self.read_value(state, l);
                    out.union_with(&self.reach_nested(state, &inner, depth - 1, true));
                }
                _ => {}
            }
        }
        out
    }

    fn operand(&mut self, f: FrameId, op: &Operand<'tcx>, si: SourceInfo, state: &mut State) -> LocSet {
        match op {
            Operand::Copy(place) | Operand::Move(place) => {
                let locs = self.place(f, *place, state);
                if place.is_indirect() {
                    self.host_access(f, &locs, Access::Read, si, state);
                }
                let mut v = LocSet::new();
                for l in locs.iter() {
                    v.union_with(&self.read_value(state, l));
                }
                v
            }
            _ => LocSet::new(),
        }
    }

    fn rvalue(&mut self, f: FrameId, rvalue: &Rvalue<'tcx>, si: SourceInfo, state: &mut State) -> Val {
        match rvalue {
            Rvalue::Use(op, _) => {
                if let Operand::Copy(place) | Operand::Move(place) = op {
                    let locs = self.place(f, *place, state);
                    if let Some(single) = locs.iter().next()
                        && locs.len() == 1
                        && self.is_aggregate(single)
                    {
                        if place.is_indirect() {
                            self.host_access(f, &locs, Access::Read, si, state);
                        }
                        let v = self.read_value(state, single);
                        return Val::Tree(single, v);
                    }
                }
                Val::Set(self.operand(f, op, si, state))
            }
            Rvalue::Ref(_, _, place) | Rvalue::RawPtr(_, place) => Val::Set(self.place(f, *place, state)),
            Rvalue::CopyForDeref(place) => {
                let op = Operand::Copy(*place);
                Val::Set(self.operand(f, &op, si, state))
            }
            Rvalue::Cast(_, op, _) => Val::Set(self.operand(f, op, si, state)),
            Rvalue::BinaryOp(bin, box (a, b)) => {
                let mut va = self.operand(f, a, si, state);
                let vb = self.operand(f, b, si, state);
                let pointer_math = matches!(
                    bin,
                    BinOp::Add
                        | BinOp::AddUnchecked
                        | BinOp::AddWithOverflow
                        | BinOp::Sub
                        | BinOp::SubUnchecked
                        | BinOp::SubWithOverflow
                        | BinOp::Offset
                        | BinOp::BitAnd
                        | BinOp::BitOr
                );
                if pointer_math {
                    va.union_with(&vb);
                    Val::Set(va)
                } else {
                    Val::Set(LocSet::new())
                }
            }
            Rvalue::UnaryOp(_, op) => {
                let _ = self.operand(f, op, si, state);
                Val::Set(LocSet::new())
            }
            Rvalue::Aggregate(kind, ops) => {
                let is_array = matches!(**kind, mir::AggregateKind::Array(_));
                let variant = match **kind {
                    mir::AggregateKind::Adt(def_id, v, ..) if self.tcx.adt_def(def_id).is_enum() => Some(v.as_u32()),
                    _ => None,
                };
                let mut fields = Vec::with_capacity(ops.len());
                for (i, op) in ops.iter().enumerate() {
                    let src = self.single_aggregate(f, op, state);
                    let v = self.operand(f, op, si, state);
                    let proj = match variant {
                        _ if is_array => Proj::Index,
                        Some(v) => Proj::Variant(v, i as u32),
                        None => Proj::Field(i as u32),
                    };
                    // An array literal (a launch's argument list) also keeps each slot apart,
                    // as field `i`, besides the elements all together.
                    if is_array && ops.len() <= MAX_ARRAY_SLOTS {
                        fields.push((Proj::Field(i as u32), v.clone(), src));
                    }
                    fields.push((proj, v, src));
                }
                Val::Fields(fields)
            }
            Rvalue::Repeat(op, _) => {
                let v = self.operand(f, op, si, state);
                Val::Fields(vec![(Proj::Index, v, None)])
            }
            Rvalue::Discriminant(place) => {
                let locs = self.place(f, *place, state);
                if place.is_indirect() {
                    self.host_access(f, &locs, Access::Read, si, state);
                }
                Val::Set(LocSet::new())
            }
            _ => Val::Set(LocSet::new()),
        }
    }

    /// The one location an operand moves or copies from, when it is an aggregate.
    fn single_aggregate(&mut self, f: FrameId, op: &Operand<'tcx>, state: &State) -> Option<LocId> {
        let place = op.place()?;
        let locs = self.place(f, place, state);
        let loc = single(&locs)?;
        self.is_aggregate(loc).then_some(loc)
    }

    /// Whether a location holds fields worth copying one by one when it is moved: a struct,
    /// tuple, closure or array, or a variant's field whose type the path does not tell.
    fn is_aggregate(&self, loc: LocId) -> bool {
        let data = self.locs.get(loc);
        matches!(data.kind, LocKind::Plain)
            && data
                .ty
                .is_none_or(|t| matches!(t.kind(), ty::Adt(..) | ty::Tuple(_) | ty::Closure(..) | ty::Array(..)))
    }

    fn assign(&mut self, f: FrameId, place: Place<'tcx>, val: Val, si: SourceInfo, state: &mut State) {
        let dests = self.place(f, place, state);
        if place.is_indirect() {
            self.host_access(f, &dests, Access::Write, si, state);
        }
        let strong = dests.len() == 1
            && !place.is_indirect()
            && !place
                .projection
                .iter()
                .any(|p| matches!(p, ProjectionElem::Index(_) | ProjectionElem::Subslice { .. }));
        for dest in dests.iter() {
            if strong {
                self.clear(state, dest);
            }
            match &val {
                Val::Set(v) => self.store(state, dest, v, strong),
                Val::Fields(fields) => {
                    for (proj, v, src) in fields {
                        let child = self.locs.child(dest, *proj);
                        let strong_field = strong && *proj != Proj::Index;
                        if let Some(src) = src {
                            self.copy_tree(state, *src, child, 3);
                        }
                        self.store(state, child, v, strong_field);
                    }
                }
                Val::Tree(src, v) => {
                    self.copy_tree(state, *src, dest, 3);
                    self.store(state, dest, v, strong);
                }
            }
        }
    }

    fn store(&mut self, state: &mut State, dest: LocId, v: &LocSet, strong: bool) {
        if strong {
            if v.is_empty() {
                state.values.remove(&dest);
            } else {
                state.values.insert(dest, v.clone());
            }
        } else if !v.is_empty() {
            state.values.entry(dest).or_default().union_with(v);
        }
    }

    /// Forgets what a location and its fields held (before a strong update).
    fn clear(&mut self, state: &mut State, loc: LocId) {
        state.values.remove(&loc);
        let children: Vec<(Proj, LocId)> = self.locs.get(loc).children.clone();
        for (proj, child) in children {
            if proj != Proj::Deref {
                self.clear(state, child);
            }
        }
    }

    /// Copies the values of `src`'s fields to the same fields of `dest`.
    fn copy_tree(&mut self, state: &mut State, src: LocId, dest: LocId, depth: u32) {
        if depth == 0 || src == dest {
            return;
        }
        let children: Vec<(Proj, LocId)> = self.locs.get(src).children.clone();
        for (proj, child) in children {
            if proj == Proj::Deref {
                continue;
            }
            let target = self.locs.child(dest, proj);
            if let Some(v) = state.values.get(&child).cloned() {
                state.values.insert(target, v);
            }
            self.copy_tree(state, child, target, depth - 1);
        }
    }

    // ------------------------------------------------------------------------------------
    // Calls

    #[allow(clippy::too_many_arguments)]
    fn call(
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
        let call = CallSite {
            f,
            bb,
            si,
            span: fn_span,
            args,
            argvals: &argvals,
        };

        let ret = if let ty::FnDef(def_id, fargs) = *func_ty.kind() {
            let resolved = self.resolve_instance(def_id, fargs);
            let effects = resolved
                .and_then(|inst| self.rs.effects(inst.def_id()))
                .or_else(|| self.rs.effects(def_id));
            if let Some(effects) = effects {
                let ret_ty = self.instantiate(f, destination.ty(&body.local_decls, self.tcx).ty);
                self.apply(&call, effects, ret_ty, state)
            } else if let Some(ret) = self.try_inline(&call, def_id, fargs, resolved, state) {
                ret
            } else {
                self.unknown_call(&call, destination, state)
            }
        } else {
            self.unknown_call(&call, destination, state)
        };
        if destination == Place::return_place() {
            // `return Err(e.into())` through `?` ends in `FromResidual::from_residual`.
            state.returning_error = matches!(*func_ty.kind(), ty::FnDef(def_id, _)
                if self.tcx.item_name(def_id).as_str() == "from_residual");
        }
        self.assign(f, destination, ret, si, state);
    }

    fn resolve_instance(&self, def_id: DefId, args: GenericArgsRef<'tcx>) -> Option<Instance<'tcx>> {
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
    fn unknown_call(&mut self, call: &CallSite<'_, 'tcx>, destination: Place<'tcx>, state: &mut State) -> Val {
        let f = call.f;
        self.run_passed_closures(call, state);
        let body = self.frames[f.0 as usize].body;
        let mut all = LocSet::new();
        for (arg, vals) in call.args.iter().zip(call.argvals) {
            let ty = self.instantiate(f, arg.node.ty(&body.local_decls, self.tcx));
            all.union_with(vals);
            // An address passed as a number is not memory read.
            if ty.is_integral() {
                continue;
            }
            let mut data = self.reach(state, vals, 2);
            // Device memory is dereferenced only through a raw pointer passed itself
            // (`ptr::read(p)`); a function given a device handle or a number uses CUDA calls.
            if !ty.is_raw_ptr() {
                data.retain(|l| !matches!(self.locs.kind(l), LocKind::Data(k) if k.is_device_only()));
            }
            let access = if writes_through(ty) {
                Access::Write
            } else {
                Access::Read
            };
            self.host_access(f, &data, access, call.si, state);
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
            }
            return Val::Set(LocSet::single(fresh));
        }
        if !self.locs.holds_pointers(ret_ty) {
            return Val::Set(LocSet::new());
        }
        Val::Set(all)
    }

    /// Whether a call builds a new value (by the callee's name).
    fn is_constructor(&self, f: FrameId, call: &CallSite<'_, 'tcx>) -> bool {
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

    fn try_inline(
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
        // Nothing to learn from a helper that touches no CUDA API and gets no tracked memory.
        if !self.rs.touches_cuda(local) && call.argvals.iter().all(LocSet::is_empty) {
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

    /// The fields of a tuple argument (a closure's arguments), as bindings of parameters 2, 3...
    fn untupled(&mut self, f: FrameId, tuple_op: &Operand<'tcx>, state: &State) -> Vec<Binding> {
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
    fn arg_place_loc(&mut self, f: FrameId, op: &Operand<'tcx>, state: &State) -> Option<LocId> {
        let place = op.place()?;
        single(&self.place(f, place, state))
    }

    /// Runs a function of the crate in the caller's state, its parameters bound to the given
    /// values (and, for aggregates, the fields of a location); `None` if it cannot be run here.
    fn inline_body(
        &mut self,
        call: &CallSite<'_, 'tcx>,
        callee: DefId,
        callee_args: Option<GenericArgsRef<'tcx>>,
        bindings: &[Binding],
        state: &mut State,
    ) -> Option<Val> {
        let tcx = self.tcx;
        let frame = &self.frames[call.f.0 as usize];
        if frame.depth >= MAX_INLINE_DEPTH
            || !callee.is_local()
            || !tcx.is_mir_available(callee)
            || tcx.is_coroutine(callee)
            || self.on_stack(call.f, callee)
            || super::resolve::has_unsatisfiable_preds(tcx, callee)
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
            self.store(&mut entry, loc, vals, true);
        }
        let exit = self.run_frame(child, entry, self.reporting)?;
        *state = exit;
        let ret_loc = self.local_loc(child, mir::RETURN_PLACE);
        let ret_val = self.read_value(state, ret_loc);
        // The callee's locals are dead now.
        for local in body.local_decls.indices() {
            if local == mir::RETURN_PLACE {
                continue;
            }
            for &loc in self.locs.of_local(child, local) {
                state.values.remove(&loc);
            }
        }
        Some(Val::Tree(ret_loc, ret_val))
    }

    /// Runs the crate's closures a call we cannot see into receives (`iter.map(|x| ..)`,
    /// `for_each`, a `&dyn Fn`): the callee is taken to call them, with arguments unknown
    /// (except a `dyn Fn` called directly, whose arguments are the call's).
    fn run_passed_closures(&mut self, call: &CallSite<'_, 'tcx>, state: &mut State) {
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
        for closure in closures {
            let Some(ty::Closure(def_id, cargs)) = self.locs.get(closure).ty.map(|t| *t.kind()) else {
                continue;
            };
            if !def_id.is_local() || !self.tcx.is_mir_available(def_id) {
                continue;
            }
            let env_by_ref = self
                .tcx
                .optimized_mir(def_id)
                .local_decls
                .get(Local::from_usize(1))
                .is_some_and(|d| d.ty.is_ref());
            let mut bindings = if env_by_ref {
                vec![(1, LocSet::single(closure), None)]
            } else {
                vec![(1, self.read_value(state, closure), Some(closure))]
            };
            // `f(args)` on a `&dyn Fn`: the arguments are the call's second operand.
            if call.args.len() == 2 && matches!(call.args[1].node.ty(&body.local_decls, self.tcx).kind(), ty::Tuple(_))
            {
                bindings.extend(self.untupled(f, &call.args[1].node, state));
            }
            let _ = self.inline_body(call, def_id, Some(cargs), &bindings, state);
        }
    }

    fn on_stack(&self, mut f: FrameId, callee: DefId) -> bool {
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

    fn enter_frame(
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
        let depth = parent.depth + 1;
        self.frames.push(Frame {
            body,
            def_id: callee,
            args,
            depth,
            entered_from,
            parent: Some(call.f),
            names: debug_names(self.tcx, body).0,
            named_paths: debug_names(self.tcx, body).1,
        });
        self.frame_index.insert((call.f, call.bb, callee), id);
        id
    }

    /// Applies the table effects of a call; returns the call's result.
    fn apply(&mut self, call: &CallSite<'_, 'tcx>, effects: &[Effect], ret_ty: Ty<'tcx>, state: &mut State) -> Val {
        let f = call.f;
        let mut ret = LocSet::new();
        let mut tree: Option<LocId> = None;
        for (which, effect) in effects.iter().enumerate() {
            match *effect {
                Effect::New(target) => {
                    let handle = peel_result(ret_ty);
                    let ty = matches!(target, Target::Mem(_))
                        .then(|| self.locs.target_ty(handle))
                        .flatten();
                    let new = self.locs.fresh(f, call.bb, which as u8, target, call.span, ty);
                    self.locs.set_allocated(new);
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
                    // The value becomes an element: what it refers to, the element refers to.
                    let vals = self.arg(call, value, &ret);
                    for data in self.data_arg(call, vec, &ret, state).iter() {
                        let element = self.locs.child(data, Proj::Index);
                        state.values.entry(element).or_default().union_with(&vals);
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
                    let data = self.reach(state, &v, 2);
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
                    let events = self.objects(call, event, state);
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
                    self.attrs.entry(mapping).or_default().physical.union_with(&phys);
                    ret.insert(mapping);
                }
            }
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

    fn is_enum(&self, loc: LocId) -> bool {
        self.locs.get(loc).ty.is_some_and(|t| t.is_enum())
    }

    /// The field of an enum's variant that holds something (`Some(x)`, `Ok(x)`).
    fn payload(&self, loc: LocId) -> Option<LocId> {
        self.locs
            .get(loc)
            .children
            .iter()
            .filter(|(p, _)| matches!(p, Proj::Variant(_, 0)))
            .max_by_key(|(_, c)| self.locs.get(*c).children.len())
            .map(|&(_, c)| c)
    }

    /// Whether work that may be in flight uses any of `data`.
    fn in_use(&self, state: &State, data: &LocSet) -> bool {
        state.inflight_may.iter().any(|op| {
            let info = &self.ops[op.0 as usize];
            info.reads
                .iter()
                .chain(info.writes.iter())
                .any(|u| data.iter().any(|d| self.locs.overlaps(u, d)))
        })
    }

    fn arg(&self, call: &CallSite<'_, 'tcx>, a: u8, ret: &LocSet) -> LocSet {
        if a == RET {
            ret.clone()
        } else {
            call.argvals.get(a as usize).cloned().unwrap_or_default()
        }
    }

    /// The memory an argument refers to.
    fn data_arg(&mut self, call: &CallSite<'_, 'tcx>, a: u8, ret: &LocSet, state: &State) -> LocSet {
        let v = self.arg(call, a, ret);
        let mut d = self.derive(state, &v);
        d.retain(|l| matches!(self.locs.kind(l), LocKind::Data(_)));
        d
    }

    /// The CUDA objects an argument refers to (streams, events, modules...).
    fn objects(&mut self, call: &CallSite<'_, 'tcx>, a: u8, state: &State) -> LocSet {
        let v = self.arg(call, a, &LocSet::new());
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
    fn const_strs(&self, call: &CallSite<'_, 'tcx>, a: u8) -> Vec<Option<String>> {
        let body = self.frames[call.f.0 as usize].body;
        call.args
            .get(a as usize)
            .and_then(|op| const_strs_of(self.tcx, self.typing_env, body, &op.node, 4))
            .map_or_else(|| vec![None], |v| v.into_iter().map(Some).collect())
    }

    #[allow(clippy::too_many_arguments)]
    fn copy(
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
        let (host, host_arg) = match dir {
            Dir::HostToDevice => (Some(&src_data), src),
            Dir::DeviceToHost => (Some(&dst_data), dst),
            Dir::DeviceToDevice => (None, dst),
        };
        if is_async && let Some(host) = host {
            self.pageable_check(call, host, host_arg, dir, state);
        }
        // The host side of a pageable copy is done when the call returns.
        let in_flight = |this: &Self, set: &LocSet| -> LocSet {
            let mut s = set.clone();
            s.retain(|l| matches!(this.locs.kind(l), LocKind::Data(k) if k.can_be_in_flight()));
            s
        };
        let reads = in_flight(self, &src_data);
        let writes = in_flight(self, &dst_data);
        let streams = self.objects(call, stream, state);
        self.enqueue(call, OpKind::Copy, streams, reads, writes, state);
    }

    fn pageable_check(&mut self, call: &CallSite<'_, 'tcx>, host: &LocSet, host_arg: u8, dir: Dir, state: &State) {
        if !self.reporting {
            return;
        }
        let mut pageable = Vec::new();
        let mut others = 0;
        for l in host.iter() {
            let root = self.locs.data_root(l);
            match self.locs.kind(l) {
                LocKind::Data(MemKind::Pageable) => pageable.push(root),
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
            },
            some_paths,
        );
    }

    fn launch(&mut self, call: &CallSite<'_, 'tcx>, kernel: u8, stream: u8, args: u8, state: &mut State) {
        let kernels = self.objects(call, kernel, state);
        let argv = self.arg(call, args, &LocSet::new());
        let (slots, apart) = self.arg_slots(state, &argv);
        let mut touched = LocSet::new();
        for slot in &slots {
            touched.union_with(slot);
        }
        touched.retain(|l| !matches!(self.locs.kind(l), LocKind::Data(MemKind::Pageable)));
        let streams = self.objects(call, stream, state);
        self.alias_in_one_kernel(call, &kernels, &slots, apart, state);
        self.enqueue(call, OpKind::Launch, streams, touched.clone(), touched, state);
    }

    /// The memory each kernel argument reaches, one set per argument when the argument list
    /// is an array literal (`&[&a, &b, &n]`), else one set for all (`false`).
    fn arg_slots(&mut self, state: &State, argv: &LocSet) -> (Vec<LocSet>, bool) {
        let mut slots: Vec<LocSet> = Vec::new();
        for list in argv.iter() {
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
                let reached = self.reach(state, &values, 2);
                if slots.len() <= i as usize {
                    slots.resize_with(i as usize + 1, LocSet::new);
                }
                slots[i as usize].union_with(&reached);
            }
        }
        if slots.is_empty() {
            (vec![self.reach(state, argv, 3)], false)
        } else {
            (slots, true)
        }
    }

    /// Enqueues an operation: checks it against unordered work on other streams, then starts it.
    fn enqueue(
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
            });
            id
        });
        {
            let op = &mut self.ops[id.0 as usize];
            op.streams.union_with(&streams);
            op.reads.union_with(&reads);
            op.writes.union_with(&writes);
        }
        if self.reporting {
            self.cross_stream_checks(call, id, state);
        }
        state.start(id);
    }

    /// Operations that may run on `streams`, or that those streams wait for.
    fn ops_on(&self, streams: &LocSet, state: &State) -> OpSet {
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

    fn sync_streams(&self, streams: &LocSet, state: &mut State) {
        let done = self.ops_on(streams, state);
        state.finish(&done);
    }

    /// Whether operation `earlier` is ordered before new work on `streams`.
    fn ordered_before(&self, earlier: OpId, streams: &LocSet, state: &State) -> bool {
        let op = &self.ops[earlier.0 as usize];
        op.streams.is_empty()
            || streams.is_empty()
            || op.streams.intersects(streams)
            || streams
                .iter()
                .any(|s| state.stream_waits.get(&s).is_some_and(|w| w.contains(earlier)))
    }

    fn cross_stream_checks(&mut self, call: &CallSite<'_, 'tcx>, new: OpId, state: &State) {
        let op = self.ops[new.0 as usize].clone();
        for other in state.inflight_may.clone().iter() {
            if other == new || self.ordered_before(other, &op.streams, state) {
                continue;
            }
            let prev = self.ops[other.0 as usize].clone();
            let some_paths = !state.inflight_must.contains(other);
            // Two mappings of one physical allocation, used by unordered work.
            let mine: Vec<LocId> = op
                .reads
                .iter()
                .chain(op.writes.iter())
                .filter(|l| self.is_mapping(*l))
                .collect();
            let theirs: Vec<LocId> = prev
                .reads
                .iter()
                .chain(prev.writes.iter())
                .filter(|l| self.is_mapping(*l))
                .collect();
            if let Some((a, b)) = self.alias_pair(&mine, &theirs) {
                let first = self.region(call.f, b, state);
                let second = self.region(call.f, a, state);
                let other_desc = self.in_flight(call.f, other, state);
                self.report(
                    call.f,
                    call.span,
                    call.si,
                    FindingKind::AliasAcrossStreams {
                        first,
                        second,
                        other: other_desc,
                    },
                    some_paths,
                );
                continue;
            }
            // The same memory reused while unordered work on another stream uses it.
            let conflict = op.writes.iter().find_map(|w| {
                prev.reads
                    .iter()
                    .chain(prev.writes.iter())
                    .find(|p| self.locs.overlaps(w, *p))
                    .map(|_| w)
            });
            let conflict = conflict.or_else(|| {
                op.reads
                    .iter()
                    .find(|r| prev.writes.iter().any(|p| self.locs.overlaps(*r, p)))
            });
            if let Some(l) = conflict
                && let LocKind::Data(k) = self.locs.kind(l)
                && k != MemKind::Unknown
            {
                let target = self.region(call.f, self.locs.data_root(l), state);
                let other_desc = self.in_flight(call.f, other, state);
                self.report(
                    call.f,
                    call.span,
                    call.si,
                    FindingKind::MissingSync {
                        access: Access::Reuse,
                        target,
                        op: other_desc,
                    },
                    some_paths,
                );
            }
        }
    }

    fn is_mapping(&self, l: LocId) -> bool {
        matches!(self.locs.kind(l), LocKind::Data(MemKind::VmmMapping))
    }

    /// Two different mappings (one from each list) of the same physical allocation.
    fn alias_pair(&self, a: &[LocId], b: &[LocId]) -> Option<(LocId, LocId)> {
        for &x in a {
            let rx = self.locs.data_root(x);
            // A mapping of unknown origin (a parameter) can be paired with nothing.
            let Some(px) = self.attrs.get(&rx).map(|at| &at.physical) else {
                continue;
            };
            for &y in b {
                let ry = self.locs.data_root(y);
                if rx == ry {
                    continue;
                }
                if let Some(py) = self.attrs.get(&ry).map(|at| &at.physical)
                    && px.intersects(py)
                {
                    return Some((rx, ry));
                }
            }
        }
        None
    }

    fn alias_in_one_kernel(
        &mut self,
        call: &CallSite<'_, 'tcx>,
        kernels: &LocSet,
        slots: &[LocSet],
        apart: bool,
        state: &State,
    ) {
        if !self.reporting {
            return;
        }
        let mappings_of = |this: &Self, set: &LocSet| -> Vec<LocId> {
            let mut v: Vec<LocId> = set
                .iter()
                .filter(|l| this.is_mapping(*l))
                .map(|l| this.locs.data_root(l))
                .collect();
            v.sort();
            v.dedup();
            v
        };
        // Two arguments (one argument is one pointer, however many mappings it may be).
        let per_slot: Vec<Vec<LocId>> = slots.iter().map(|s| mappings_of(self, s)).collect();
        let mut pair = None;
        for (i, a) in per_slot.iter().enumerate() {
            for (j, b) in per_slot.iter().enumerate() {
                if (i != j || !apart) && pair.is_none() {
                    pair = self.alias_pair(a, b);
                }
            }
        }
        let Some((a, b)) = pair else { return };
        let Some(kernel) = self.kernel_verdict(kernels) else {
            return;
        };
        let first = self.region(call.f, a, state);
        let second = self.region(call.f, b, state);
        self.report(
            call.f,
            call.span,
            call.si,
            FindingKind::AliasInOneKernel { first, second, kernel },
            false,
        );
    }

    /// What the CUDA sources say of the kernels a launch may run: `None` when all of them
    /// fence, else why the launch is reported.
    fn kernel_verdict(&self, kernels: &LocSet) -> Option<Kernel> {
        let mut unfenced = None;
        let (mut name_unknown, mut not_in_source, mut source_unknown) = (false, None, None);
        if kernels.is_empty() {
            return Some(Kernel::SourceNotVisible { name: None });
        }
        for k in kernels.iter() {
            let attrs = self.attrs.get(&k).cloned().unwrap_or_default();
            let sources: Vec<Option<Rc<str>>> = attrs
                .modules
                .iter()
                .flat_map(|m| {
                    self.attrs
                        .get(&m)
                        .map(|a| a.sources.clone())
                        .unwrap_or_else(|| vec![None])
                })
                .collect();
            let names = if attrs.kernel_names.is_empty() {
                vec![None]
            } else {
                attrs.kernel_names.clone()
            };
            let sources = if sources.is_empty() { vec![None] } else { sources };
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

    // ------------------------------------------------------------------------------------
    // Drops and frees

    fn drop_place(&mut self, f: FrameId, place: Place<'tcx>, si: SourceInfo, state: &mut State) {
        let body = self.frames[f.0 as usize].body;
        let ty = self.instantiate(f, place.ty(&body.local_decls, self.tcx).ty);
        let locs = self.place(f, place, state);
        let mut vals = LocSet::new();
        for l in locs.iter() {
            vals.union_with(&self.read_value(state, l));
        }
        if self.rs.role(ty).is_some() {
            self.drop_value(f, ty, &vals, si, state);
        } else if let ty::Adt(def, args) = ty.kind()
            && def.is_struct()
        {
            // Drop glue drops the fields.
            for (i, field) in def.non_enum_variant().fields.iter().enumerate() {
                let fty = field.ty(self.tcx, args).skip_normalization();
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
    fn drop_value(&mut self, f: FrameId, ty: Ty<'tcx>, vals: &LocSet, si: SourceInfo, state: &mut State) {
        let Some(Target::Mem(_)) = self.rs.role(ty) else {
            return;
        };
        let mut data = vals.clone();
        data.retain(|l| matches!(self.locs.kind(l), LocKind::Data(_)));
        if let Some(kind) = self.rs.drop_kind(ty) {
            self.free(f, &data, kind, si, state);
        }
    }

    /// Frees memory: one that waits lets the work using it finish first; one that does not
    /// races with that work.
    fn free(&mut self, f: FrameId, data: &LocSet, kind: FreeKind, si: SourceInfo, state: &mut State) {
        match kind {
            FreeKind::Immediate => self.conflicts(f, data, Access::Free, si, state),
            FreeKind::Waits => {
                let users: OpSet = state
                    .inflight_may
                    .iter()
                    .filter(|op| {
                        let info = &self.ops[op.0 as usize];
                        info.reads
                            .iter()
                            .chain(info.writes.iter())
                            .any(|u| data.iter().any(|d| self.locs.overlaps(u, d)))
                    })
                    .collect();
                state.finish(&users);
            }
        }
    }

    // ------------------------------------------------------------------------------------
    // Host accesses

    fn host_access(&mut self, f: FrameId, locs: &LocSet, access: Access, si: SourceInfo, state: &State) {
        if !self.reporting || locs.is_empty() {
            return;
        }
        let mut device = Vec::new();
        for l in locs.iter() {
            if let LocKind::Data(k) = self.locs.kind(l)
                && k.is_device_only()
            {
                device.push(self.locs.data_root(l));
            }
        }
        if let Some(&first) = device.first() {
            let target = self.region(f, first, state);
            let some_paths = device.len() < locs.len();
            self.report(
                f,
                si.span,
                si,
                FindingKind::HostDerefDevicePtr {
                    target,
                    write: access == Access::Write,
                    made_into_slice: false,
                },
                some_paths,
            );
            return;
        }
        self.conflicts(f, locs, access, si, state);
    }

    /// A raw pointer made into a slice or reference for the host.
    fn host_view(&mut self, f: FrameId, data: &LocSet, write: bool, si: SourceInfo, state: &State) {
        if !self.reporting {
            return;
        }
        let device: Vec<LocId> = data
            .iter()
            .filter(|l| matches!(self.locs.kind(*l), LocKind::Data(k) if k.is_device_only()))
            .map(|l| self.locs.data_root(l))
            .collect();
        if let Some(&first) = device.first() {
            let target = self.region(f, first, state);
            let some_paths = device.len() < data.len();
            self.report(
                f,
                si.span,
                si,
                FindingKind::HostDerefDevicePtr {
                    target,
                    write,
                    made_into_slice: true,
                },
                some_paths,
            );
        }
    }

    /// Reports the first in-flight operation that `access` to `locs` races with.
    fn conflicts(&mut self, f: FrameId, locs: &LocSet, access: Access, si: SourceInfo, state: &State) {
        if !self.reporting {
            return;
        }
        for l in locs.iter() {
            let LocKind::Data(kind) = self.locs.kind(l) else {
                continue;
            };
            if kind == MemKind::Unknown || !kind.can_be_in_flight() {
                if access != Access::Free || kind == MemKind::Unknown {
                    continue;
                }
            }
            for op in state.inflight_may.iter() {
                let info = &self.ops[op.0 as usize];
                let hit = match access {
                    Access::Read => info.writes.iter().any(|w| self.locs.overlaps(w, l)),
                    Access::Write | Access::Free | Access::Reuse => info
                        .writes
                        .iter()
                        .chain(info.reads.iter())
                        .any(|w| self.locs.overlaps(w, l)),
                };
                if !hit {
                    continue;
                }
                let target = self.region(f, self.locs.data_root(l), state);
                let op_desc = self.in_flight(f, op, state);
                let some_paths = !state.inflight_must.contains(op);
                self.report(
                    f,
                    si.span,
                    si,
                    FindingKind::MissingSync {
                        access,
                        target,
                        op: op_desc,
                    },
                    some_paths,
                );
                return;
            }
        }
    }

    /// The state in words, for `CUDA_LINT_TRACE`.
    fn show(&self, state: &State) -> String {
        let name = |l: LocId| {
            self.path_name(l)
                .unwrap_or_else(|| format!("{:?}", self.locs.get(l).root))
        };
        let values: Vec<String> = state
            .values
            .iter()
            .map(|(h, v)| format!("{}:{}->{:?}", h.0, name(*h), v.iter().map(|l| l.0).collect::<Vec<_>>()))
            .collect();
        let ops: Vec<String> = state
            .inflight_may
            .iter()
            .map(|o| {
                let info = &self.ops[o.0 as usize];
                format!(
                    "op{}{} w{:?} r{:?}",
                    o.0,
                    if state.inflight_must.contains(o) { "!" } else { "?" },
                    info.writes,
                    info.reads
                )
            })
            .collect();
        format!(
            "inflight [{}] covers {:?} waits {:?} values [{}]",
            ops.join(", "),
            state.event_covers,
            state.stream_waits,
            values.join(" ")
        )
    }

    // ------------------------------------------------------------------------------------
    // Reporting

    fn report(&mut self, f: FrameId, span: Span, si: SourceInfo, kind: FindingKind, some_paths: bool) {
        if !self.reporting {
            return;
        }
        // Code a macro generated is reported where the macro is invoked (what the user wrote;
        // arguments the user passed keep their own spans).
        let span = span.source_callsite();
        let finding = match &self.frames[f.0 as usize].entered_from {
            None => Finding {
                kind,
                span,
                lint_root: self.lint_root(f, si),
                some_paths,
                via: None,
            },
            Some((call_span, lint_root, _)) => {
                // Found inside a helper: reported at the call in the root body. When the
                // helper, linted on its own, reports the same event, the pass keeps only that.
                // The note names the function the event is in (the innermost helper).
                Finding {
                    kind,
                    span: *call_span,
                    lint_root: *lint_root,
                    some_paths,
                    via: Some(Via {
                        callee: self.frame_name(f),
                        inner: span,
                    }),
                }
            }
        };
        self.findings.insert(finding);
    }

    fn lint_root(&self, f: FrameId, si: SourceInfo) -> HirId {
        let body = self.frames[f.0 as usize].body;
        match &body.source_scopes[si.scope].local_data {
            ClearCrossCrate::Set(data) => data.lint_root,
            ClearCrossCrate::Clear => self.tcx.local_def_id_to_hir_id(self.frames[0].def_id.expect_local()),
        }
    }

    /// `name` of the function a frame runs, for notes.
    fn frame_name(&self, f: FrameId) -> String {
        let def_id = self.frames[f.0 as usize].def_id;
        if self.tcx.is_closure_like(def_id) {
            "a closure".to_string()
        } else {
            format!("`{}`", self.tcx.item_name(def_id))
        }
    }

    fn in_flight(&mut self, f: FrameId, op: OpId, state: &State) -> InFlight {
        let info = self.ops[op.0 as usize].clone();
        let stream = info.streams.iter().next().and_then(|s| self.name_of(f, s, state));
        // Work started in the same function as the finding, or in the root body, is shown
        // where it starts; work started inside another helper, at that helper's call in the
        // root body.
        let span = match &self.frames[info.frame.0 as usize].entered_from {
            Some((call_span, ..)) if info.frame != f => *call_span,
            _ => info.span,
        };
        InFlight {
            what: info.kind.describe(),
            span,
            stream,
        }
    }

    fn region(&mut self, f: FrameId, loc: LocId, state: &State) -> Region {
        let data = self.locs.get(loc);
        let kind = match data.kind {
            LocKind::Data(k) => k,
            _ => MemKind::Unknown,
        };
        // Where the user wrote it: `vec![..]`, not the inside of `vec!`.
        let origin = data.origin.source_callsite();
        let origin_kind = match data.root {
            Root::Fresh { .. } if data.allocated && kind == MemKind::VmmMapping => Origin::Mapped,
            Root::Fresh { .. } if data.allocated => Origin::Allocated,
            Root::Fresh { .. } => Origin::Returned,
            Root::Local { .. } => Origin::Declared,
        };
        // The type of what owns the memory: the handle it is the contents of, or the variable
        // holding it.
        let owner_ty = match data.parent {
            Some((parent, Proj::Deref)) if matches!(self.locs.kind(parent), LocKind::Handle(_)) => {
                self.locs.get(parent).ty
            }
            _ => None,
        };
        let (name, holder_ty) = self.holder(f, loc, state).unzip();
        let ty = owner_ty
            .or(holder_ty.flatten())
            .or(data.ty)
            .map(|t| rustc_middle::ty::print::with_forced_trimmed_paths!(t.to_string()));
        Region {
            name,
            kind,
            origin,
            origin_kind,
            ty,
        }
    }

    /// A name the user knows for what `loc` is or what a variable refers to.
    fn name_of(&self, f: FrameId, loc: LocId, state: &State) -> Option<String> {
        self.holder(f, loc, state).map(|(name, _)| name)
    }

    /// The name of `loc` (or of the variable that holds it), and that variable's type.
    fn holder(&self, f: FrameId, loc: LocId, state: &State) -> Option<(String, Option<Ty<'tcx>>)> {
        if let Some(path) = self.path_name(loc) {
            return Some((path, None));
        }
        // Memory or objects created by a call: the variable of the frame that holds them,
        // preferring the owner (`dev`) to pointers into it (`p`), then the shortest name.
        let mut best: Option<((bool, usize), (String, Option<Ty<'tcx>>))> = None;
        for (holder, vals) in &state.values {
            if !vals.contains(loc) {
                continue;
            }
            let Root::Local { frame, .. } = self.locs.get(*holder).root else {
                continue;
            };
            if frame != f && frame != FrameId::ROOT {
                continue;
            }
            if let Some(name) = self.path_name(*holder) {
                let owner = matches!(self.locs.kind(*holder), LocKind::Handle(_));
                let score = (!owner, name.len());
                if best.as_ref().is_none_or(|(s, _)| score < *s) {
                    best = Some((score, (name, self.locs.get(*holder).ty)));
                }
            }
        }
        best.map(|(_, n)| n)
    }

    /// `x`, `x.field`, `self.a.b` for locations rooted at named locals.
    fn path_name(&self, loc: LocId) -> Option<String> {
        // Variables debug info names through projections: a closure's captured variables.
        if let (Root::Local { frame, local }, projs) = self.locs.path(loc)
            && !projs.is_empty()
            && let Some((_, _, name)) = self.frames[frame.0 as usize]
                .named_paths
                .iter()
                .find(|(l, p, _)| *l == local && *p == projs)
        {
            return Some(name.clone());
        }
        let data = self.locs.get(loc);
        match data.parent {
            None => match data.root {
                Root::Local { frame, local } => self.frames[frame.0 as usize].names.get(&local).cloned(),
                Root::Fresh { .. } => None,
            },
            Some((parent, Proj::Deref | Proj::Inside)) => self.path_name(parent),
            Some((parent, Proj::Index)) => self.path_name(parent).map(|p| format!("{p}[..]")),
            Some((parent, Proj::Field(i) | Proj::Variant(_, i))) => {
                let base = self.path_name(parent)?;
                let pty = self.locs.get(parent).ty.map(|t| t.peel_refs());
                let field = match pty.map(Ty::kind) {
                    Some(ty::Adt(def, _)) if def.is_struct() => def
                        .non_enum_variant()
                        .fields
                        .iter()
                        .nth(i as usize)
                        .map(|f| f.name.to_string()),
                    _ => None,
                }
                .unwrap_or_else(|| i.to_string());
                Some(format!("{base}.{field}"))
            }
        }
    }
}

enum Next {
    Return,
    Blocks(Vec<BasicBlock>),
}

/// A parameter of an inlined body, the values bound to it, and the location whose fields it
/// copies (for aggregates passed by value).
type Binding = (usize, LocSet, Option<LocId>);

struct CallSite<'c, 'tcx> {
    f: FrameId,
    bb: BasicBlock,
    si: SourceInfo,
    span: Span,
    args: &'c [rustc_span::Spanned<Operand<'tcx>>],
    argvals: &'c [LocSet],
}

fn single(set: &LocSet) -> Option<LocId> {
    (set.len() == 1).then(|| set.iter().next()).flatten()
}

/// Names of user variables, from debug info.
/// Names of user variables from debug info: locals, and places with projections (a closure's
/// captured variables, `(*((*_1).0))`).
fn debug_names(tcx: TyCtxt<'_>, body: &Body<'_>) -> (FxHashMap<Local, String>, Vec<(Local, Vec<Proj>, String)>) {
    let source_map = tcx.sess.source_map();
    let mut names = FxHashMap::default();
    let mut paths = Vec::new();
    for info in &body.var_debug_info {
        // Variables the compiler made up (`val` of `?`, loop iterators) are no help: a real
        // variable's span reads as its name.
        let span = info.source_info.span;
        let written = source_map.span_to_snippet(span).unwrap_or_default();
        let written = written
            .trim_start_matches('&')
            .trim_start_matches("ref ")
            .trim_start_matches("mut ");
        if span.from_expansion() || written != info.name.as_str() {
            continue;
        }
        let VarDebugInfoContents::Place(place) = info.value else {
            continue;
        };
        if place.projection.is_empty() {
            names.entry(place.local).or_insert_with(|| info.name.to_string());
            continue;
        }
        let projs: Option<Vec<Proj>> = place
            .projection
            .iter()
            .map(|p| match p {
                ProjectionElem::Deref => Some(Proj::Deref),
                ProjectionElem::Field(f, _) => Some(Proj::Field(f.as_u32())),
                _ => None,
            })
            .collect();
        if let Some(projs) = projs {
            paths.push((place.local, projs, info.name.to_string()));
        }
    }
    (names, paths)
}

/// Whether a callee given a value of this type may write through it.
fn writes_through(ty: Ty<'_>) -> bool {
    ty.walk().any(|arg| {
        arg.as_type().is_some_and(|t| match t.kind() {
            ty::Ref(_, _, m) | ty::RawPtr(_, m) => m.is_mut(),
            _ => false,
        })
    })
}

/// `T` for `Result<T, E>` and `Option<T>`, else the type itself.
fn peel_result(ty: Ty<'_>) -> Ty<'_> {
    if let ty::Adt(def, args) = ty.kind()
        && matches!(def.variants().len(), 2)
        && let Some(first) = args.types().next()
        && def.variants().iter().any(|v| v.fields.len() == 1)
    {
        return first;
    }
    ty
}

/// The strings a `&str` operand may hold when every value it can have is a constant (a
/// literal, `include_str!`, a `const`), following copies between locals: one string for a
/// constant, several when branches choose between constants, `None` when any is not one.
fn const_strs_of<'tcx>(
    tcx: TyCtxt<'tcx>,
    typing_env: TypingEnv<'tcx>,
    body: &Body<'tcx>,
    op: &Operand<'tcx>,
    depth: u32,
) -> Option<Vec<String>> {
    match op {
        Operand::Constant(c) => {
            let value = c.const_.eval(tcx, typing_env, c.span).ok()?;
            let bytes = value.try_get_slice_bytes_for_diagnostics(tcx)?;
            String::from_utf8(bytes.to_vec()).ok().map(|s| vec![s])
        }
        Operand::Copy(place) | Operand::Move(place) if depth > 0 && place.projection.is_empty() => {
            let mut out = Vec::new();
            let mut assigned = false;
            for data in body.basic_blocks.iter() {
                for stmt in &data.statements {
                    let StatementKind::Assign(box (dest, rv)) = &stmt.kind else {
                        continue;
                    };
                    if dest.local != place.local {
                        continue;
                    }
                    assigned = true;
                    let strings = match rv {
                        _ if !dest.projection.is_empty() => None,
                        Rvalue::Use(inner, _) | Rvalue::Cast(_, inner, _) => {
                            const_strs_of(tcx, typing_env, body, inner, depth - 1)
                        }
                        Rvalue::Ref(_, _, src) | Rvalue::CopyForDeref(src) if src.projection.len() <= 1 => {
                            const_strs_of(tcx, typing_env, body, &Operand::Copy(Place::from(src.local)), depth - 1)
                        }
                        _ => None,
                    }?;
                    for s in strings {
                        if !out.contains(&s) {
                            out.push(s);
                        }
                    }
                }
            }
            (assigned && !out.is_empty()).then_some(out)
        }
        _ => None,
    }
}
