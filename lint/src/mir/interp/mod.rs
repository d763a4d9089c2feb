//! The abstract interpretation of MIR that every lint shares.
//!
//! Each body is run to a fixpoint over its control-flow graph (unwind paths are not followed).
//! Statements move values between abstract locations; calls do what the API tables say, or, for
//! functions of the crate being linted, are run inline in the caller's state (up to
//! [`MAX_INLINE_DEPTH`]), which is how a sync, copy or launch inside a helper counts at its
//! call. Calls the tables do not know read (or, through `&mut`, write) what their arguments
//! refer to. Once the fixpoint is reached, one more sweep reports findings against the final
//! states, so "on some paths" is decided on the joined state.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use rustc_data_structures::fx::{FxHashMap, FxHashSet, FxIndexSet};
use rustc_hir::HirId;
use rustc_hir::def_id::{DefId, LocalDefId};
use rustc_index::IndexVec;
use rustc_middle::mir::{
    self, BasicBlock, BinOp, Body, ClearCrossCrate, Local, Operand, Place, ProjectionElem, Rvalue, SourceInfo,
    StatementKind, TerminatorKind, VarDebugInfoContents,
};
use rustc_middle::ty::{self, GenericArgsRef, Instance, Ty, TyCtxt, TypeVisitableExt, TypingEnv};
use rustc_span::Span;

use super::finding::{Finding, Via};
use super::loc::{FrameId, LocId, LocKind, LocSet, Locs, Proj, Root};
use super::resolve::{FieldMemory, Resolver};
use super::state::State;
use crate::api::cudarc_safe::{CudarcEffect, model as cudarc};
use crate::api::{ApiFamily, Dir, Effect, FreeKind, LEGACY, MemKind, ObjKind, RET, Target};
use cuda_lint_cuda_source::{Fence, kernel_fence};
use cuda_lint_machine::{
    Access, CaptureRule, DerefRole, Event, InFlight, Kernel, Machine, OpId, OpKind, OpSet, Origin, Region,
};

mod calls;
mod effects;
mod events;
mod local_facts;
mod map_status;
mod report;

/// How many calls deep helpers of the crate are run inline.
pub const MAX_INLINE_DEPTH: u32 = 3;
/// Helpers with more statements than this are treated as unknown calls.
const MAX_INLINE_STATEMENTS: usize = 4000;
/// How deep drop glue is followed into fields of fields (each level may run a `Drop` impl).
const MAX_DROP_NESTING: u32 = 4;
/// Enums whose variants `State::running_when` follows at once, at most.
const MAX_RUNNING_WHEN: usize = 32;
/// A method called on a trait object runs each implementation the crate has, up to this many.
const MAX_DYN_IMPLS: usize = 8;
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
    /// For inlined frames: the block of the parent whose call runs this frame.
    called_at: Option<BasicBlock>,
    /// The block being run (for events: where in a loop they are).
    current: Option<BasicBlock>,
    names: FxHashMap<Local, String>,
    named_paths: NamedPaths,
}

/// The blocks of a loop in a frame's body.
type LoopBlocks = Rc<rustc_index::bit_set::DenseBitSet<BasicBlock>>;

/// What the analysis knows of CUDA objects beyond their kind.
#[derive(Clone, Debug, Default)]
struct ObjAttrs {
    /// Modules: the CUDA sources they come from; `None` in the list: a source not visible.
    sources: Vec<Option<Rc<str>>>,
    /// Modules and kernels: a source or name not visible here comes from a parameter of the
    /// function being linted: its callers, which see it, judge the launch.
    from_caller: bool,
    /// Kernels: their names (`None`: not a constant) and modules.
    kernel_names: Vec<Option<String>>,
    modules: LocSet,
    /// Mappings: the physical allocations they map.
    physical: LocSet,
    /// Memory: the stream it was allocated on (freed in its order). Guards: the stream they
    /// record on. Launch builders: the stream they launch on.
    streams: LocSet,
    /// Guards: the memory whose use they record.
    memory: LocSet,
    /// Launch builders: the kernels they launch.
    kernels: LocSet,
    /// The family of the API that made it.
    family: Option<&'static ApiFamily>,
    /// Streams: the contexts they belong to.
    contexts: LocSet,
    /// Launch builders: the memory their arguments reach through raw pointers (no event is
    /// recorded on it), and through cudarc's own types (events are).
    raw_arg_memory: LocSet,
    handle_arg_memory: LocSet,
    /// Pinned memory: allocated write-combined.
    write_combined: bool,
    /// Managed memory: attached to the host or one stream (kernels elsewhere do not take it).
    attached: bool,
    /// Managed memory attached to one stream: that stream (its kernels take it).
    attached_streams: LocSet,
    /// Memory: the allocator that made it, when a table says.
    allocator: Option<cuda_lint_machine::Allocator>,
    /// Memory: allocated on a stream (`cuMemAllocAsync`), whatever stream that is.
    stream_ordered: bool,
    /// Memory: one of several allocations this location stands for (made by one call in a
    /// loop, or the elements of an array or `Vec` of buffers made apart), which the analysis
    /// does not tell apart.
    one_of_many: bool,
    /// Memory: how many bytes it holds, the most of every time it was made, where each time's
    /// size was a constant (`cuMemAlloc(&mut p, N * 4)`, a stack array); `size_unknown` once one
    /// was not.
    bytes: Option<u64>,
    size_unknown: bool,
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

/// The parameters of a body that `Interp::builder_context` builds, at most.
const MAX_BUILT_PARAMS: usize = 4;

pub struct Interp<'a, 'tcx> {
    rs: &'a Resolver<'tcx>,
    tcx: TyCtxt<'tcx>,
    typing_env: TypingEnv<'tcx>,
    locs: Locs<'a, 'tcx>,
    /// The CUDA machine: the operations the body's calls enqueue.
    machine: Machine,
    /// Where each operation is enqueued (by `OpId`): the frame and the call.
    op_sites: Vec<(FrameId, Span)>,
    /// The block of its frame each operation is enqueued in (by `OpId`).
    op_blocks: Vec<BasicBlock>,
    /// Items of collections that loops visit one by one (see `State::items_apart`): the item's
    /// location, and the loop (a frame's blocks) that visits them; leaving the loop forgets it.
    item_loops: Vec<(LocId, FrameId, LoopBlocks)>,
    op_index: FxHashMap<(FrameId, BasicBlock), OpId>,
    frames: Vec<Frame<'tcx>>,
    frame_index: FxHashMap<(FrameId, BasicBlock, DefId), FrameId>,
    /// Whether a block of a frame's body is in a loop (see `in_loop`).
    loop_blocks: FxHashMap<(FrameId, BasicBlock), bool>,
    /// The blocks of the loop each block is in (see `loop_of`).
    loop_sets: FxHashMap<(FrameId, BasicBlock), LoopBlocks>,
    /// For work a wait in a loop over a collection waited for: the loops (a frame's blocks)
    /// those waits are in.
    wait_loops: FxHashMap<OpId, Vec<(FrameId, LoopBlocks)>>,
    attrs: FxHashMap<LocId, ObjAttrs>,
    /// Per graph made by stream capture: the memory its captured work reads and writes (on any
    /// path), the streams it was captured on (where cudarc's `CudaGraph::launch` runs it), and
    /// where the capture began.
    graphs: FxHashMap<LocId, CapturedGraph>,
    /// The name of the API function whose effects are being applied, while a stream captures.
    called_name: Option<String>,
    /// The arguments of the launch being enqueued, for a capture to keep apart.
    capture_slots: Option<Vec<LocSet>>,
    /// Library handles whose scalar results are device memory (`cublasSetPointerMode`), as
    /// last set in the order the body's blocks were visited.
    device_pointer_mode: FxHashSet<LocId>,
    /// Library handles made with no stream (`cublasCreate`) whose stream was never set since.
    unset_handles: FxHashSet<LocId>,
    findings: FxIndexSet<Finding>,
    /// Set during the sweep that reports: events go to the lints.
    reporting: bool,
    /// While applying a call of cudarc's that records events: how its next operation is tracked
    /// (see `cudarc_safe::model`).
    call_tracking: Option<cudarc::CallTracking>,
    /// The family of the call whose effects are being applied (for its advice).
    family: &'static ApiFamily,
    steps: usize,
    gave_up: bool,
    /// `CUDA_LINT_TRACE=name` prints each statement of bodies whose path contains `name`.
    trace: bool,
    /// The mappings the call being applied maps (`cuMemMap`), until its result is stored.
    mapped_by_call: Option<LocSet>,
    /// The work the call being applied enqueued, until its result is stored (see
    /// `map_status`: where it failed, nothing runs).
    enqueued_by_call: Option<OpSet>,
    /// What locals hold of map calls' results (see `map_status`).
    map_status: map_status::MapStatuses,
    /// Set by the block just run: the successor on which a map it tested failed.
    failed_map_edge: Option<(BasicBlock, map_status::Made)>,
    /// Set by the block just run: the arms of a `match` on an enum and what may run in each
    /// (see `State::running_when`).
    arm_not_running: Vec<(BasicBlock, OpSet)>,
    /// The error exit of the frame just run, where it also has a success exit (for its caller).
    last_error_exit: Option<State>,
    /// For the result of a call of the crate's function that the caller matches on directly
    /// (`if let Err(e) = run() { cleanup }`): the state where the function returned `Err`.
    error_states: FxHashMap<LocId, (u32, State)>,
    /// Set by the block just run: the `Err` arm of such a match, and the state it starts from.
    error_arm: Option<(BasicBlock, State)>,
    /// Whether the body analysed is test code (see `resolve::is_test_code`).
    in_test: bool,
    /// What a call that moves a value out of a place leaves there, stored after the call's
    /// result (which holds the old value).
    pending_store: Option<PendingStore>,
    /// Locals that hold the discriminant of an enum, and the enum's location (for `switchInt`).
    discriminants: FxHashMap<(FrameId, Local), LocId>,
    /// Set while a launch whose kernel's writes are assumed (its source not seen) is enqueued.
    launch_writes_unseen: bool,
    /// While the effects of a copy or memset whose byte count is a constant are applied: that
    /// count (see [`Effect::Covers`]).
    copy_count: Option<u64>,
    /// While the effects of a copy of all of one slice argument are applied: that argument
    /// (`Effect::CoversWhole`).
    copy_covers_whole: Option<u8>,
    /// Set by `arg_slots`: what each kernel argument's slot holds before it is followed (the
    /// variables an argument list points to).
    slot_sources: Vec<LocSet>,
    /// Set while a leak is reported: memory made in a helper is described at the helper's
    /// call in the body being linted (see `region`).
    origins_at_root_calls: bool,
    /// Set while a launch whose kernel's source is visible is enqueued: the memory of each
    /// argument it may write through, and whether it surely stores there.
    launch_writes_per_arg: Option<Vec<(LocSet, bool)>>,
    /// While summarizing a type's fields (see `Resolver::field_memory`): the type, and the
    /// memory each of its raw-pointer fields is built with.
    collect_fields_of: Option<DefId>,
    field_stores: Vec<((u32, u32), Option<FieldMemory>)>,
}

/// See [`Interp::pending_store`].
struct PendingStore {
    /// The place the value moved out of.
    slot: LocId,
    /// Whether the new value goes inside `Some`.
    some: bool,
    /// The new value and the place it came from (its fields), if any.
    value: Option<(LocSet, Option<LocId>)>,
    /// Only where the place was empty (`get_or_insert`): joined with what was there.
    keep: bool,
}

impl<'a, 'tcx> Interp<'a, 'tcx> {
    /// Runs a body that builds the crate's type `adt`, and returns, for each raw-pointer field
    /// of each aggregate of it, the memory stored there (`None`: unknown or of several kinds).
    pub fn field_stores(
        rs: &'a Resolver<'tcx>,
        def_id: LocalDefId,
        adt: DefId,
    ) -> Vec<((u32, u32), Option<FieldMemory>)> {
        let mut interp = Interp::new(rs, def_id);
        interp.collect_fields_of = Some(adt);
        let exit = interp.run_frame(FrameId::ROOT, State::default(), false);
        if interp.gave_up {
            return Vec::new();
        }
        // What the result holds when the builder returns wins over what the aggregate was
        // built with (a field set afterwards, through `&mut me.field`).
        let returned = exit
            .map(|exit| interp.returned_field_stores(adt, &exit))
            .unwrap_or_default();
        let mut stores = std::mem::take(&mut interp.field_stores);
        stores.retain(|(key, _)| !returned.iter().any(|(k, _)| k == key));
        stores.extend(returned.into_iter().map(|(k, m)| (k, Some(m))));
        stores
    }

    /// The state a body's parameters are in where their type is one of the crate's structs
    /// that one function of the crate builds (`new`): a method's `self`, or a `&Pipeline`
    /// handed to a function, holds the memory, streams, modules and VMM mappings that builder
    /// made (a value of the type comes from nowhere else). The work the builder started is taken
    /// as finished (the body runs later, after whatever the program does in between). `None`
    /// where no parameter is of such a type.
    fn builder_context(&mut self, def_id: LocalDefId) -> Option<State> {
        let tcx = self.tcx;
        let body = self.frames.first()?.body;
        if body.arg_count == 0 || !tcx.def_kind(def_id).is_fn_like() || tcx.is_closure_like(def_id.to_def_id()) {
            return None;
        }
        let mut state = State::default();
        let mut built = 0;
        for param in 1..=body.arg_count.min(MAX_BUILT_PARAMS) {
            let local = Local::from_usize(param);
            built += usize::from(self.build_param(def_id, local, &mut state).is_some());
        }
        if built == 0 {
            return None;
        }
        self.machine.sync_all(&mut state.m);
        // Another method may have written, read or released what the builder allocated.
        self.machine.contents_unknown(&mut state.m);
        // Another method may grant access to what the builder mapped (`new` maps, `init` grants):
        // no access is claimed missing on the builder's word alone.
        let mapped = state.m.mapped_may.clone();
        self.machine.set_access(&mut state.m, &mapped, &self.regions());
        Some(state)
    }

    /// Runs the one builder of the struct parameter `local` is (or points to), and copies what it
    /// returned into the parameter (see `builder_context`).
    fn build_param(&mut self, def_id: LocalDefId, local: Local, state: &mut State) -> Option<()> {
        let tcx = self.tcx;
        let body = self.frames.first()?.body;
        let param_ty = body.local_decls[local].ty;
        let (struct_ty, by_ref) = match param_ty.kind() {
            ty::Ref(_, t, _) => (*t, true),
            _ => (param_ty, false),
        };
        let ty::Adt(adt, _) = struct_ty.kind() else {
            return None;
        };
        if !adt.did().is_local() || !adt.is_struct() {
            return None;
        }
        let builder = match self.rs.builders_of(adt.did()).as_slice() {
            [one] => *one,
            _ => return None,
        };
        let builder_id = builder.to_def_id();
        // A constructor: no generics, not a closure, not a method of the struct itself (a
        // `with_x(self)` builds from a value it was given).
        if builder == def_id
            || tcx.is_closure_like(builder_id)
            || tcx.generics_of(builder_id).count() > 0
            || tcx.opt_associated_item(builder_id).is_some_and(|a| a.is_method())
        {
            return None;
        }
        let ret_ty = tcx.fn_sig(builder_id).instantiate_identity().skip_binder().output();
        let payload = if ret_ty == struct_ty {
            None
        } else if let ty::Adt(wrapper, args) = ret_ty.kind()
            && wrapper.is_enum()
            && args.types().next() == Some(struct_ty)
        {
            // `Ok(T)` is variant 0 of `Result`, `Some(T)` variant 1 of `Option`.
            Some(u32::from(
                tcx.is_diagnostic_item(rustc_span::sym::Option, wrapper.did()),
            ))
        } else {
            return None;
        };
        let si = body.source_info(mir::Location::START);
        let call = CallSite {
            f: FrameId::ROOT,
            bb: mir::START_BLOCK,
            si: *si,
            span: si.span,
            args: &[],
            argvals: &[],
            derefs_raw: false,
        };
        let Some(Val::Tree(ret, _)) = self.inline_body(&call, builder_id, None, &[], state) else {
            return None;
        };
        let value = match payload {
            None => ret,
            Some(variant) => self.locs.child(ret, Proj::Variant(variant, 0)),
        };
        // The parameter (or what it points to) holds a copy of the built value, so that what
        // its fields hold is named by the body's own paths (`self.host`, `pipeline.stream`).
        let param_loc = self.local_loc(FrameId::ROOT, local);
        let target = if by_ref {
            self.locs.child(param_loc, Proj::Deref)
        } else {
            param_loc
        };
        self.copy_tree(state, value, target, 4);
        if by_ref {
            state.values.insert(param_loc, LocSet::single(target));
        }
        Some(())
    }

    /// Analyses one body of the crate and returns what it found.
    pub fn analyze(rs: &'a Resolver<'tcx>, def_id: LocalDefId) -> Vec<Finding> {
        let tcx = rs.tcx;
        let mut interp = Interp::new(rs, def_id);
        let entry = interp.builder_context(def_id).unwrap_or_default();
        let _ = interp.run_frame(FrameId::ROOT, entry, true);
        if rs.report_timings {
            eprintln!(
                "cuda-lint-timing: {} steps={} frames={} locations={} operations={} gave_up={}",
                tcx.def_path_str(def_id.to_def_id()),
                interp.steps,
                interp.frames.len(),
                interp.locs.len(),
                interp.machine.len(),
                interp.gave_up
            );
        }
        if interp.gave_up {
            return Vec::new();
        }
        interp.findings.into_iter().collect()
    }

    /// An interpreter at the start of a body of the crate.
    fn new(rs: &'a Resolver<'tcx>, def_id: LocalDefId) -> Self {
        let tcx = rs.tcx;
        let body = tcx.optimized_mir(def_id.to_def_id());
        let mut interp = Interp {
            rs,
            tcx,
            typing_env: TypingEnv::post_analysis(tcx, def_id),
            locs: Locs::new(rs),
            machine: Machine::new(),
            op_sites: Vec::new(),
            op_blocks: Vec::new(),
            item_loops: Vec::new(),
            op_index: FxHashMap::default(),
            frames: Vec::new(),
            frame_index: FxHashMap::default(),
            loop_blocks: FxHashMap::default(),
            loop_sets: FxHashMap::default(),
            wait_loops: FxHashMap::default(),
            attrs: FxHashMap::default(),
            graphs: FxHashMap::default(),
            called_name: None,
            capture_slots: None,
            device_pointer_mode: FxHashSet::default(),
            unset_handles: FxHashSet::default(),
            findings: FxIndexSet::default(),
            reporting: false,
            call_tracking: None,
            family: &crate::api::runtime::FAMILY,
            steps: 0,
            gave_up: false,
            trace: std::env::var("CUDA_LINT_TRACE")
                .is_ok_and(|t| !t.is_empty() && tcx.def_path_str(def_id.to_def_id()).contains(&t)),
            mapped_by_call: None,
            enqueued_by_call: None,
            map_status: FxHashMap::default(),
            failed_map_edge: None,
            arm_not_running: Vec::new(),
            last_error_exit: None,
            error_states: FxHashMap::default(),
            error_arm: None,
            in_test: crate::mir::resolve::is_test_code(tcx, def_id),
            pending_store: None,
            discriminants: FxHashMap::default(),
            launch_writes_unseen: false,
            copy_count: None,
            copy_covers_whole: None,
            slot_sources: Vec::new(),
            origins_at_root_calls: false,
            launch_writes_per_arg: None,
            collect_fields_of: None,
            field_stores: Vec::new(),
        };
        let (names, named_paths) = debug_names(tcx, body);
        interp.frames.push(Frame {
            body,
            def_id: def_id.to_def_id(),
            args: None,
            depth: 0,
            entered_from: None,
            parent: None,
            called_at: None,
            current: None,
            names,
            named_paths,
        });
        interp
    }

    /// Runs a frame to its fixpoint from `entry`; with `report`, sweeps once more reporting
    /// findings. Returns the state at its returns (`None` if it never returns).
    fn run_frame(&mut self, f: FrameId, entry: State, report: bool) -> Option<State> {
        let body = self.frames[f.0 as usize].body;
        let rpo = loop_aware_order(body);
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
        let is_coroutine = self.tcx.is_coroutine(self.frames[f.0 as usize].def_id);
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
                // An `async` body (a coroutine) returns `Pending` at an `.await` and is polled
                // again from its entry, which switches on the state it saved: what was in
                // flight when it suspended still is when it resumes.
                Next::Return if f == FrameId::ROOT && is_coroutine && !state.returning_error => {
                    let changed = match &mut ins[mir::START_BLOCK] {
                        Some(s) => s.join(&state),
                        slot @ None => {
                            *slot = Some(state);
                            true
                        }
                    };
                    if changed {
                        dirty.insert(order[mir::START_BLOCK]);
                    }
                }
                // The body being linted returns to no one: its exit states are not needed
                // (joining the state of every `?` into one would cost more as it grows).
                // (A builder run for its type's fields keeps them: `returned_field_stores`.)
                Next::Return if f == FrameId::ROOT && self.collect_fields_of.is_none() => {}
                // Error returns (`Err(..)`, `?`) are kept apart: a caller goes on after a
                // call only where it succeeded; they are not needed once a success exists
                // (except by a caller that matches on the result: `last_error_exit`).
                Next::Return if state.returning_error && exit.is_some() => {}
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
                    let failed_map = self.failed_map_edge.take();
                    let error_arm = self.error_arm.take();
                    let arm_not_running = std::mem::take(&mut self.arm_not_running);
                    for succ in succs {
                        // Where a map the block tested failed, its mappings are not mapped.
                        let failed_state;
                        // The `Err` arm of a match on a call's result: where the callee failed.
                        let out = match &error_arm {
                            Some((err, err_state)) if *err == succ => err_state,
                            _ => &state,
                        };
                        let out = match &failed_map {
                            Some((failed, views)) if *failed == succ => {
                                let mut s = out.clone();
                                self.machine.map_failed(&mut s.m, &views.views);
                                self.machine.allocation_failed(&mut s.m, &views.views);
                                s.m.never_started(&views.ops);
                                failed_state = s;
                                &failed_state
                            }
                            _ => out,
                        };
                        // The arm of a variant: only what may run where the enum is that
                        // variant may run here.
                        let arm_state;
                        let out = match arm_not_running.iter().find(|(bb, _)| *bb == succ) {
                            Some((_, ops)) => {
                                let mut s = out.clone();
                                let not_running: OpSet =
                                    s.m.inflight_may.iter().filter(|op| !ops.contains(*op)).collect();
                                s.m.finish(&not_running);
                                arm_state = s;
                                &arm_state
                            }
                            None => out,
                        };
                        let changed = match &mut ins[succ] {
                            Some(s) => s.join(out),
                            slot @ None => {
                                *slot = Some(out.clone());
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
                    let next = self.block(f, bb, &mut state);
                    // The body being linted returns on this path (an error return as soon as
                    // it has set its result): what only its locals held is lost.
                    if f == FrameId::ROOT && !is_coroutine && (matches!(next, Next::Return) || state.returning_error) {
                        let si = body.basic_blocks[bb].terminator().source_info;
                        self.scope_exit(si, &state);
                    }
                }
            }
        }
        self.reporting = was_reporting;
        if f == FrameId::ROOT && self.collect_fields_of.is_none() {
            return None;
        }
        // Where it may fail too, how it fails, for a caller that matches on its result.
        self.last_error_exit = if exit.is_some() {
            error_exit.clone().map(|mut e| {
                e.returning_error = false;
                e
            })
        } else {
            None
        };
        exit.or(error_exit).map(|mut e| {
            e.returning_error = false;
            e
        })
    }

    fn block(&mut self, f: FrameId, bb: BasicBlock, state: &mut State) -> Next {
        self.frames[f.0 as usize].current = Some(bb);
        self.leave_item_loops(f, Some(bb), state);
        let body = self.frames[f.0 as usize].body;
        let data = &body.basic_blocks[bb];
        let trace = self.trace;
        for stmt in &data.statements {
            self.steps += 1;
            self.statement(f, stmt, state);
            // The body being linted sets its result and this path returns (only drops follow,
            // and what a dropped owner frees it holds in a field, which is not lost). (MIR may set
            // the result early, `_0 = x` where `x` is returned after more calls: not here.)
            if self.reporting
                && f == FrameId::ROOT
                && let StatementKind::Assign(box (dest, _)) = &stmt.kind
                && dest.local == mir::RETURN_PLACE
                && !self.tcx.is_coroutine(self.frames[0].def_id)
                && returns_without_calls(body, bb)
            {
                self.scope_exit(stmt.source_info, state);
            }
            if trace {
                eprintln!("  {:?}/{bb:?} {stmt:?}\n      {}", f, self.show(state));
            }
        }
        if trace {
            eprintln!("  {:?}/{bb:?} {:?}", f, data.terminator().kind);
            eprintln!("      unreleased {:?}", state.m.unreleased());
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
            TerminatorKind::Drop { place, .. } => self.drop_place(f, bb, *place, term.source_info, state),
            TerminatorKind::SwitchInt { discr, targets } => {
                self.failed_map_edge = self.failed_map_edge(f, discr, targets);
                self.arm_not_running = self.arm_not_running(f, discr, targets, state);
                if trace && !self.arm_not_running.is_empty() {
                    eprintln!("      arms and what may run there: {:?}", self.arm_not_running);
                }
                self.error_arm = self.error_arm(f, discr, targets);
                let mut ruled_out = self.ruled_out_arms(f, discr, targets, state);
                if let Some((err, _)) = &self.error_arm {
                    ruled_out.retain(|bb| bb != err);
                }
                if !ruled_out.is_empty() {
                    if trace {
                        eprintln!("      arms ruled out by the enum's variant: {ruled_out:?}");
                    }
                    return Next::Blocks(
                        term.successors()
                            .filter(|s| !body.basic_blocks[*s].is_cleanup && !ruled_out.contains(s))
                            .collect(),
                    );
                }
            }
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

    fn statement(&mut self, f: FrameId, stmt: &mir::Statement<'tcx>, state: &mut State) {
        match &stmt.kind {
            StatementKind::Assign(box (place, rvalue)) => {
                if *place == Place::return_place() {
                    state.returning_error = self.is_error_variant(rvalue);
                }
                self.status_assign(f, *place, rvalue);
                let val = self.rvalue(f, rvalue, stmt.source_info, state);
                let tree_src = match &val {
                    Val::Tree(src, _) => Some(*src),
                    _ => None,
                };
                self.assign(f, *place, val, stmt.source_info, state);
                self.track_variant(f, *place, rvalue, tree_src, state);
            }
            StatementKind::SetDiscriminant { place, variant_index } => {
                if let Some(dest) = self.strong_dest(f, **place, state) {
                    self.set_variant(state, dest, Some(variant_index.as_u32()));
                }
            }
            StatementKind::StorageDead(local) => {
                for &loc in self.locs.of_local(f, *local) {
                    state.values.remove(&loc);
                    state.running_when.remove(&loc);
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
        // A field of an aggregate stored as a whole. (One stored field by field, whose other
        // fields hold values, holds nothing in this one: a number, a flag.)
        let mut cur = loc;
        while let Some((parent, proj)) = self.locs.get(cur).parent {
            if proj == Proj::Deref {
                break;
            }
            if let Some(v) = state.values.get(&parent).filter(|v| !v.is_empty()) {
                let stored_by_field = self
                    .locs
                    .get(parent)
                    .children
                    .iter()
                    .any(|&(p, child)| p != Proj::Deref && child != cur && state.values.get(&child).is_some());
                if stored_by_field
                    && matches!(proj, Proj::Field(_) | Proj::Variant(..))
                    && self.locs.get(loc).ty.is_some_and(|t| !may_hold_address(t))
                {
                    return LocSet::new();
                }
                let v = v.clone();
                return self.of_handle_kind(loc, &v);
            }
            cur = parent;
        }
        // Its own symbolic target.
        self.own_target(loc).unwrap_or_default()
    }

    /// Of what an aggregate stored as a whole refers to, what a handle field of it can refer to:
    /// memory of the handle's kind (a `PinnedHostSlice` field, pinned memory), objects of its
    /// kind; where none is of that kind, the handle's own target (memory of its kind made
    /// elsewhere, not the aggregate's own: a `Vec<Job>`'s pageable memory holds the `Job`, not
    /// the pinned buffer a `Job` field refers to). Other fields: all of it.
    fn of_handle_kind(&mut self, field: LocId, whole: &LocSet) -> LocSet {
        let wanted = match self.locs.kind(field) {
            LocKind::Handle(Target::Mem(k)) => LocKind::Data(k),
            LocKind::Handle(Target::Obj(o)) => LocKind::Object(o),
            _ => return whole.clone(),
        };
        let kept: LocSet = whole.iter().filter(|&l| self.locs.kind(l) == wanted).collect();
        if !kept.is_empty() {
            return kept;
        }
        // A device address may be of memory the device reaches (mapped pinned memory, managed
        // memory); other handles refer to their own kind only.
        let reachable: LocSet = whole
            .iter()
            .filter(|&l| {
                matches!(
                    (wanted, self.locs.kind(l)),
                    (
                        LocKind::Data(MemKind::Device),
                        LocKind::Data(MemKind::Pinned | MemKind::Managed | MemKind::VmmMapping | MemKind::Unknown)
                    ) | (LocKind::Data(_), LocKind::Data(MemKind::Unknown))
                )
            })
            .collect();
        if !reachable.is_empty() {
            reachable
        } else {
            self.own_target(field).unwrap_or_else(|| whole.clone())
        }
    }

    /// The symbolic target of a handle or pointer that holds no value of the state: what it
    /// pointed to on entry (its `Deref` child).
    fn own_target(&mut self, loc: LocId) -> Option<LocSet> {
        let data = self.locs.get(loc);
        let pointer_like =
            matches!(data.kind, LocKind::Handle(_)) || data.ty.is_some_and(|t| t.is_any_ptr() || t.is_box());
        // A device address kept as a number (`CUdeviceptr`) in a field every builder of the
        // type stores device memory of one kind into.
        let address = !pointer_like
            && data.ty.is_some_and(|t| matches!(t.kind(), ty::Uint(_)))
            && self.field_summary(loc).is_some();
        if !pointer_like && !address {
            return None;
        }
        let target = self.locs.child(loc, Proj::Deref);
        self.field_target_memory(loc, target);
        Some(LocSet::single(target))
    }

    /// A raw pointer in a field of one of the crate's types (`self.host`) points at what every
    /// builder of the type stored there (`Resolver::field_memory`): its target takes that kind.
    /// A handle field (`PinnedHostSlice`) has its kind from its type; the summary adds what the
    /// type does not say (write-combined, the allocator).
    fn field_target_memory(&mut self, field: LocId, target: LocId) {
        let handle = matches!(self.locs.kind(field), LocKind::Handle(Target::Mem(_)));
        if !handle
            && (!matches!(self.locs.kind(target), LocKind::Data(MemKind::Unknown) | LocKind::Plain)
                || !self
                    .locs
                    .get(field)
                    .ty
                    .is_some_and(|t| t.is_raw_ptr() || t.is_integral()))
        {
            return;
        }
        let Some(memory) = self.field_summary(field) else {
            return;
        };
        match self.locs.kind(target) {
            LocKind::Data(MemKind::Unknown) | LocKind::Plain => self.locs.set_kind(target, LocKind::Data(memory.kind)),
            LocKind::Data(kind) if kind == memory.kind => {}
            _ => return,
        }
        let attrs = self.attrs.entry(target).or_default();
        attrs.allocator = attrs.allocator.or(memory.allocator);
        attrs.write_combined |= memory.write_combined;
    }

    /// What every builder of the crate's type stores in field `field` (a location
    /// `owner.field`), if they agree (`Resolver::field_memory`). Pageable memory may have been
    /// page-locked in place where the field was set (`cuMemHostRegister`): its state is not
    /// known here, only pinned and device kinds are.
    fn field_summary(&self, field: LocId) -> Option<FieldMemory> {
        let (owner, proj) = self.locs.get(field).parent?;
        let (variant, index) = match proj {
            Proj::Field(i) => (0, i),
            Proj::Variant(v, i) => (v, i),
            _ => return None,
        };
        let Some(ty::Adt(adt, _)) = self.locs.get(owner).ty.map(|t| *t.kind()) else {
            return None;
        };
        if !adt.did().is_local() {
            return None;
        }
        self.rs
            .field_memory(adt.did(), variant, index)
            .filter(|m| m.kind != MemKind::Pageable)
    }

    fn collect_fields(&self, state: &State, loc: LocId, acc: &mut LocSet, found: &mut bool, depth: u32) {
        for &(proj, child) in &self.locs.get(loc).children {
            if proj == Proj::Deref {
                continue;
            }
            if let Some(v) = state.values.get(&child).filter(|v| !v.is_empty()) {
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

    /// [`Self::narrow`] for what an iterator yields (`next()`'s `Option<Item>`, a closure's
    /// item parameter): an owned item (`vec.into_iter()`'s) is an element of the collection when
    /// the values are the collection.
    fn narrow_item(&mut self, state: &State, values: &LocSet, item_ty: Ty<'tcx>) -> LocSet {
        let item = peel_result(item_ty);
        // Raw pointers may be the elements themselves (`Vec<*mut c_void>::drain`).
        let elements_are_pointers = item.is_raw_ptr()
            && values.iter().all(|l| {
                self.locs
                    .get(l)
                    .ty
                    .is_some_and(|t| matches!(t.kind(), ty::Slice(e) | ty::Array(e, _) if *e == item))
            });
        if matches!(item.kind(), ty::Ref(..) | ty::RawPtr(..)) && !elements_are_pointers {
            return self.narrow(state, values, item);
        }
        values
            .iter()
            .flat_map(|l| {
                self.element_of(state, l, item)
                    .unwrap_or_else(|| LocSet::single(l))
                    .iter()
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// The elements of type `item` of the collection at `l` (an array, a slice, a `Vec`), if it
    /// is one of them.
    fn element_of(&mut self, state: &State, l: LocId, item: Ty<'tcx>) -> Option<LocSet> {
        let lty = self.locs.get(l).ty?;
        match (lty.kind(), self.locs.kind(l)) {
            (ty::Slice(elem) | ty::Array(elem, _), _) if *elem == item => {
                Some(LocSet::single(self.locs.child(l, Proj::Index)))
            }
            (_, LocKind::Handle(Target::Mem(_)))
                if self
                    .locs
                    .target_ty(lty)
                    .is_some_and(|t| matches!(t.kind(), ty::Slice(e) if *e == item)) =>
            {
                let data = self.read_value(state, l);
                Some(data.iter().map(|d| self.locs.child(d, Proj::Index)).collect())
            }
            _ => None,
        }
    }

    fn narrow_one(&mut self, state: &State, l: LocId, target: Ty<'tcx>, depth: u32) -> LocSet {
        let Some(lty) = self.locs.get(l).ty else {
            return LocSet::single(l);
        };
        if lty == target || depth == 0 {
            return LocSet::single(l);
        }
        if let Some(elements) = self.element_of(state, l, target) {
            // An element of a `Vec<T>` or slice (iterating over `&vec`).
            return elements;
        }
        match (lty.kind(), self.locs.kind(l)) {
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
        self.reach_nested(state, values, depth, false, false)
    }

    /// The memory a kernel's argument reaches: a pointer to each parameter, where a parameter
    /// may be a device address held as a number (`CUdeviceptr`).
    fn reach_args(&mut self, state: &State, values: &LocSet) -> LocSet {
        self.reach_nested(state, values, 3, false, true)
    }

    /// The device memory that tables of device pointers in `data` point to (a table copied to
    /// the device from the host, given to a kernel), two tables deep.
    fn through_device_tables(&mut self, state: &State, data: &LocSet) -> LocSet {
        let mut out = LocSet::new();
        let mut frontier = data.clone();
        for _ in 0..2 {
            let mut next = LocSet::new();
            for l in frontier.iter() {
                if !matches!(self.locs.kind(l), LocKind::Data(k) if k.is_device_only()) {
                    continue;
                }
                let index = self.locs.child(l, Proj::Index);
                if let Some(stored) = state.values.get(&index) {
                    for p in stored.iter() {
                        if !data.contains(p) && out.insert(p) {
                            next.insert(p);
                        }
                    }
                }
            }
            if next.is_empty() {
                break;
            }
            frontier = next;
        }
        out
    }

    /// A worklist, not a recursion: handles can refer to one another in cycles (a `Vec<Vec<u8>>`
    /// drained into itself), and each location is visited once per remaining depth.
    fn reach_nested(&mut self, state: &State, values: &LocSet, depth: u32, nested: bool, numbers: bool) -> LocSet {
        let mut out = LocSet::new();
        let mut seen: FxHashSet<(LocId, u32, bool)> = FxHashSet::default();
        let mut work: Vec<(LocId, u32, bool)> = values.iter().map(|l| (l, depth, nested)).collect();
        while let Some((l, depth, nested)) = work.pop() {
            if !seen.insert((l, depth, nested)) {
                continue;
            }
            match self.locs.kind(l) {
                LocKind::Data(_) => {
                    out.insert(l);
                }
                LocKind::Handle(Target::Mem(_)) => {
                    let data = self.read_value(state, l);
                    work.extend(data.iter().map(|d| (d, 0, true)));
                }
                // A raw pointer stored behind the argument (`format!("{p:?}")` gets `&p`) is
                // an address to print or compare; only one passed itself is dereferenced.
                LocKind::Plain
                    if depth > 0
                        && self.locs.get(l).ty.is_some_and(|t| {
                            // A kernel parameter is the value itself, whatever it is (an address as
                            // a number, or a raw pointer).
                            (numbers && (t.is_integral() || t.is_raw_ptr()))
                                || (!t.is_integral() && !(nested && t.is_raw_ptr()) && self.locs.holds_pointers(t))
                        }) =>
                {
                    let inner = self.read_value(state, l);
                    work.extend(inner.iter().map(|i| (i, depth - 1, true)));
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
                if place.is_indirect() || self.element_of_array_in_flight(place, state) {
                    self.host_access(f, &locs, Access::Read, si, state);
                }
                let mut v = LocSet::new();
                for l in locs.iter() {
                    v.union_with(&self.read_value(state, l));
                }
                v
            }
            // `&STATIC`: a pointer to the static's memory, the same in every function.
            Operand::Constant(c) => match self.static_of(c) {
                Some(def_id) => {
                    let ty = self.tcx.type_of(def_id).instantiate_identity().skip_normalization();
                    LocSet::single(self.locs.static_item(def_id, ty, self.tcx.def_span(def_id)))
                }
                None => LocSet::new(),
            },
            _ => LocSet::new(),
        }
    }

    /// The `static` a constant points to, if it is a reference to one.
    fn static_of(&self, c: &mir::ConstOperand<'tcx>) -> Option<DefId> {
        let mir::Const::Val(mir::ConstValue::Scalar(mir::interpret::Scalar::Ptr(ptr, _)), _) = c.const_ else {
            return None;
        };
        match self.tcx.global_alloc(ptr.provenance.alloc_id()) {
            mir::interpret::GlobalAlloc::Static(def_id) => Some(def_id),
            _ => None,
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
            Rvalue::Ref(_, borrow, place) => {
                let locs = self.place(f, *place, state);
                // A Rust reference made through a raw pointer (`&*p`, `&(*p).field`, and what
                // `println!("{}", *p)` passes to its formatter) lets the host use the memory.
                if self.reporting && self.through_raw_pointer(f, *place) {
                    let write = matches!(borrow, mir::BorrowKind::Mut { .. });
                    self.host_view(f, &locs, write, true, si, state);
                }
                Val::Set(locs)
            }
            Rvalue::RawPtr(_, place) => Val::Set(self.place(f, *place, state)),
            Rvalue::CopyForDeref(place) => {
                let op = Operand::Copy(*place);
                Val::Set(self.operand(f, &op, si, state))
            }
            Rvalue::Cast(_, op, to) => {
                let v = self.operand(f, op, si, state);
                // A number narrower than an address (`len as i32`), a float or a flag holds none.
                if may_hold_address(*to) {
                    Val::Set(v)
                } else {
                    Val::Set(LocSet::new())
                }
            }
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
                    // An address past the start of a VMM reservation is a view of it, which
                    // may be mapped apart (a mirrored ring buffer's `base + size`).
                    if matches!(
                        bin,
                        BinOp::Add | BinOp::AddUnchecked | BinOp::AddWithOverflow | BinOp::Offset
                    ) {
                        va = self.offset_views(f, &va, b);
                        let vb = self.offset_views(f, &vb, a);
                        va.union_with(&vb);
                        return Val::Set(va);
                    }
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
                if let mir::AggregateKind::Adt(adt, v, ..) = **kind
                    && self.collect_fields_of == Some(adt)
                {
                    self.note_field_stores(f, v.as_u32(), ops, state);
                }
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

    /// While summarizing a type: the memory each raw-pointer field of an aggregate of it is
    /// built with (see `Resolver::field_memory`).
    fn note_field_stores(
        &mut self,
        f: FrameId,
        variant: u32,
        ops: &rustc_index::IndexSlice<rustc_abi::FieldIdx, Operand<'tcx>>,
        state: &mut State,
    ) {
        let body = self.frames[f.0 as usize].body;
        for (i, op) in ops.iter().enumerate() {
            let ty = self.instantiate(f, op.ty(&body.local_decls, self.tcx));
            if !self.summarized_field(ty) {
                continue;
            }
            let pointees = match op.place() {
                Some(place) => {
                    let locs = self.place(f, place, state);
                    let mut v = LocSet::new();
                    for l in locs.iter() {
                        v.union_with(&self.read_value(state, l));
                    }
                    v
                }
                None => LocSet::new(),
            };
            let memory = self.memory_of(&pointees);
            self.field_stores.push(((variant, i as u32), memory));
        }
    }

    /// Whether a field of this type is summarized (`Resolver::field_memory`): raw pointers,
    /// memory handles, and device addresses kept as numbers (`CUdeviceptr`).
    fn summarized_field(&self, ty: Ty<'tcx>) -> bool {
        ty.is_raw_ptr()
            || matches!(ty.kind(), ty::Uint(ty::UintTy::U64 | ty::UintTy::Usize))
            || matches!(self.rs.role(ty), Some(Target::Mem(_)))
    }

    /// The one kind of memory (with its allocator) all of `pointees` are, if they are known and
    /// agree.
    fn memory_of(&self, pointees: &LocSet) -> Option<FieldMemory> {
        let mut memory: Option<FieldMemory> = None;
        if pointees.is_empty() {
            return None;
        }
        for l in pointees.iter() {
            let root = self.locs.data_root(l);
            let here = match self.locs.kind(l) {
                LocKind::Data(kind) if kind != MemKind::Unknown => {
                    let attrs = self.attrs.get(&root);
                    FieldMemory {
                        kind,
                        allocator: attrs.and_then(|a| a.allocator),
                        write_combined: attrs.is_some_and(|a| a.write_combined),
                    }
                }
                _ => return None,
            };
            match memory {
                None => memory = Some(here),
                Some(m) if m != here => return None,
                _ => {}
            }
        }
        memory
    }

    /// While summarizing a type: what the builder's result holds in each pointer field when it
    /// returns (fields set after the aggregate was built: `me.host` filled by `cudaHostAlloc(&mut
    /// me.host, ..)`). `None` where nothing is known.
    fn returned_field_stores(&mut self, adt: DefId, exit: &State) -> Vec<((u32, u32), FieldMemory)> {
        let ret = self.local_loc(FrameId::ROOT, mir::RETURN_PLACE);
        let Some(ret_ty) = self.locs.get(ret).ty else {
            return Vec::new();
        };
        let is_adt = |t: Ty<'tcx>| matches!(t.kind(), ty::Adt(def, _) if def.did() == adt);
        // The value itself, or the payload of `Ok`/`Some`.
        let value = if is_adt(ret_ty) {
            ret
        } else if let ty::Adt(_, args) = ret_ty.kind()
            && ret_ty.is_enum()
            && args.types().next().is_some_and(is_adt)
        {
            let variant = if self
                .tcx
                .is_diagnostic_item(rustc_span::sym::Option, ret_ty.ty_adt_def().map_or(adt, |d| d.did()))
            {
                1
            } else {
                0
            };
            self.locs.child(ret, Proj::Variant(variant, 0))
        } else {
            return Vec::new();
        };
        let ty::Adt(def, args) = *ret_ty.kind() else {
            return Vec::new();
        };
        let Some(inner) = (if is_adt(ret_ty) {
            Some(ret_ty)
        } else {
            args.types().next()
        }) else {
            return Vec::new();
        };
        let ty::Adt(inner_def, inner_args) = *inner.kind() else {
            return Vec::new();
        };
        let _ = def;
        if inner_def.is_enum() {
            return Vec::new();
        }
        let mut out = Vec::new();
        for (i, field) in inner_def.non_enum_variant().fields.iter().enumerate() {
            let ty = field.ty(self.tcx, inner_args).skip_normalization();
            if !self.summarized_field(ty) {
                continue;
            }
            let slot = self.locs.child(value, Proj::Field(i as u32));
            let Some(pointees) = exit.values.get(&slot).cloned() else {
                continue;
            };
            if let Some(memory) = self.memory_of(&pointees) {
                out.push(((0, i as u32), memory));
            }
        }
        out
    }

    /// Whether a place goes through a dereference of a raw pointer.
    fn through_raw_pointer(&self, f: FrameId, place: Place<'tcx>) -> bool {
        let body = self.frames[f.0 as usize].body;
        place
            .iter_projections()
            .any(|(base, elem)| elem == ProjectionElem::Deref && base.ty(&body.local_decls, self.tcx).ty.is_raw_ptr())
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
    /// An array on the stack is memory too (a copy may read it), and its elements (a `[Slot; 2]`
    /// built from two `Slot`s) are kept the same way.
    fn is_aggregate(&self, loc: LocId) -> bool {
        let data = self.locs.get(loc);
        let array = data.ty.is_some_and(|t| matches!(t.kind(), ty::Array(..)));
        array
            || matches!(data.kind, LocKind::Plain)
                && data
                    .ty
                    .is_none_or(|t| matches!(t.kind(), ty::Adt(..) | ty::Tuple(_) | ty::Closure(..)))
    }

    /// Whether `place` is an element of a local array (`h[0]`, not through a pointer) while
    /// work may be in flight: a copy into the array (`cuMemcpyDtoHAsync(h.as_mut_ptr(), ..)`)
    /// may still write it, so reading it is a host access like `*p`.
    fn element_of_array_in_flight(&self, place: &Place<'tcx>, state: &State) -> bool {
        !state.m.inflight_may.is_empty()
            && !place.is_indirect()
            && place
                .projection
                .iter()
                .any(|p| matches!(p, ProjectionElem::Index(_) | ProjectionElem::ConstantIndex { .. }))
    }

    fn assign(&mut self, f: FrameId, place: Place<'tcx>, val: Val, si: SourceInfo, state: &mut State) {
        let dests = self.place(f, place, state);
        if place.is_indirect() || self.element_of_array_in_flight(&place, state) {
            self.host_access(f, &dests, Access::Write, si, state);
        }
        let strong = dests.len() == 1
            && !place.is_indirect()
            && !place
                .projection
                .iter()
                .any(|p| matches!(p, ProjectionElem::Index(_) | ProjectionElem::Subslice { .. }));
        let empty = LocSet::new();
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
                            self.copy_tree_into(state, *src, child, 3, *proj == Proj::Index);
                            // An enum moved into a field keeps its variant.
                            if strong_field {
                                let known = state.variants.get(src).copied();
                                self.copy_variants(state, *src, child, known, 3);
                            }
                        }
                        // An aggregate moved with its fields is known field by field: the union
                        // of what they hold, kept on the whole, would be read back for a field
                        // that holds nothing (a count) as everything the others hold.
                        let v = if src.is_some() && self.fields_hold_values(child, state) {
                            &empty
                        } else {
                            v
                        };
                        self.store(state, child, v, strong_field);
                        if *proj == Proj::Index {
                            self.note_elements(state, child);
                        }
                    }
                }
                Val::Tree(src, v) => {
                    self.copy_tree(state, *src, dest, 3);
                    let v = if self.fields_hold_values(dest, state) {
                        &empty
                    } else {
                        v
                    };
                    self.store(state, dest, v, strong);
                }
            }
        }
    }

    /// The one location a place denotes (through a reference to one place, `self.handle`
    /// too), where an assignment replaces what was there.
    fn strong_dest(&mut self, f: FrameId, place: Place<'tcx>, state: &State) -> Option<LocId> {
        if place
            .projection
            .iter()
            .any(|p| matches!(p, ProjectionElem::Index(_) | ProjectionElem::Subslice { .. }))
        {
            return None;
        }
        single(&self.place(f, place, state))
    }

    /// Keeps which variant an enum assigned whole is (`x = E::A(..)`, `x = y`), and which
    /// location a discriminant read is of (for `switchInt`).
    fn track_variant(
        &mut self,
        f: FrameId,
        place: Place<'tcx>,
        rvalue: &Rvalue<'tcx>,
        tree_src: Option<LocId>,
        state: &mut State,
    ) {
        if let Rvalue::Discriminant(of) = rvalue {
            if let Some(local) = place.as_local()
                && let Some(loc) = single(&self.place(f, *of, state))
            {
                self.discriminants.insert((f, local), loc);
            }
            return;
        }
        // A flag copied to be tested (`if slot.in_use`): the test is of the flag.
        if let Rvalue::Use(Operand::Copy(of) | Operand::Move(of), _) = rvalue
            && let Some(local) = place.as_local()
            && self.frames[f.0 as usize].body.local_decls[local].ty.is_bool()
            && let Some(loc) = single(&self.place(f, *of, state))
        {
            self.discriminants.insert((f, local), loc);
        }
        let Some(dest) = self.strong_dest(f, place, state) else {
            return;
        };
        let variant = match rvalue {
            Rvalue::Aggregate(kind, _) => match **kind {
                mir::AggregateKind::Adt(def_id, v, ..) if self.tcx.adt_def(def_id).is_enum() => Some(v.as_u32()),
                _ => None,
            },
            // A flag set (`slot.in_use = true`): variant 1, `false` variant 0.
            Rvalue::Use(Operand::Constant(c), _) if c.ty().is_bool() => {
                c.const_.try_eval_bool(self.tcx, self.typing_env).map(u32::from)
            }
            _ => None,
        };
        match (variant, tree_src) {
            (Some(v), _) => self.set_variant(state, dest, Some(v)),
            (None, Some(src)) => {
                let known = state.variants.get(&src).copied();
                self.copy_variants(state, src, dest, known, 3);
            }
            (None, None) => self.set_variant(state, dest, None),
        }
    }

    /// Sets (or, with `None`, forgets) the variant of the enum at `loc`.
    fn set_variant(&mut self, state: &mut State, loc: LocId, variant: Option<u32>) {
        match variant.filter(|v| *v < 64) {
            Some(v) => {
                state.variants.insert(loc, 1 << v);
                if state.running_when.len() < MAX_RUNNING_WHEN || state.running_when.contains_key(&loc) {
                    let running = state.m.inflight_may.clone();
                    state.running_when.insert(loc, [(v, running)].into_iter().collect());
                } else {
                    state.running_when.remove(&loc);
                }
            }
            None => {
                state.variants.remove(&loc);
                state.running_when.remove(&loc);
            }
        }
    }

    /// Copies what is known of the variants of `src` and its fields to `dest`'s.
    fn copy_variants(&mut self, state: &mut State, src: LocId, dest: LocId, known: Option<u64>, depth: u32) {
        match known {
            Some(bits) => {
                state.variants.insert(dest, bits);
            }
            None => {
                state.variants.remove(&dest);
            }
        }
        // (Kept whether or not the variant is known: a join that forgets it keeps, per
        // variant, what may run.)
        match state.running_when.get(&src).cloned() {
            Some(ops) => {
                state.running_when.insert(dest, ops);
            }
            None => {
                state.running_when.remove(&dest);
            }
        }
        if depth == 0 {
            return;
        }
        let children: Vec<(Proj, LocId)> = self.locs.get(src).children.clone();
        for (proj, child) in children {
            if proj == Proj::Deref {
                continue;
            }
            let target = self.locs.child(dest, proj);
            let bits = state.variants.get(&child).copied();
            self.copy_variants(state, child, target, bits, depth - 1);
        }
    }

    /// For a `switchInt` on the discriminant of an enum with `State::running_when` sets: each
    /// arm that one variant alone reaches, and what may run where the enum is that variant.
    fn arm_not_running(
        &self,
        f: FrameId,
        discr: &Operand<'tcx>,
        targets: &mir::SwitchTargets,
        state: &State,
    ) -> Vec<(BasicBlock, OpSet)> {
        let Some(local) = discr.place().and_then(|p| p.as_local()) else {
            return Vec::new();
        };
        let Some(&loc) = self.discriminants.get(&(f, local)) else {
            return Vec::new();
        };
        let Some(per_variant) = state.running_when.get(&loc) else {
            return Vec::new();
        };
        let ty = self.locs.get(loc).ty;
        // A flag: `false` is variant 0, `true` variant 1 (`switchInt(flag) -> [0: no, otherwise: yes]`).
        if ty.is_some_and(|t| t.is_bool()) {
            let mut out = Vec::new();
            if let [(0, no)] = targets.iter().collect::<Vec<_>>()[..]
                && no != targets.otherwise()
            {
                out.push((no, crate::mir::state::running_if(per_variant, 0)));
                out.push((targets.otherwise(), crate::mir::state::running_if(per_variant, 1)));
            }
            return out;
        }
        // An `async` body's state: the discriminant is the state's index (0: not started).
        let coroutine = ty.is_some_and(|t| matches!(t.kind(), ty::Coroutine(..)));
        let adt = match ty.map(|t| *t.kind()) {
            Some(ty::Adt(adt, _)) if adt.is_enum() => Some(adt),
            _ if coroutine => None,
            _ => return Vec::new(),
        };
        let variant_of = |value: u128| match adt {
            Some(adt) => adt
                .discriminants(self.tcx)
                .find(|(_, d)| d.val == value)
                .map(|(v, _)| v.as_u32()),
            None => u32::try_from(value).ok(),
        };
        let mut out = Vec::new();
        for (value, bb) in targets.iter() {
            // An arm reached by one value only.
            if targets.iter().filter(|(_, b)| *b == bb).count() != 1 || targets.otherwise() == bb {
                continue;
            }
            if let Some(v) = variant_of(value) {
                out.push((bb, crate::mir::state::running_if(per_variant, v)));
            }
        }
        out
    }

    /// The successors of a `switchInt` on an enum's discriminant that its known variants rule
    /// out.
    /// At `switchInt(discr)` on the discriminant of a call's result that has an error state
    /// (see `error_states`): the `Err` arm (discriminant 1) and that state.
    fn error_arm(
        &self,
        f: FrameId,
        discr: &Operand<'tcx>,
        targets: &mir::SwitchTargets,
    ) -> Option<(BasicBlock, State)> {
        if self.error_states.is_empty() {
            return None;
        }
        let local = discr.place()?.as_local()?;
        let loc = self.discriminants.get(&(f, local))?;
        let (variant, err_state) = self.error_states.get(loc)?;
        // `[1: err, otherwise: ok]`, or `[0: ok, otherwise: err]` (two variants).
        let err = targets
            .iter()
            .find(|&(v, _)| v == u128::from(*variant))
            .map(|(_, bb)| bb)
            .or_else(|| (targets.iter().count() == 1).then(|| targets.otherwise()))?;
        Some((err, err_state.clone()))
    }

    fn ruled_out_arms(
        &self,
        f: FrameId,
        discr: &Operand<'tcx>,
        targets: &mir::SwitchTargets,
        state: &State,
    ) -> Vec<BasicBlock> {
        let Some(local) = discr.place().and_then(|p| p.as_local()) else {
            return Vec::new();
        };
        let Some(&loc) = self.discriminants.get(&(f, local)) else {
            return Vec::new();
        };
        let Some(&bits) = state.variants.get(&loc) else {
            return Vec::new();
        };
        let Some(ty) = self.locs.get(loc).ty else {
            return Vec::new();
        };
        let ty::Adt(adt, _) = ty.kind() else {
            return Vec::new();
        };
        if !adt.is_enum() {
            return Vec::new();
        }
        // Discriminant values of the variants it may be.
        let possible: Vec<u128> = adt
            .discriminants(self.tcx)
            .filter(|(v, _)| v.as_u32() < 64 && bits & (1 << v.as_u32()) != 0)
            .map(|(_, d)| d.val)
            .collect();
        let mut out: Vec<BasicBlock> = targets
            .iter()
            .filter(|(value, _)| !possible.contains(value))
            .map(|(_, bb)| bb)
            .collect();
        // `otherwise` is taken by the values not listed.
        if possible.iter().all(|p| targets.iter().any(|(value, _)| value == *p)) {
            out.push(targets.otherwise());
        }
        // A block some possible value also reaches stays.
        let kept: Vec<BasicBlock> = targets
            .iter()
            .filter(|(value, _)| possible.contains(value))
            .map(|(_, bb)| bb)
            .collect();
        out.retain(|bb| !kept.contains(bb));
        out
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
        state.variants.remove(&loc);
        state.running_when.remove(&loc);
        let children: Vec<(Proj, LocId)> = self.locs.get(loc).children.clone();
        for (proj, child) in children {
            if proj != Proj::Deref {
                self.clear(state, child);
            }
        }
    }

    /// Copies the values of `src`'s fields to the same fields of `dest`.
    /// Whether a field of the aggregate at `loc` holds a value of the state.
    pub(super) fn fields_hold_values(&self, loc: LocId, state: &State) -> bool {
        self.descendants_hold_values(loc, state, 3)
    }

    /// Whether a field of `loc`, or a field of one (an array of structs: its elements'
    /// fields), holds a value of its own.
    fn descendants_hold_values(&self, loc: LocId, state: &State, depth: u32) -> bool {
        depth > 0
            && self.locs.get(loc).children.iter().any(|&(p, child)| {
                p != Proj::Deref
                    && (state.values.get(&child).is_some() || self.descendants_hold_values(child, state, depth - 1))
            })
    }

    fn copy_tree(&mut self, state: &mut State, src: LocId, dest: LocId, depth: u32) {
        self.copy_tree_into(state, src, dest, depth, false);
    }

    /// [`Self::copy_tree`]; with `merge`, what `dest`'s fields held is kept beside what `src`'s
    /// hold (the element of an array literal stands for each of its elements).
    /// The elements of a collection at `element` (one location for all): where they hold
    /// several allocations (`[Buf::new()?, Buf::new()?]`, buffers pushed one by one), each is
    /// one of many.
    pub(super) fn note_elements(&mut self, state: &State, element: LocId) {
        let mut stack = vec![(element, 0u8)];
        while let Some((at, depth)) = stack.pop() {
            if let Some(vals) = state.values.get(&at) {
                let roots: Vec<LocId> = vals
                    .iter()
                    .filter(|&v| matches!(self.locs.kind(v), LocKind::Data(_)))
                    .map(|v| self.locs.data_root(v))
                    .collect();
                if roots.iter().any(|r| *r != roots[0]) {
                    for r in roots {
                        self.attrs.entry(r).or_default().one_of_many = true;
                    }
                }
            }
            if depth < 3 {
                stack.extend(self.locs.get(at).children.iter().map(|&(_, c)| (c, depth + 1)));
            }
        }
    }

    pub(super) fn copy_tree_into(&mut self, state: &mut State, src: LocId, dest: LocId, depth: u32, merge: bool) {
        if depth == 0 || src == dest {
            return;
        }
        let children: Vec<(Proj, LocId)> = self.locs.get(src).children.clone();
        if !merge {
            // A part the value moved in says nothing of (taken from a pool the body did not
            // fill: `let slot = self.free.pop()?`) is not what the destination held before: the
            // work started on that (the previous turn of a loop) did not use this one.
            let stale: Vec<LocId> = self
                .locs
                .get(dest)
                .children
                .iter()
                .filter(|&&(p, _)| p != Proj::Deref && !children.iter().any(|&(q, _)| q == p))
                .map(|&(_, c)| c)
                .collect();
            for part in stale {
                self.forget_part(state, part, depth - 1);
            }
        }
        for (proj, child) in children {
            if proj == Proj::Deref {
                continue;
            }
            let target = self.locs.child(dest, proj);
            let v = state.values.get(&child).cloned().or_else(|| {
                // A handle or pointer moved with its aggregate still refers to what it did
                // (a parameter's field: its own symbolic target).
                self.own_target(child)
            });
            if let Some(mut v) = v {
                if merge && let Some(held) = state.values.get(&target) {
                    v.union_with(held);
                }
                state.values.insert(target, v);
            }
            self.copy_tree_into(state, child, target, depth - 1, merge);
        }
    }
}

impl Interp<'_, '_> {
    /// A part of a place given a value nothing is known of: what it held is forgotten, and
    /// what it pointed to (its own symbolic target) is a new object.
    fn forget_part(&mut self, state: &mut State, part: LocId, depth: u32) {
        state.values.remove(&part);
        let children: Vec<(Proj, LocId)> = self.locs.get(part).children.clone();
        for (proj, child) in children {
            if proj == Proj::Deref {
                self.machine
                    .renew(&mut state.m, &LocSet::single(self.locs.data_root(child)));
            } else if depth > 0 {
                self.forget_part(state, child, depth - 1);
            }
        }
    }
}

enum Next {
    Return,
    Blocks(Vec<BasicBlock>),
}

/// The order in which the fixpoint visits blocks: a loop (strongly connected component of the
/// control-flow graph) is finished before what follows it is visited, so sequential loops cost
/// their own iterations only (reverse postorder alone may put the code after a loop before its
/// body, and then revisits it once per iteration of every loop before it); within a component,
/// reverse postorder. Unwind paths are not followed.
fn loop_aware_order(body: &Body<'_>) -> Vec<BasicBlock> {
    let blocks = &body.basic_blocks;
    let n = blocks.len();
    let succs = |bb: BasicBlock| -> Vec<BasicBlock> {
        blocks[bb]
            .terminator()
            .successors()
            .filter(|s| !blocks[*s].is_cleanup)
            .collect()
    };
    // Tarjan's algorithm, iteratively; components come out sinks first.
    const UNSEEN: usize = usize::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<BasicBlock> = Vec::new();
    let mut comp = vec![usize::MAX; n];
    let mut comps = 0usize;
    let mut next_index = 0usize;
    let mut work: Vec<(BasicBlock, Vec<BasicBlock>, usize)> = Vec::new();
    let start = mir::START_BLOCK;
    index[start.as_usize()] = next_index;
    low[start.as_usize()] = next_index;
    next_index += 1;
    stack.push(start);
    on_stack[start.as_usize()] = true;
    work.push((start, succs(start), 0));
    while let Some((v, vs, i)) = work.last_mut() {
        let v = *v;
        if let Some(&w) = vs.get(*i) {
            *i += 1;
            let (wi, vi) = (w.as_usize(), v.as_usize());
            if index[wi] == UNSEEN {
                index[wi] = next_index;
                low[wi] = next_index;
                next_index += 1;
                stack.push(w);
                on_stack[wi] = true;
                let ws = succs(w);
                work.push((w, ws, 0));
            } else if on_stack[wi] {
                low[vi] = low[vi].min(index[wi]);
            }
            continue;
        }
        work.pop();
        let vi = v.as_usize();
        if let Some((parent, ..)) = work.last() {
            let pi = parent.as_usize();
            low[pi] = low[pi].min(low[vi]);
        }
        if low[vi] == index[vi] {
            while let Some(w) = stack.pop() {
                on_stack[w.as_usize()] = false;
                comp[w.as_usize()] = comps;
                if w == v {
                    break;
                }
            }
            comps += 1;
        }
    }
    let rpo_index: FxHashMap<BasicBlock, usize> = blocks
        .reverse_postorder()
        .iter()
        .enumerate()
        .map(|(i, &bb)| (bb, i))
        .collect();
    let mut reachable: Vec<BasicBlock> = (0..n)
        .map(BasicBlock::from_usize)
        .filter(|bb| comp[bb.as_usize()] != usize::MAX)
        .collect();
    // Sources first: Tarjan numbered the components sinks first.
    reachable.sort_by_key(|bb| {
        (
            comps - comp[bb.as_usize()],
            rpo_index.get(bb).copied().unwrap_or(usize::MAX),
        )
    });
    reachable
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
    /// Whether the callee may dereference on the host raw pointers it is given (see `call`).
    derefs_raw: bool,
}

impl<'a, 'tcx> Interp<'a, 'tcx> {
    /// What an operand added to an address adds: a constant (through the locals it was
    /// copied or cast through, and the parameters of inlined helpers), or `None`.
    fn offset_amount(&self, f: FrameId, op: &Operand<'tcx>) -> Option<u64> {
        let eval = |body: &'a Body<'tcx>, op: &Operand<'tcx>| const_ints_of(self.tcx, self.typing_env, body, op, 4);
        match self.operand_through_helpers(f, op, eval).0?.as_slice() {
            [one] => u64::try_from(*one).ok(),
            _ => None,
        }
    }

    /// `set` with each VMM reservation (or view) in it moved by the operand `by` (see
    /// [`Locs::offset_view`]).
    fn offset_views(&mut self, f: FrameId, set: &LocSet, by: &Operand<'tcx>) -> LocSet {
        if !set
            .iter()
            .any(|l| self.locs.kind(l) == LocKind::Data(MemKind::VmmMapping))
        {
            return set.clone();
        }
        let delta = self.offset_amount(f, by);
        let mut out = LocSet::new();
        for l in set.iter() {
            out.insert(self.locs.offset_view(l, delta));
        }
        out
    }
}

fn single(set: &LocSet) -> Option<LocId> {
    (set.len() == 1).then(|| set.iter().next()).flatten()
}

/// Names of places with projections: a closure's captured variables, `(*((*_1).0))`.
type NamedPaths = Vec<(Local, Vec<Proj>, String)>;

/// Names of user variables from debug info: locals, and places with projections.
fn debug_names(tcx: TyCtxt<'_>, body: &Body<'_>) -> (FxHashMap<Local, String>, NamedPaths) {
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

/// The parameter (local `_1`, `_2`, ...) an operand's value comes from, following copies and
/// reborrows between locals (`let s = src; compile(s)`), if it comes from one.
fn param_source(body: &Body<'_>, op: &Operand<'_>, depth: u32) -> Option<Local> {
    let place = op.place()?;
    if !place.projection.is_empty() && !(place.projection.len() == 1 && place.is_indirect()) {
        return None;
    }
    let local = place.local;
    if (1..=body.arg_count).contains(&local.as_usize()) {
        return Some(local);
    }
    if depth == 0 {
        return None;
    }
    // The one assignment of the local, a copy or a reborrow of another.
    let mut found = None;
    for data in body.basic_blocks.iter() {
        for stmt in &data.statements {
            let StatementKind::Assign(box (dest, rv)) = &stmt.kind else {
                continue;
            };
            if dest.local != local {
                continue;
            }
            if found.is_some() || !dest.projection.is_empty() {
                return None;
            }
            found = Some(match rv {
                Rvalue::Use(inner, _) | Rvalue::Cast(_, inner, _) => param_source(body, inner, depth - 1),
                Rvalue::Ref(_, _, src) | Rvalue::CopyForDeref(src) => {
                    param_source(body, &Operand::Copy(*src), depth - 1)
                }
                _ => None,
            });
        }
    }
    found.flatten()
}

/// Whether a value of this type may be (or hold) an address: anything but numbers narrower
/// than 64 bits, floats, flags and characters.
fn may_hold_address(ty: Ty<'_>) -> bool {
    !matches!(
        ty.kind(),
        ty::Bool
            | ty::Char
            | ty::Float(_)
            | ty::Int(ty::IntTy::I8 | ty::IntTy::I16 | ty::IntTy::I32)
            | ty::Uint(ty::UintTy::U8 | ty::UintTy::U16 | ty::UintTy::U32)
    )
}

/// Whether a callee given a value of this type may write through it.
fn writes_through<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> bool {
    // `&mut` to an iterator of the standard library over shared items (`iter.all(..)`,
    // `iter.position(..)`): the iterator moves, the memory it walks is only read.
    if let ty::Ref(_, inner, m) = ty.kind()
        && m.is_mut()
        && reads_only_through(tcx, *inner)
    {
        return false;
    }
    ty.walk().any(|arg| {
        arg.as_type().is_some_and(|t| match t.kind() {
            ty::Ref(_, _, m) | ty::RawPtr(_, m) => m.is_mut(),
            _ => false,
        })
    })
}

/// Whether `ty` is the standard library's state of an iteration over shared items: a type of
/// `core`/`alloc`/`std` (`slice::Iter`, `Map<Iter<..>, F>`...) with no `&mut`, `*mut` or
/// mutable iterator (`IterMut`, `ChunksMut`, `Drain`...) in it.
fn reads_only_through<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> bool {
    let ty::Adt(def, _) = ty.kind() else {
        return false;
    };
    matches!(tcx.crate_name(def.did().krate).as_str(), "core" | "alloc" | "std")
        && tcx.def_path_str(def.did()).to_ascii_lowercase().contains("iter")
        && !ty.walk().any(|arg| {
            arg.as_type().is_some_and(|t| match t.kind() {
                ty::Ref(_, _, m) | ty::RawPtr(_, m) => m.is_mut(),
                ty::Adt(d, _) => {
                    let name = tcx.item_name(d.did());
                    name.as_str().ends_with("Mut") || name.as_str() == "Drain"
                }
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
    const_values_of(tcx, typing_env, body, op, depth, &|tcx, env, c| {
        let value = c.const_.eval(tcx, env, c.span).ok()?;
        let bytes = value.try_get_slice_bytes_for_diagnostics(tcx)?;
        // A C string literal (`c"name"`) ends in its NUL.
        let bytes = bytes.strip_suffix(&[0]).unwrap_or(bytes);
        String::from_utf8(bytes.to_vec()).ok()
    })
}

/// What [`const_strs_of`] does, for any kind of constant `eval` reads.
type EvalConst<'tcx, T> = dyn Fn(TyCtxt<'tcx>, TypingEnv<'tcx>, &mir::ConstOperand<'tcx>) -> Option<T>;

/// The integer constants `op` may be in `body` (several when branches choose): constants,
/// field-less enum variants (their discriminants), and sums, differences, `|` and shifts of
/// them (`CU_STREAM_NON_BLOCKING as u32` is `discriminant + 0` in MIR), through copies and
/// casts. `None` when any is not one.
fn const_ints_of<'tcx>(
    tcx: TyCtxt<'tcx>,
    typing_env: TypingEnv<'tcx>,
    body: &Body<'tcx>,
    op: &Operand<'tcx>,
    depth: u32,
) -> Option<Vec<u128>> {
    const_ints_with(tcx, typing_env, body, op, depth, &|_| None)
}

/// [`const_ints_of`], where `params` answers for the body's parameters (what the callers of an
/// inlined helper pass: `count * size_of::<f32>()` with `count` given as `ROWS`).
pub(super) fn const_ints_with<'tcx>(
    tcx: TyCtxt<'tcx>,
    typing_env: TypingEnv<'tcx>,
    body: &Body<'tcx>,
    op: &Operand<'tcx>,
    depth: u32,
    params: &dyn Fn(Local) -> Option<Vec<u128>>,
) -> Option<Vec<u128>> {
    let local = match op {
        Operand::Constant(c) => {
            return c
                .const_
                .try_eval_scalar_int(tcx, typing_env)
                .map(|i| vec![i.to_bits_unchecked()]);
        }
        Operand::Copy(place) | Operand::Move(place) if depth > 0 => match place.projection.as_slice() {
            [] => place.local,
            // The value of a checked operation (`(sum, overflowed).0`).
            [ProjectionElem::Field(f, _)] if f.as_u32() == 0 => place.local,
            _ => return None,
        },
        _ => return None,
    };
    if (1..=body.arg_count).contains(&local.as_usize()) {
        return params(local);
    }
    // `size_of::<T>()`, a call in the MIR rustc builds: the size of `T`.
    if let Some(size) = size_of_call(tcx, typing_env, body, local) {
        return Some(vec![size]);
    }
    if written_through_borrow_or_call(body, local) {
        return None;
    }
    let mut out: Vec<u128> = Vec::new();
    for data in body.basic_blocks.iter() {
        for stmt in &data.statements {
            let StatementKind::Assign(box (dest, rv)) = &stmt.kind else {
                continue;
            };
            if dest.local != local {
                continue;
            }
            if !dest.projection.is_empty() {
                return None;
            }
            let values = match rv {
                Rvalue::Use(inner, _) | Rvalue::Cast(_, inner, _) => {
                    const_ints_with(tcx, typing_env, body, inner, depth - 1, params)?
                }
                Rvalue::Aggregate(kind, fields) if fields.is_empty() => match **kind {
                    mir::AggregateKind::Adt(adt, v, ..) if tcx.adt_def(adt).is_enum() => {
                        vec![tcx.adt_def(adt).discriminant_for_variant(tcx, v).val]
                    }
                    _ => return None,
                },
                Rvalue::BinaryOp(bin, box (a, b)) => {
                    let (xs, ys) = (
                        const_ints_with(tcx, typing_env, body, a, depth - 1, params)?,
                        const_ints_with(tcx, typing_env, body, b, depth - 1, params)?,
                    );
                    let mut v = Vec::new();
                    for &x in &xs {
                        for &y in &ys {
                            v.push(match bin {
                                BinOp::Add | BinOp::AddUnchecked | BinOp::AddWithOverflow => x.wrapping_add(y),
                                BinOp::Sub | BinOp::SubUnchecked | BinOp::SubWithOverflow => x.wrapping_sub(y),
                                BinOp::BitOr => x | y,
                                BinOp::BitAnd => x & y,
                                BinOp::Shl | BinOp::ShlUnchecked => x.checked_shl(u32::try_from(y).ok()?)?,
                                BinOp::Mul | BinOp::MulUnchecked | BinOp::MulWithOverflow => x.wrapping_mul(y),
                                BinOp::Div => x.checked_div(y)?,
                                BinOp::Rem => x.checked_rem(y)?,
                                _ => return None,
                            });
                        }
                    }
                    v
                }
                _ => return None,
            };
            for x in values {
                if !out.contains(&x) {
                    out.push(x);
                }
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Whether block `bb` goes on to return without a call: its terminator and those of the blocks
/// after it are gotos, drops and the return (a few blocks: the end of a function).
fn returns_without_calls(body: &Body<'_>, bb: BasicBlock) -> bool {
    let mut cur = bb;
    for _ in 0..32 {
        match &body.basic_blocks[cur].terminator().kind {
            TerminatorKind::Return => return true,
            TerminatorKind::Goto { target } | TerminatorKind::Drop { target, .. } => cur = *target,
            _ => return false,
        }
    }
    false
}

/// The size of `T` where `local` is only ever the result of `core::mem::size_of::<T>()` (a call
/// in the MIR rustc builds, evaluated once the type is known).
fn size_of_call<'tcx>(tcx: TyCtxt<'tcx>, typing_env: TypingEnv<'tcx>, body: &Body<'tcx>, local: Local) -> Option<u128> {
    let mut size = None;
    for data in body.basic_blocks.iter() {
        let TerminatorKind::Call { func, destination, .. } = &data.terminator().kind else {
            continue;
        };
        if destination.local != local {
            continue;
        }
        let ty::FnDef(def_id, args) = *func.ty(&body.local_decls, tcx).kind() else {
            return None;
        };
        if tcx.crate_name(def_id.krate).as_str() != "core" || tcx.item_name(def_id).as_str() != "size_of" {
            return None;
        }
        let t = args.types().next()?;
        let layout = tcx.layout_of(typing_env.as_query_input(t)).ok()?;
        let bytes = u128::from(layout.size.bytes());
        if size.is_some_and(|s| s != bytes) {
            return None;
        }
        size = Some(bytes);
    }
    size
}

/// Whether `local` may get a value other than by an assignment statement: as a call's
/// destination, or through a mutable borrow or raw pointer of it (`cuMemGetAllocationGranularity(&mut
/// bytes, ..)` writes `bytes`, whatever it was initialised with).
fn written_through_borrow_or_call(body: &Body<'_>, local: Local) -> bool {
    body.basic_blocks.iter().any(|data| {
        let by_call = matches!(
            &data.terminator().kind,
            TerminatorKind::Call { destination, .. } if destination.local == local
        );
        by_call
            || data.statements.iter().any(|stmt| match &stmt.kind {
                StatementKind::Assign(box (_, Rvalue::Ref(_, mir::BorrowKind::Mut { .. }, src))) => {
                    src.local == local && !src.is_indirect()
                }
                StatementKind::Assign(box (_, Rvalue::RawPtr(kind, src))) => {
                    matches!(kind, mir::RawPtrKind::Mut) && src.local == local && !src.is_indirect()
                }
                _ => false,
            })
    })
}

fn const_values_of<'tcx, T: PartialEq>(
    tcx: TyCtxt<'tcx>,
    typing_env: TypingEnv<'tcx>,
    body: &Body<'tcx>,
    op: &Operand<'tcx>,
    depth: u32,
    eval: &EvalConst<'tcx, T>,
) -> Option<Vec<T>> {
    match op {
        Operand::Constant(c) => eval(tcx, typing_env, c).map(|v| vec![v]),
        // The payload of a `Result` or `ControlFlow` (`CString::new("name")?`, `.unwrap()`): what
        // the whole was made of.
        Operand::Copy(place) | Operand::Move(place)
            if depth > 0
                && matches!(
                    place.projection.as_slice(),
                    [ProjectionElem::Downcast(..), ProjectionElem::Field(f, _)] if f.as_u32() == 0
                ) =>
        {
            const_values_of(
                tcx,
                typing_env,
                body,
                &Operand::Copy(Place::from(place.local)),
                depth - 1,
                eval,
            )
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
                            const_values_of(tcx, typing_env, body, inner, depth - 1, eval)
                        }
                        Rvalue::Ref(_, _, src) | Rvalue::CopyForDeref(src) if src.projection.len() <= 1 => {
                            let copied = Operand::Copy(Place::from(src.local));
                            const_values_of(tcx, typing_env, body, &copied, depth - 1, eval)
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
            // A view of a constant made by a call (`c"name".as_ptr()`, `s.as_bytes()`).
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
                if destination.local != place.local {
                    continue;
                }
                assigned = true;
                let viewed = match (func.const_fn_def(), args.first()) {
                    (Some((def_id, _)), Some(arg))
                        if destination.projection.is_empty()
                            && matches!(tcx.crate_name(def_id.krate).as_str(), "core" | "alloc" | "std")
                            && matches!(
                                tcx.item_name(def_id).as_str(),
                                "as_ptr"
                                    | "deref"
                                    | "as_c_str"
                                    | "as_bytes"
                                    | "as_str"
                                    // Made from a constant: `CString::new("name")`, `?`, `unwrap`.
                                    | "new"
                                    | "branch"
                                    | "unwrap"
                                    | "expect"
                                    | "to_owned"
                                    | "to_string"
                                    | "into"
                                    | "from"
                            ) =>
                    {
                        const_values_of(tcx, typing_env, body, &arg.node, depth - 1, eval)
                    }
                    _ => None,
                }?;
                for s in viewed {
                    if !out.contains(&s) {
                        out.push(s);
                    }
                }
            }
            (assigned && !out.is_empty()).then_some(out)
        }
        _ => None,
    }
}

/// What a graph made by stream capture holds (see `Interp::graphs`).
#[derive(Clone, Debug)]
pub(super) struct CapturedGraph {
    pub(super) reads: LocSet,
    pub(super) writes: LocSet,
    /// What each argument of the captured work may refer to (a launch's arguments, a copy's
    /// source and destination).
    pub(super) slots: Vec<LocSet>,
    pub(super) streams: LocSet,
    pub(super) site: Span,
}
