//! The per-function interpreter: walks a host function's statements in order, keeps what each
//! pointer variable may point to, and drives the machine with what each call does
//! ([`crate::api`]). Branches join as "may" (the machine's own join); loops run to a fixpoint
//! (at most [`LOOP_ROUNDS`] rounds, then what they reached is kept); `return` ends a path.

use std::collections::{BTreeMap, HashMap};

use cuda_lint_cuda_source::{
    Fence, FieldUses, ParamUse, kernel_fence, kernel_field_uses, kernel_param_uses, kernel_writes,
};
use cuda_lint_machine::lints::{Cx, check_all};
use cuda_lint_machine::{
    Access, CaptureRule, Child, DerefRole, Describe, Dir, Event, Finding, InFlight, Kernel, Loc, LocSet, Machine,
    MemKind, OpId, OpKind, OpSet, Origin, Region, Regions, State,
};
use tree_sitter::Node;

use crate::api::{self, ADVICE, Effect};

mod effects;
mod globals;
mod items;
mod launches;
mod objects;
mod places;
mod report;
mod results;
mod sizes;
mod statements;

/// Rounds a loop is run before what it reached is kept.
pub const LOOP_ROUNDS: usize = 5;
/// How deep expressions are followed (a bound on recursion for any input).
pub const MAX_DEPTH: u32 = 200;

/// A site in a file: the file's index and a byte range.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Site {
    pub file: u32,
    pub start: u32,
    pub end: u32,
}

#[derive(Clone, Debug)]
struct LocInfo {
    kind: Option<MemKind>,
    name: Option<String>,
    origin: Site,
    allocated: bool,
    allocator: Option<cuda_lint_machine::Allocator>,
    write_combined: bool,
    /// VMM mappings: the physical allocations they map.
    physical: LocSet,
    /// A view past a reservation's start: the reservation.
    parent: Option<Loc>,
    /// How deep in the file's own functions run inline it was named (a caller's name wins
    /// over the helper's local one).
    named_in: usize,
    /// Managed memory attached to the host or to one stream (`cudaMemAttachHost`,
    /// `cudaStreamAttachMemAsync(.., cudaMemAttachSingle)`): kernels elsewhere do not take it.
    attached: bool,
    /// A device container (`thrust::device_vector`): the host's `d[i]` copies, legally.
    copies_on_access: bool,
    /// Managed memory attached to one stream: that stream.
    attached_streams: LocSet,
    /// A view of a reservation at an offset that may be any (`base + c.offset`).
    any_offset: bool,
    /// How many bytes the allocation holds, where its size is a constant.
    bytes: Option<u64>,
    /// Made by a call that runs in a loop (here or in a caller): one of many buffers the
    /// analysis does not tell apart (a ring's slots, a pool).
    many: bool,
    /// Made in a stream's order (`cudaMallocAsync`): `cudaFree` of it waits for nothing.
    on_stream: bool,
}

#[derive(Clone, Default, PartialEq)]
struct Flow {
    /// What each variable may point to (for a stream or event variable: the object).
    vars: BTreeMap<String, LocSet>,
    m: State,
    /// The path has returned.
    dead: bool,
    /// The path is one where a CUDA call failed (`if (cudaMalloc(..) != cudaSuccess)`, a status
    /// macro's return): at `main`, an error exit, whose leaks the process's end reclaims.
    failing: bool,
    /// Streams capturing into a graph: work on them is recorded, not run.
    capturing: LocSet,
    /// The graphs being captured into (the capture's graph, stored by `cudaStreamEndCapture`),
    /// and where the capture began.
    building: LocSet,
    capture_site: Option<Site>,
    /// The capture is in global or thread-local mode on every path (not relaxed).
    capture_strict: bool,
    /// Streams capturing on every path here: what `uncapturable_call` needs as evidence.
    capturing_must: LocSet,
    /// What the branches taken say of plain variables (`if (isAsync)`, `case USE_PINNED:`),
    /// while the variables keep their values: a later test of the same variable takes the
    /// same way (see [`FileAnalysis::branch`]).
    facts: BTreeMap<String, Fact>,
    /// Local variables that are objects in host memory (structs, scalars): their storage, for
    /// `&x`, `x.field` and a reference to `x` handed to a helper.
    objects: BTreeMap<String, Loc>,
    /// What the pointer fields of objects hold (`s.d_buf`, `s->h_buf`, `this->h_buf`), by the
    /// object's location and the field's name; `[]`: the elements of an array of pointers.
    fields: BTreeMap<(Loc, String), LocSet>,
    /// A status variable and what the call that set it started or mapped (`err =
    /// cudaMemcpyAsync(...)`): in its failure branch none of it happened.
    statuses: BTreeMap<String, Started>,
    /// Loop variables that are references to a range's elements (`for (float*& p : ptrs)`):
    /// the range's objects, whose elements a store to the variable changes.
    element_refs: BTreeMap<String, LocSet>,
}

/// What one call started: work enqueued, VMM views mapped.
#[derive(Clone, Debug, Default, PartialEq)]
struct Started {
    ops: Vec<OpId>,
    mapped: Vec<LocSet>,
    allocated: Vec<Loc>,
}

/// `child_by_field_name` with the field's id looked up once per name (tree-sitter looks it up
/// by comparing strings on every call, which was a tenth of the time on large files).
trait FieldExt<'t> {
    fn field(&self, name: &'static str) -> Option<Node<'t>>;
}

impl<'t> FieldExt<'t> for Node<'t> {
    fn field(&self, name: &'static str) -> Option<Node<'t>> {
        thread_local! {
            static IDS: std::cell::RefCell<HashMap<&'static str, Option<u16>>> =
                std::cell::RefCell::new(HashMap::new());
        }
        let id = IDS.with(|ids| {
            *ids.borrow_mut()
                .entry(name)
                .or_insert_with(|| self.language().field_id_for_name(name).map(|id| id.get()))
        });
        self.child_by_field_id(id?)
    }
}

/// What a kernel writes (per parameter), its fence, its `volatile` pointer parameters.
/// What a kernel's source says of its parameters: which it may write through, whether it fences
/// aliases, which are `volatile`, and what it does through the fields of struct parameters.
type KernelInfo = (
    Option<Vec<bool>>,
    Fence,
    Vec<bool>,
    Option<Vec<Option<FieldUses>>>,
    Option<Vec<ParamUse>>,
);

/// The field name under which an array's elements are kept.
const ELEMENTS: &str = "[]";
/// The field of a library handle that holds the stream its routines run on.
const HANDLE_STREAM: &str = "@stream";
/// The field of a library handle that holds the handle itself while its scalar results are
/// device memory (`cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE)`).
const DEVICE_POINTER_MODE: &str = "@device_mode";
/// The fields of a graph that hold the memory its captured work reads and writes.
const GRAPH_READS: &str = "@reads";
const GRAPH_WRITES: &str = "@writes";

/// What a path knows of a variable it tested.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Fact {
    /// It is this value (`true`/`false` for a truth test, a case label).
    Is(String),
    /// It is none of these values.
    IsNot(Vec<String>),
    /// It is one of these values (the labels of cases that share a body).
    OneOf(Vec<String>),
    /// A number greater than this one (a loop counter past its first round).
    Above(i64),
}

impl Fact {
    /// The value is one of `values` (`Is` for one).
    fn one_of(mut values: Vec<String>) -> Fact {
        match values.len() {
            1 => Fact::Is(values.remove(0)),
            _ => Fact::OneOf(values),
        }
    }

    /// What is known of a variable (`known`) after a test says it is none of `values`.
    fn none_of(known: Option<&Fact>, values: &[String]) -> Fact {
        match known {
            Some(Fact::OneOf(vs)) => Fact::one_of(vs.iter().filter(|v| !values.contains(v)).cloned().collect()),
            Some(Fact::IsNot(vs)) => {
                let mut vs = vs.clone();
                vs.extend(values.iter().filter(|v| !vs.contains(v)).cloned().collect::<Vec<_>>());
                Fact::IsNot(vs)
            }
            Some(f @ Fact::Is(_)) => f.clone(),
            _ => Fact::IsNot(values.to_vec()),
        }
    }

    /// Whether the variable equals `value`: `None` when not known.
    fn equals(&self, value: &str) -> Option<bool> {
        match self {
            // A truth test of a number: nonzero is true.
            Fact::Is(v) if value == "true" && v.parse::<i64>().is_ok() => Some(v.parse::<i64>() != Ok(0)),
            Fact::Is(v) => Some(v == value),
            Fact::IsNot(vs) if vs.iter().any(|v| v == value) => Some(false),
            Fact::IsNot(_) => None,
            Fact::OneOf(vs) if !vs.iter().any(|v| v == value) => Some(false),
            Fact::OneOf(_) => None,
            // Nonzero when above a nonnegative number.
            Fact::Above(a) if value == "true" => (*a >= 0).then_some(true),
            Fact::Above(a) => parse_int(value).and_then(|v| (v <= *a).then_some(false)),
        }
    }

    /// Whether `variable OP value` holds (`<`, `<=`, `>`, `>=`): `None` when not known.
    fn compares(&self, op: &str, value: i64) -> Option<bool> {
        match self {
            Fact::Is(v) => {
                let v = parse_int(v)?;
                Some(match op {
                    "<" => v < value,
                    "<=" => v <= value,
                    ">" => v > value,
                    ">=" => v >= value,
                    _ => return None,
                })
            }
            // `v > a`: `v > c` and `v >= c + 1` hold for every `c <= a`; `v < c` fails for them.
            Fact::Above(a) => match op {
                ">" if value <= *a => Some(true),
                ">=" if value <= a.checked_add(1)? => Some(true),
                "<" if value <= a.checked_add(1)? => Some(false),
                "<=" if value <= *a => Some(false),
                _ => None,
            },
            Fact::IsNot(_) | Fact::OneOf(_) => None,
        }
    }
}

/// Per parameter of a kernel the file only declares (`__global__ void spin(volatile unsigned*
/// latch);`, its body in another file), whether it is a `volatile` pointer.
fn declared_volatile_params(src: &str, name: &str) -> Vec<bool> {
    let mut from = 0;
    while let Some(i) = src[from..].find("__global__") {
        let at = from + i;
        from = at + "__global__".len();
        let Some(open) = src[from..].find('(').map(|o| from + o) else {
            break;
        };
        let head = &src[from..open];
        if head.contains([';', '{', '}']) || head.split_whitespace().last() != Some(name) {
            continue;
        }
        let Some(close) = src[open..].find(')').map(|c| open + c) else {
            break;
        };
        return src[open + 1..close]
            .split(',')
            .map(|p| p.contains("volatile") && p.contains('*'))
            .collect();
    }
    Vec::new()
}

/// An integer literal (`0`, `16`, `0x10`, `8u`).
fn parse_int(text: &str) -> Option<i64> {
    let t = text.trim().trim_end_matches(['u', 'U', 'l', 'L']);
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => i64::from_str_radix(hex, 16).ok(),
        None => t.parse().ok(),
    }
}

/// Partitions of a path kept apart at most (then they are joined).
const MAX_PARTS: usize = 16;

/// A test of a plain variable: `v` (against `true`), `!v`, `v == C`, `v != C`.
struct Test {
    var: String,
    value: String,
    /// The test holds when the variable equals `value` (else: when it does not).
    when_equal: bool,
}

impl Flow {
    fn join(&mut self, other: &Flow) {
        if other.dead {
            return;
        }
        if self.dead {
            *self = other.clone();
            return;
        }
        for (k, v) in &other.vars {
            self.vars.entry(k.clone()).or_default().union_with(v);
        }
        for (k, v) in &other.fields {
            self.fields.entry(k.clone()).or_default().union_with(v);
        }
        for (k, v) in &other.element_refs {
            self.element_refs.entry(k.clone()).or_default().union_with(v);
        }
        for (k, v) in &other.objects {
            self.objects.entry(k.clone()).or_insert(*v);
        }
        self.m.join(&other.m);
        self.failing &= other.failing;
        self.capturing.union_with(&other.capturing);
        self.building.union_with(&other.building);
        if self.capture_site.is_none() {
            self.capture_site = other.capture_site;
        }
        self.capture_strict &= other.capture_strict;
        self.capturing_must.intersect_with(&other.capturing_must);
        self.facts.retain(|k, v| other.facts.get(k) == Some(v));
    }
}

/// How deep calls to the file's own functions are followed (they are run in the caller's
/// state, their parameters bound to the arguments).
const MAX_INLINE: usize = 3;

/// Statements one top-level function may run (its loops' rounds and the calls run inline
/// included) before further calls are no longer run inline: a bound on time for any input.
/// The largest `main` of NVIDIA's cuda-samples and llm.c (train_gpt2.cu: 190 000) stays under it.
pub const WORK_FOR_INLINING: usize = 250_000;

/// The analysis of one file.
pub struct FileAnalysis<'s, 't> {
    src: &'s str,
    file: u32,
    /// The arms of `#if`/`#ifdef` blocks the default build leaves out (`crate::config`).
    excluded: crate::config::Excluded,
    locs: Vec<LocInfo>,
    /// Memory made at a site, per chain of calls of the file's functions that reached it (a
    /// helper called twice makes two allocations; a loop passing a site again, the same one).
    by_site: HashMap<(Vec<u32>, u32, &'static str), Loc>,
    machine: Machine,
    op_sites: Vec<(Site, Option<String>)>,
    /// Library handles (`cublasHandle_t`, `cufftHandle`): objects whose field [`HANDLE_STREAM`]
    /// holds the stream their routines run on.
    handles: LocSet,
    /// Graphs made by stream capture: objects whose fields [`GRAPH_READS`] and
    /// [`GRAPH_WRITES`] hold what their captured work uses; an executable graph is its graph.
    graphs: LocSet,
    /// The launch being made is captured into a graph (its reads happen at each launch).
    captured_launch: bool,
    /// Streams the file creates (`cudaStreamCreate`): their flags are known.
    created_streams: LocSet,
    /// Library routines run on the legacy default stream because their handle's stream was
    /// never set: their findings say so.
    on_unset_handle: std::collections::HashSet<OpId>,
    op_by_site: HashMap<(Vec<u32>, u32), OpId>,
    /// The file's function-like macros and their bodies (see `function_macros`), read once.
    function_macros: std::cell::OnceCell<Vec<(String, String)>>,
    /// How many `else if`s deep the branch being split is (see `branch_body`).
    else_if_depth: u32,
    /// The calls being run inline, by the start of each call, outermost first.
    call_sites: Vec<u32>,
    /// The calls of `call_sites` (whether one lies in a loop is asked only of allocations).
    call_nodes: Vec<Node<'t>>,
    /// Per expression node, whether its offset changes each round of a loop around it.
    per_round_offsets: std::cell::RefCell<HashMap<usize, bool>>,
    /// Per loop, the names whose values change each round (see `round_names`).
    round_names_of: std::cell::RefCell<HashMap<usize, std::rc::Rc<Vec<String>>>>,
    /// Per offset as written, whether it may be any offset (the file's text scanned once).
    offsets_any: std::cell::RefCell<HashMap<String, bool>>,
    /// Per loop, the views it moves over and how many views there were then.
    offset_views_of: std::cell::RefCell<HashMap<usize, (usize, LocSet)>>,
    /// Views into VMM reservations, by reservation and offset as written.
    views: HashMap<(Loc, String), Loc>,
    /// For each function run inline, the text of the argument each parameter was given (a
    /// flag such as `cudaHostAllocWriteCombined` passed through a helper).
    param_texts: Vec<HashMap<String, String>>,
    legacy: Loc,
    /// A null pointer: a pointer never given memory (`T* p = nullptr;`, a global nothing
    /// assigns). It is no memory.
    null: Loc,
    /// The raw values of the arguments of the launch being made (null pointers included).
    launch_values: Vec<LocSet>,
    /// For the operation being enqueued: what it writes, one set per argument written through.
    writes_per_arg: Option<Vec<(LocSet, bool)>>,
    /// A value the analysis does not know (a call it cannot see returned it): kept beside what
    /// a variable may point to, so that a release is not judged where the memory may be another.
    unknown: Loc,
    findings: BTreeMap<(&'static str, &'static str, Site), Finding<Site>>,
    depth: u32,
    /// What the file's source says of each kernel launched (what it writes, its fence, its
    /// `volatile` pointer parameters), read once per kernel.
    kernels: HashMap<String, KernelInfo>,
    /// Launches of kernels whose source is not in the file, by the launch's start: findings
    /// that involve one say so.
    unseen_kernels: HashMap<u32, String>,
    /// What `cuda-lint.toml` says functions do (`[[functions]]`).
    configured: api::Functions,
    /// What the user's configuration tells the lints.
    options: cuda_lint_machine::Options,
    /// Set while a launch whose kernel's writes are assumed (its source not in the file) is
    /// enqueued.
    launch_writes_unseen: bool,
    /// The objects a launch's arguments are or point to, for the launch being made.
    launch_objects: Vec<LocSet>,
    /// Statements run for the current top-level function (inlined calls and loop rounds
    /// included): past `WORK_FOR_INLINING`, calls are no longer run inline.
    work: usize,
    /// Everything started so far, in order (a call's part is what it appended).
    started: Started,
    /// Where a statement or expression first lay deeper than `MAX_DEPTH` (it was not checked).
    too_deep: Option<usize>,
    /// The first call not run inline because its top-level function had used its budget.
    over_budget: Option<usize>,
    /// The file's host functions by name (the first definition of each).
    functions: HashMap<&'s str, Node<'t>>,
    /// The functions being run inline, innermost last.
    inlined: Vec<&'s str>,
    /// For each function run inline: the paths that returned, joined, and what they returned.
    returns: Vec<(Option<Flow>, LocSet)>,
    /// Per function run inline (as `returns`), the machine's state at its returns on paths
    /// where no CUDA call failed; once it is back, by the call's start byte: a test of the
    /// call's result (`if (!solver.init(..))`) goes on from those on its success branch.
    ok_returns: Vec<Option<State>>,
    ok_exits: HashMap<u32, State>,
    /// The file's classes and type aliases ([`objects`]).
    classes: objects::Classes<'s, 't>,
    /// The class of each object made from one.
    object_class: HashMap<Loc, &'s str>,
    /// The memory of container members (`std::vector<float> h_;`), by object and member.
    member_locs: HashMap<(Loc, &'s str), Loc>,
    /// The member objects of an object (`o.inner` of class type), one per object and member.
    member_object_locs: HashMap<(Loc, String), Loc>,
    /// Lambdas kept in variables (`auto del = [](float* p) {..};`), for a smart pointer's
    /// deleter.
    lambdas: HashMap<&'s str, Node<'t>>,
    /// Set while a smart pointer's deleter is checked where the pointer is handed over: its
    /// releases say which allocator they are for, not that the memory ends there.
    checking_release: bool,
    /// A smart pointer's deleter runs where the pointer ends: the free's allocator was
    /// checked where the pointer took the memory (no `Dealloc` again).
    deleting_at_scope_end: bool,
    /// The file's named integer constants ([`sizes::constants`]).
    constants: HashMap<&'s str, &'s str>,
    /// The declared type and array lengths of each local variable, by name (the last
    /// declaration of a name wins): for `sizeof(x)`.
    var_types: HashMap<String, (&'s str, Vec<&'s str>, bool)>,
    /// The element counts of `std::vector`s declared with a size the file never changes
    /// (`std::vector<float> v(1024)`): what `v.size()` is.
    vector_lengths: HashMap<String, u64>,
    /// The variables of the file's scope ([`globals`]), and the object whose fields they are.
    globals: HashMap<String, globals::Global<'s, 't>>,
    globals_obj: Loc,
    /// Where each finding's site was first found: the index of the function being analysed
    /// then, and the order it was found in (for one report per mistake).
    found_in: HashMap<Site, (usize, u64)>,
    /// The index of the function being analysed on its own.
    root: usize,
    /// The raw pointers into device containers ([`Self::raw_view`]), by container.
    raw_views: HashMap<Loc, Loc>,
    /// See [`Self::with_roots`]; `None`: every function of the text.
    roots: Option<Vec<(usize, usize)>>,
    /// Set while [`Self::construct_any`] runs constructors on an object nothing says of.
    constructing: u32,
    /// Set while a size is computed when a part of it is an estimate (a struct's members counted
    /// as 8 bytes each, a scalar of unknown type): see [`Self::exact_byte_count`].
    estimated: std::cell::Cell<bool>,
    /// The file's function-like macros left as written whose body returns (`CHECK_RET(call)`:
    /// `if ((call) != cudaSuccess) return ..;`): a use returns where the call fails.
    returning_macros: std::collections::HashSet<String>,
    /// The names whose values outlive the function: references (`float*& p`, `for (auto& b :
    /// bufs)`: what they hold is another's) and `static` locals.
    outliving_vars: std::collections::HashSet<String>,
    /// Whether the function analysed on its own is `main` (its end is the program's).
    root_is_main: bool,
    /// Its parameters that are references to pointers (`float*& p`): the caller's.
    root_out_params: Vec<String>,
    /// The names the file may change outside their declaration ([`globals::changed_names`]).
    changed_names: Option<std::collections::HashSet<String>>,
}

impl<'s, 't> FileAnalysis<'s, 't> {
    pub fn new(src: &'s str, file: u32) -> Self {
        let mut a = FileAnalysis {
            src,
            file,
            excluded: crate::config::Excluded::default(),
            locs: Vec::new(),
            by_site: HashMap::new(),
            machine: Machine::new(),
            op_sites: Vec::new(),
            handles: LocSet::new(),
            graphs: LocSet::new(),
            created_streams: LocSet::new(),
            captured_launch: false,
            on_unset_handle: Default::default(),
            op_by_site: HashMap::new(),
            else_if_depth: 0,
            function_macros: std::cell::OnceCell::new(),
            call_sites: Vec::new(),
            call_nodes: Vec::new(),
            per_round_offsets: Default::default(),
            round_names_of: Default::default(),
            offset_views_of: Default::default(),
            offsets_any: Default::default(),
            views: HashMap::new(),
            param_texts: Vec::new(),
            legacy: Loc(0),
            null: Loc(0),
            launch_values: Vec::new(),
            writes_per_arg: None,
            unknown: Loc(0),
            findings: BTreeMap::new(),
            depth: 0,
            too_deep: None,
            over_budget: None,
            unseen_kernels: HashMap::new(),
            kernels: HashMap::new(),
            configured: api::Functions::default(),
            options: cuda_lint_machine::Options::default(),
            launch_writes_unseen: false,
            launch_objects: Vec::new(),
            work: 0,
            started: Started::default(),
            functions: HashMap::new(),
            inlined: Vec::new(),
            returns: Vec::new(),
            ok_returns: Vec::new(),
            ok_exits: HashMap::new(),
            classes: objects::Classes::default(),
            object_class: HashMap::new(),
            member_locs: HashMap::new(),
            member_object_locs: HashMap::new(),
            lambdas: HashMap::new(),
            checking_release: false,
            deleting_at_scope_end: false,
            constructing: 0,
            root_is_main: false,
            outliving_vars: std::collections::HashSet::new(),
            returning_macros: std::collections::HashSet::new(),
            estimated: std::cell::Cell::new(false),
            root_out_params: Vec::new(),
            changed_names: None,
            constants: HashMap::new(),
            var_types: HashMap::new(),
            vector_lengths: HashMap::new(),
            globals: HashMap::new(),
            globals_obj: Loc(0),
            roots: None,
            found_in: HashMap::new(),
            root: 0,
            raw_views: HashMap::new(),
        };
        let origin = Site { file, start: 0, end: 0 };
        a.legacy = a.new_loc(None, Some("the legacy default stream".into()), origin, false);
        a.machine.set_legacy(a.legacy);
        a.unknown = a.new_loc(None, None, origin, false);
        a.null = a.new_loc(None, Some("a null pointer".into()), origin, false);
        a.globals_obj = a.new_loc(Some(MemKind::Pageable), None, origin, false);
        a
    }

    /// Runs every host function of the translation unit.
    /// The memory a container variable holds (`std::vector`, `thrust::device_vector`...).
    fn container(&mut self, declarator: Node<'t>, kind: MemKind, name: &str) -> Loc {
        let l = self.loc_at(declarator, "var", Some(kind), Some(name.to_string()), false);
        // A standard container's buffer (not a plain array's storage): its destructor frees it.
        let array = declarator_has(declarator, "array_declarator");
        if kind == MemKind::Pageable && !array {
            self.locs[l.0 as usize].allocator = Some(cuda_lint_machine::Allocator::CppContainer);
        }
        // `d[i]` of a device container copies through its reference type: no host deref.
        self.locs[l.0 as usize].copies_on_access = kind != MemKind::Pageable;
        l
    }

    /// A raw pointer to the memory of a container whose `d[i]` copies (`thrust::device_vector`):
    /// the same memory, dereferenced as any pointer. Other memory is its own raw pointer.
    fn raw_view(&mut self, l: Loc) -> Loc {
        if !self.locs[l.0 as usize].copies_on_access {
            return l;
        }
        if let Some(&v) = self.raw_views.get(&l) {
            return v;
        }
        let info = self.locs[l.0 as usize].clone();
        let v = self.new_loc(info.kind, info.name.clone(), info.origin, info.allocated);
        self.locs[v.0 as usize].allocator = info.allocator;
        self.locs[v.0 as usize].parent = Some(l);
        self.raw_views.insert(l, v);
        v
    }

    /// Whether the current top-level function may still run calls inline; the first call past
    /// the budget is remembered and reported.
    fn within_budget(&mut self, call: Node<'t>) -> bool {
        if self.work < WORK_FOR_INLINING {
            return true;
        }
        self.over_budget.get_or_insert(call.start_byte());
        false
    }

    fn kernel_info(&mut self, name: &str) -> KernelInfo {
        if let Some(info) = self.kernels.get(name) {
            return info.clone();
        }
        let volatile: Vec<bool> = cuda_lint_cuda_source::kernel_signatures(self.src)
            .ok()
            .and_then(|sigs| sigs.into_iter().find(|k| k.name == name))
            .map(|k| k.params.iter().map(|p| p.is_volatile && p.is_pointer()).collect())
            .unwrap_or_else(|| declared_volatile_params(self.src, name));
        let info = (
            kernel_writes(self.src, name),
            kernel_fence(self.src, name),
            volatile,
            kernel_field_uses(self.src, name),
            kernel_param_uses(self.src, name),
        );
        self.kernels.insert(name.to_string(), info.clone());
        info
    }

    /// What `cuda-lint.toml` tells the lints (`[perf]`).
    pub fn with_options(mut self, options: cuda_lint_machine::Options) -> Self {
        self.options = options;
        self
    }

    /// The arms of the file's `#if`/`#ifdef` blocks its build leaves out: not analysed.
    pub fn with_excluded(mut self, excluded: crate::config::Excluded) -> Self {
        self.excluded = excluded;
        self
    }

    /// The ranges of the text that are the file checked (not the headers spliced in): only
    /// the functions defined there are analysed on their own; the headers' are run where they
    /// are called.
    pub fn with_roots(mut self, roots: Vec<(usize, usize)>) -> Self {
        self.roots = Some(roots);
        self
    }

    /// The effects `cuda-lint.toml` gives functions the file calls.
    pub fn with_functions(mut self, functions: api::Functions) -> Self {
        self.configured = functions;
        self
    }

    /// Runs every host function of the file. Returns the findings and, when some code lay
    /// nested deeper than the analysis follows, the byte offset of the first such part, and
    /// where calls stopped being run inline for want of budget.
    pub fn run(mut self, root: Node<'t>) -> (Vec<Finding<Site>>, Option<usize>, Option<usize>) {
        self.classes = objects::Classes::collect(root, self.src, &self.excluded);
        self.constants = sizes::constants(root, self.src, &self.excluded);
        self.collect_functions(root);
        self.globals = globals::collect(root, self.src, &self.excluded);
        self.changed_names = globals::changed_names(root, self.src, &self.excluded);
        self.returning_macros = crate::macros::effectful_macros(self.src, &|_| true)
            .into_iter()
            .filter(|(_, m)| {
                let body = m.body.as_str();
                !m.params.is_empty()
                    && body.contains("if")
                    && body
                        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                        .any(|w| w == "return")
            })
            .map(|(name, _)| name)
            .collect();
        let mut stack = vec![root];
        let mut steps = 0usize;
        // The host functions analysed, as byte ranges: the scope of a finding.
        let mut functions: Vec<(u32, u32)> = Vec::new();
        while let Some(n) = stack.pop() {
            steps += 1;
            if steps > 1_000_000 {
                break;
            }
            if self.excluded.contains(n.start_byte()) {
                continue;
            }
            if n.kind() == "function_definition" {
                let own = self
                    .roots
                    .as_ref()
                    .is_none_or(|r| r.iter().any(|&(a, b)| a <= n.start_byte() && n.start_byte() < b));
                if own
                    && !self.is_device_code(n)
                    && let Some(body) = n.field("body")
                {
                    self.root = functions.len();
                    functions.push((n.start_byte() as u32, n.end_byte() as u32));
                    let mut flow = Flow::default();
                    self.bind_globals(&mut flow);
                    self.bind_own_parameters(n, &mut flow);
                    self.work = 0;
                    self.root_is_main = function_name(n, self.src) == Some("main");
                    self.root_out_params = self
                        .parameter_names(n)
                        .into_iter()
                        .zip(self.reference_parameters(n))
                        .filter_map(|(p, r)| p.filter(|_| r))
                        .collect();
                    self.statement(body, &mut flow);
                    // The end of the body, where a path reaches it: the locals end.
                    if !flow.dead {
                        let end = body.child(body.child_count().saturating_sub(1)).unwrap_or(body);
                        self.scope_exit(end, &LocSet::new(), &mut flow);
                    }
                }
                continue;
            }
            let mut c = n.walk();
            let children: Vec<Node> = n.named_children(&mut c).collect();
            stack.extend(children.into_iter().rev());
        }
        let mut findings: Vec<Finding<Site>> = self.findings.into_values().collect();
        // One report per mistake in a function analysed (see `first_per_mistake`): the first
        // found, in the order the function ran (a helper run inline is part of its caller).
        let found_in = std::mem::take(&mut self.found_in);
        let scope = |s: Site| found_in.get(&s).map(|&(root, _)| root);
        let order = |s: Site| found_in.get(&s).map_or(u64::MAX, |&(_, k)| k);
        let keep = cuda_lint_machine::first_per_mistake(&findings, scope, order);
        let mut keep = keep.into_iter();
        findings.retain(|_| keep.next().unwrap_or(true));
        for f in &mut findings {
            let sites = std::iter::once(f.span).chain(f.diagnostic.labels.iter().map(|(s, _)| *s));
            let mut unseen: Vec<&String> = sites.filter_map(|s| self.unseen_kernels.get(&s.start)).collect();
            unseen.dedup();
            for name in unseen {
                let note = format!(
                    "kernel `{name}` is not defined in this file: cuda-lint cannot see it and assumes it reads and writes every pointer it is given"
                );
                let note = Child::Note(note);
                if !f.diagnostic.children.contains(&note) {
                    // Notes before the help, as rustc orders them.
                    let at = f
                        .diagnostic
                        .children
                        .iter()
                        .position(|c| !matches!(c, Child::Note(_)))
                        .unwrap_or(f.diagnostic.children.len());
                    f.diagnostic.children.insert(at, note);
                }
            }
        }
        (findings, self.too_deep, self.over_budget)
    }

    /// What a function's own parameters and `this` are when it is analysed on its own: a
    /// `std::vector` parameter is pageable host memory; a stream parameter is one stream; an
    /// object of a class the file defines is as its constructors leave it; a method's `this` is
    /// such an object.
    fn bind_own_parameters(&mut self, def: Node<'t>, flow: &mut Flow) {
        let Some(decl) = def.field("declarator") else {
            return;
        };
        // A method (`C::m` defined outside its class, or inside a class body): `this`.
        let class = self.class_of_definition(def);
        let in_class = def.parent().is_some_and(|p| p.kind() == "field_declaration_list");
        let qualified = find_kind(decl, "qualified_identifier").is_some();
        if in_class || qualified {
            let this = self.loc_at(def, "this", Some(MemKind::Pageable), Some("this".into()), false);
            if let Some(class) = class {
                let name = find_kind(decl, "function_declarator")
                    .and_then(|f| f.field("declarator"))
                    .map(|n| (n.kind(), objects::base_name(self.text(n))));
                let is_ctor = name.is_some_and(|(k, n)| k != "destructor_name" && n == class);
                if is_ctor {
                    self.object_class.insert(this, class);
                } else {
                    self.construct_any(def, class, this, flow);
                }
            }
            flow.vars.insert("this".into(), LocSet::single(this));
        }
        let values = self.own_parameter_values(def, flow);
        for (name, v, object) in values {
            if object {
                if let Some(o) = v.iter().next() {
                    flow.objects.insert(name, o);
                }
            } else {
                flow.vars.insert(name, v);
            }
        }
    }

    /// The class a definition is a method of: the class around it, or `C` of `C::m`.
    fn class_of_definition(&self, def: Node<'t>) -> Option<&'s str> {
        let mut cur = def.parent();
        for _ in 0..4 {
            let p = cur?;
            if matches!(p.kind(), "class_specifier" | "struct_specifier") {
                return p.field("name").and_then(|n| self.class_of_type(self.text(n)));
            }
            cur = p.parent();
        }
        let f = def
            .field("declarator")
            .and_then(|d| find_kind(d, "function_declarator"))?;
        let q = f.field("declarator").filter(|q| q.kind() == "qualified_identifier")?;
        self.class_of_type(self.text(q.field("scope")?))
    }

    /// What a function's parameters are when nothing says what it was given: `(name, value,
    /// whether the value is the object the name is)`. Containers are memory of their kind, a
    /// stream parameter one stream, an object of the file's classes as its constructors leave
    /// it; what is not known is not bound.
    fn own_parameter_values(&mut self, def: Node<'t>, flow: &mut Flow) -> Vec<(String, LocSet, bool)> {
        let mut out = Vec::new();
        let Some(list) = def.field("declarator").and_then(|d| find_kind(d, "parameter_list")) else {
            return out;
        };
        let mut c = list.walk();
        let params: Vec<Node> = list.named_children(&mut c).collect();
        for p in params {
            let ty = p.field("type").map(|t| self.text(t)).unwrap_or("");
            let ty = self.classes.resolve(ty);
            let Some(d) = p.field("declarator") else {
                continue;
            };
            let Some(name) = declared_name(d, self.src) else {
                continue;
            };
            let pointer = contains_kind(d, "pointer_declarator");
            if !pointer && let Some(kind) = self.container_kind_of(ty) {
                let l = self.container(d, kind, &name);
                out.push((name, LocSet::single(l), false));
            } else if !pointer
                && matches!(
                    ty.trim(),
                    "cudaStream_t" | "CUstream" | "cudaStream_t const" | "const cudaStream_t"
                )
            {
                // A stream the caller gives: one stream, of unknown flags (it may be the
                // legacy default stream's peer), so that capturing or waiting on it is seen.
                let l = self.loc_at(d, "stream", None, Some(name.clone()), false);
                out.push((name, LocSet::single(l), false));
            } else if !pointer
                && matches!(
                    ty.trim().trim_start_matches("const ").trim_end_matches(" const"),
                    "cublasHandle_t" | "cudnnHandle_t" | "cufftHandle"
                )
            {
                // A library handle the caller gives: one handle, on a stream not known until
                // the function sets one.
                let l = self.loc_at(d, "handle", None, Some(name.clone()), false);
                self.handles.insert(l);
                out.push((name, LocSet::single(l), false));
            } else if let Some(class) = self.class_of_type(ty) {
                // An object given by value or reference is the host's; one a pointer points
                // to may be anywhere (a `Particle*` may be device memory).
                let kind = if pointer { MemKind::Unknown } else { MemKind::Pageable };
                let o = self.loc_at(d, "object", Some(kind), Some(name.clone()), false);
                self.construct_any(d, class, o, flow);
                out.push((name, LocSet::single(o), !pointer));
            }
        }
        out
    }

    /// Makes `o` an object of `class` as any of its constructors may leave it (their paths
    /// joined), given what nothing says; the work they started is taken as done.
    fn construct_any(&mut self, at: Node<'t>, class: &'s str, o: Loc, flow: &mut Flow) {
        self.object_class.insert(o, class);
        // A constructor taking an object of its class (a copy or move) makes no other.
        if self.inlined.len() >= MAX_INLINE || self.constructing > 0 {
            return;
        }
        self.constructing += 1;
        let ctors: Vec<Node<'t>> = self
            .classes
            .by_name
            .get(class)
            .map(|c| c.ctors.clone())
            .unwrap_or_default();
        let base = flow.clone();
        let mut joined: Option<Flow> = None;
        let runs: Vec<Option<Node<'t>>> = if ctors.is_empty() {
            vec![None]
        } else {
            ctors.into_iter().map(Some).collect()
        };
        for ctor in runs {
            let mut part = base.clone();
            self.make_members(at, class, o, &[], &mut part, 1);
            if let Some(def) = ctor {
                let params = self.own_parameter_values(def, &mut part);
                let count = def
                    .field("declarator")
                    .and_then(|d| find_kind(d, "parameter_list"))
                    .map_or(0, |l| l.named_child_count());
                let mut vals = vec![LocSet::single(self.unknown); count];
                // Parameters by position: known ones (streams, containers) as they are.
                if let Some(list) = def.field("declarator").and_then(|d| find_kind(d, "parameter_list")) {
                    let mut c = list.walk();
                    for (i, p) in list.named_children(&mut c).enumerate() {
                        let name = p.field("declarator").and_then(|d| declared_name(d, self.src));
                        if let Some((_, v, _)) = params.iter().find(|(n, ..)| Some(n) == name.as_ref()) {
                            vals[i] = v.clone();
                        }
                    }
                }
                let name = self.text(at);
                self.inline_method(at, name, def, Some(LocSet::single(o)), &vals, &[], &mut part);
            }
            match &mut joined {
                Some(j) => j.join(&part),
                None => joined = Some(part),
            }
        }
        if let Some(mut j) = joined {
            j.dead = false;
            self.machine.sync_all(&mut j.m);
            // A class that page-locks memory in some method may have done it before this one
            // runs: its memory may be registered (an unregister is not judged here).
            if self.class_registers(class) {
                let held = self.held_memory(o, &j);
                j.m.registered_may.union_with(&held);
            }
            // Nor is it known which of its VMM ranges other methods mapped, unmapped or granted
            // access to: each may be either.
            let mut views = j.m.mapped_may.clone();
            if self.class_calls(class, "cuMemMap(") {
                let held = self.held_memory(o, &j);
                views.union_with(&self.mappings(&held));
            }
            j.m.mapped_may.union_with(&views);
            j.m.mapped_must.subtract(&views);
            j.m.access_may.union_with(&views);
            j.m.access_must.subtract(&views);
            // A member the constructors set to memory of different kinds on different paths
            // (`if (managed_) cudaMallocManaged(..) else cudaMalloc(..)`): which one this object
            // holds is decided by what the method cannot see (its flag): not known.
            let mixed: Vec<(Loc, String)> = j
                .fields
                .iter()
                .filter(|((owner, _), v)| {
                    *owner == o && {
                        let mut kinds: Vec<MemKind> = v.iter().filter_map(|l| self.locs[l.0 as usize].kind).collect();
                        kinds.sort_by_key(|k| format!("{k:?}"));
                        kinds.dedup();
                        kinds.len() > 1
                    }
                })
                .map(|(k, _)| k.clone())
                .collect();
            for k in mixed {
                j.fields.insert(k, LocSet::single(self.unknown));
            }
            *flow = j;
        }
        self.constructing -= 1;
    }

    /// The text of an argument, a parameter of a function run inline read as the caller's
    /// argument.
    /// A named constant or object-like macro (`STAGING_FLAGS` for `#define STAGING_FLAGS
    /// (cudaHostAllocWriteCombined | cudaHostAllocPortable)`) is read as its value.
    fn argument_text(&self, a: Node<'t>) -> String {
        let text = self.text(a).trim();
        let mut out = match self.param_texts.last().and_then(|m| m.get(text)) {
            Some(t) => t.clone(),
            None => text.to_string(),
        };
        for _ in 0..4 {
            let is_name = !out.is_empty() && out.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':');
            match self.constants.get(out.as_str()) {
                Some(v) if is_name => out = v.trim().to_string(),
                _ => break,
            }
        }
        out
    }

    fn mark(&self) -> (usize, usize, usize) {
        (
            self.started.ops.len(),
            self.started.mapped.len(),
            self.started.allocated.len(),
        )
    }

    fn since(&self, (ops, mapped, allocated): (usize, usize, usize)) -> Started {
        Started {
            ops: self.started.ops.get(ops..).unwrap_or_default().to_vec(),
            mapped: self.started.mapped.get(mapped..).unwrap_or_default().to_vec(),
            allocated: self.started.allocated.get(allocated..).unwrap_or_default().to_vec(),
        }
    }

    /// On the branch of `if (cond)` taken (`taken`) where `cond` says a call failed
    /// (`err != cudaSuccess`, `res != CUDA_SUCCESS`, `err`, `!ok`... of a status variable, or
    /// of the call itself: `direct`), nothing the call started happened: its work is not
    /// running, its mapping not made.
    fn failed_branch(&self, cond: Node<'t>, direct: &Started, taken: bool, flow: &mut Flow) {
        let Some((subject, mut failed_when)) = failure_test(cond, self.src) else {
            return;
        };
        // A `bool` says success by `true` (`if (!solver.init(..)) return 1;`), where a status
        // says it by 0: the same test means the other branch.
        if self.is_bool_result(subject) && !is_comparison(cond) {
            failed_when = !failed_when;
        }
        if taken != failed_when {
            // The call succeeded: its exits where a CUDA call failed are not this path's.
            if subject.kind() == "call_expression"
                && let Some(m) = self.ok_exits.get(&(subject.start_byte() as u32))
            {
                flow.m = m.clone();
                flow.failing = false;
            }
            return;
        }
        let started = if subject.kind() == "identifier" {
            match flow.statuses.get(self.text(subject)) {
                Some(s) => s.clone(),
                None => return,
            }
        } else if subject.kind() == "call_expression" {
            direct.clone()
        } else {
            return;
        };
        self.undo_failed(&started, flow);
    }

    /// A function run inline at `call` is back: keeps the state of its exits where no CUDA call
    /// failed.
    fn note_ok_exit(&mut self, call: Node<'t>, returned: &Option<Flow>, end: &Flow) {
        let mut ok = self.ok_returns.pop().flatten();
        // Falling off the body's end is an exit too.
        if !end.dead && !end.failing {
            match &mut ok {
                Some(m) => {
                    m.join(&end.m);
                }
                None => ok = Some(end.m.clone()),
            }
        }
        let key = call.start_byte() as u32;
        match ok {
            Some(m) if returned.is_some() || !end.dead => {
                self.ok_exits.insert(key, m);
            }
            _ => {
                self.ok_exits.remove(&key);
            }
        }
    }

    /// Whether `subject` (a variable, or a call of the file's own function or method) is a
    /// `bool`: success is `true`.
    fn is_bool_result(&self, subject: Node<'t>) -> bool {
        let returns_bool = |def: &Node<'t>| def.field("type").is_some_and(|t| self.text(t).trim() == "bool");
        match subject.kind() {
            "identifier" => self
                .var_types
                .get(self.text(subject))
                .is_some_and(|(ty, dims, pointer)| ty.trim() == "bool" && dims.is_empty() && !pointer),
            "call_expression" => {
                let Some(f) = subject.field("function") else {
                    return false;
                };
                let name = callee_name(f, self.src);
                let name = name.rsplit(['.', ':', '>']).next().unwrap_or(&name).trim();
                self.functions.get(name).is_some_and(returns_bool)
                    || self
                        .classes
                        .by_name
                        .values()
                        .filter_map(|c| c.methods.get(name))
                        .any(returns_bool)
            }
            _ => false,
        }
    }

    /// What calls that failed `started` did not do: their work is not running, their mappings
    /// and allocations not made.
    fn undo_failed(&self, started: &Started, flow: &mut Flow) {
        flow.failing = true;
        let ops: cuda_lint_machine::OpSet = started.ops.iter().copied().collect();
        flow.m.finish(&ops);
        for views in &started.mapped {
            self.machine.map_failed(&mut flow.m, views);
        }
        let allocated: LocSet = started.allocated.iter().copied().collect();
        self.machine.allocation_failed(&mut flow.m, &allocated);
    }

    fn collect_functions(&mut self, root: Node<'t>) {
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            if self.excluded.contains(n.start_byte()) {
                continue;
            }
            if n.kind() == "function_definition" {
                // Methods, constructors and destructors are their class's (`objects`): run on
                // an object, never as a free function of the same name.
                if !self.is_device_code(n)
                    && self.class_of_definition(n).is_none()
                    && let Some(name) = n.field("declarator").and_then(|d| function_name(d, self.src))
                {
                    self.functions.entry(name).or_insert(n);
                }
                continue;
            }
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
        }
    }

    /// Runs the file's own function `def` (a method on `this`, a lambda) in the caller's
    /// state, its parameters bound to `args`; what it returns.
    #[allow(clippy::too_many_arguments)]
    fn inline_method(
        &mut self,
        call: Node<'t>,
        name: &'s str,
        def: Node<'t>,
        this: Option<LocSet>,
        args: &[LocSet],
        texts: &[String],
        flow: &mut Flow,
    ) -> LocSet {
        let Some(body) = def.field("body") else {
            return LocSet::new();
        };
        let params = self.parameter_names(def);
        let references = self.reference_parameters(def);
        let mut caller_vars = std::mem::take(&mut flow.vars);
        // Out-parameters: `alloc(&d)` for `void alloc(float** p)` (what the callee stores
        // through `p` is `d`'s), `alloc(d)` for `void alloc(float*& p)` (`p` is `d`).
        let mut outs: Vec<(String, String)> = Vec::new();
        // `post(&reqs[1])`, `fill(&s.buf)`: what the callee stores through the parameter goes
        // where that argument points, once the callee returns.
        let mut place_outs: Vec<(String, usize)> = Vec::new();
        for (i, ((p, t), reference)) in params.iter().zip(texts).zip(&references).enumerate() {
            let Some(p) = p else { continue };
            let t = t
                .trim()
                .trim_start_matches("(void**)")
                .trim_start_matches("(void **)")
                .trim();
            if let Some(x) = t.strip_prefix('&').map(str::trim).filter(|x| is_plain_name(x)) {
                outs.push((format!("*{p}"), x.to_string()));
            } else if t.starts_with('&') {
                place_outs.push((format!("*{p}"), i));
            } else if *reference && is_plain_name(t) {
                outs.push((p.clone(), t.to_string()));
            }
        }
        let caller_objects = std::mem::take(&mut flow.objects);
        let caller_facts = std::mem::take(&mut flow.facts);
        // A stream parameter given a stream wrapper object (`run(s)` for `void run(cudaStream_t
        // st)`, `s` a RAII class with `operator cudaStream_t()`) is the stream it converts to.
        let stream_params = self.stream_parameters(def);
        for ((p, v), stream) in params
            .iter()
            .zip(args)
            .zip(stream_params.iter().chain(std::iter::repeat(&false)))
        {
            if let Some(p) = p {
                let v = match v.iter().collect::<Vec<_>>().as_slice() {
                    [o] if *stream => self.stream_of_object(*o, flow).unwrap_or_else(|| v.clone()),
                    _ => v.clone(),
                };
                flow.vars.insert(p.clone(), v);
            }
        }
        for (inner, x) in &outs {
            let now = match caller_vars.get(x) {
                Some(v) => v.clone(),
                None => self
                    .global_objects(x, &Flow::default())
                    .map(|g| self.field_value(&g, x, flow))
                    .unwrap_or_default(),
            };
            flow.vars.insert(inner.clone(), now);
        }
        // A parameter given a constant (`acquire(n, Kind::Pinned)`, `upload(p, true)`) is that
        // value where the callee tests it (`switch (kind)`, `if (pinned)`).
        for (p, t) in params.iter().zip(texts) {
            let t = t.trim();
            let constant = matches!(t, "true" | "false")
                || t.parse::<i64>().is_ok()
                || (t.contains("::") && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':'));
            if let Some(p) = p
                && constant
            {
                flow.facts.insert(p.clone(), Fact::Is(t.to_string()));
            }
        }
        self.param_texts.push(
            params
                .iter()
                .zip(texts)
                .filter_map(|(p, t)| Some((p.clone()?, t.clone())))
                .collect(),
        );
        self.inlined.push(name);
        self.call_sites.push(call.start_byte() as u32);
        self.call_nodes.push(call);
        self.returns.push((None, LocSet::new()));
        self.ok_returns.push(None);
        if let Some(this) = this {
            flow.vars.insert("this".into(), this);
            self.run_initializers(def, flow);
        }
        self.statement(body, flow);
        let (returned, ret) = self.returns.pop().unwrap_or_default();
        self.note_ok_exit(call, &returned, flow);
        self.call_sites.pop();
        self.call_nodes.pop();
        self.inlined.pop();
        self.param_texts.pop();
        if let Some(r) = returned {
            flow.join(&r);
        }
        flow.dead = false;
        flow.facts = caller_facts;
        for (inner, x) in &outs {
            let Some(v) = flow.vars.get(inner).cloned() else {
                continue;
            };
            if let Some(slot) = caller_vars.get_mut(x) {
                *slot = v;
            } else if let Some(g) = self.global_objects(x, &Flow::default()) {
                self.store_field(&g, x, &v, flow);
            }
        }
        let stored: Vec<(usize, LocSet)> = place_outs
            .iter()
            .filter_map(|(inner, i)| Some((*i, flow.vars.get(inner)?.clone())))
            .filter(|(_, v)| !v.is_empty())
            .collect();
        flow.vars = caller_vars;
        flow.objects = caller_objects;
        for (i, v) in stored {
            let arg = call.field("arguments").and_then(|l| l.named_child(i));
            self.store_values_out(arg, &v, flow);
        }
        ret
    }

    /// For each parameter of a function, whether it is a reference to a pointer (`float*& p`).
    /// Per parameter of `def`, whether it is declared a stream (`cudaStream_t`, `CUstream`), by
    /// value.
    fn stream_parameters(&self, def: Node<'t>) -> Vec<bool> {
        let mut streams = Vec::new();
        if let Some(list) = def.field("declarator").and_then(|d| find_kind(d, "parameter_list")) {
            let mut c = list.walk();
            for p in list.named_children(&mut c) {
                let ty = p.field("type").map(|t| self.text(t)).unwrap_or("");
                let by_value = !p.field("declarator").is_some_and(|d| {
                    contains_kind(d, "reference_declarator") || contains_kind(d, "pointer_declarator")
                });
                streams.push(by_value && matches!(ty, "cudaStream_t" | "CUstream" | "CUstream_st"));
            }
        }
        streams
    }

    fn reference_parameters(&self, def: Node<'t>) -> Vec<bool> {
        let mut refs = Vec::new();
        if let Some(list) = def.field("declarator").and_then(|d| find_kind(d, "parameter_list")) {
            let mut c = list.walk();
            for p in list.named_children(&mut c) {
                refs.push(p.field("declarator").is_some_and(|d| {
                    contains_kind(d, "reference_declarator") && contains_kind(d, "pointer_declarator")
                }));
            }
        }
        refs
    }

    /// Runs a lambda's body for a call of it: its parameters are the arguments; what it
    /// captured is the caller's variables themselves (by reference: what the body stores there,
    /// the caller sees; a `[=]` copy of a pointer points to the same memory). Names the body
    /// declares end with it.
    fn inline_lambda(
        &mut self,
        call: Node<'t>,
        name: &'s str,
        lambda: Node<'t>,
        args: &[LocSet],
        flow: &mut Flow,
    ) -> LocSet {
        let Some(body) = lambda.field("body") else {
            return LocSet::new();
        };
        let params = self.parameter_names(lambda);
        let caller_vars = flow.vars.clone();
        let caller_objects = flow.objects.clone();
        let caller_facts = std::mem::take(&mut flow.facts);
        for (p, v) in params.iter().zip(args) {
            if let Some(p) = p {
                flow.vars.insert(p.clone(), v.clone());
                flow.objects.remove(p);
            }
        }
        self.inlined.push(name);
        self.call_sites.push(call.start_byte() as u32);
        self.call_nodes.push(call);
        self.returns.push((None, LocSet::new()));
        self.ok_returns.push(None);
        self.statement(body, flow);
        let (returned, ret) = self.returns.pop().unwrap_or_default();
        self.note_ok_exit(call, &returned, flow);
        self.call_sites.pop();
        self.call_nodes.pop();
        self.inlined.pop();
        if let Some(r) = returned {
            flow.join(&r);
        }
        flow.dead = false;
        flow.facts = caller_facts;
        // The caller's names keep what the body stored in them; its parameters and locals end.
        let params: Vec<&String> = params.iter().flatten().collect();
        flow.vars
            .retain(|k, _| caller_vars.contains_key(k) && !params.contains(&k));
        for p in &params {
            if let Some(v) = caller_vars.get(*p) {
                flow.vars.insert((*p).clone(), v.clone());
            }
        }
        flow.objects
            .retain(|k, _| caller_objects.contains_key(k) && !params.contains(&k));
        for p in &params {
            if let Some(o) = caller_objects.get(*p) {
                flow.objects.insert((*p).clone(), *o);
            }
        }
        ret
    }

    /// The names of the parameters of a function definition or a lambda, in order (`None`
    /// for an unnamed one).
    fn parameter_names(&self, def: Node<'t>) -> Vec<Option<String>> {
        let mut params = Vec::new();
        if let Some(list) = def.field("declarator").and_then(|d| find_kind(d, "parameter_list")) {
            let mut c = list.walk();
            for p in list.named_children(&mut c) {
                params.push(p.field("declarator").and_then(|d| declared_name(d, self.src)));
            }
        }
        params
    }

    fn text(&self, n: Node<'t>) -> &'s str {
        n.utf8_text(self.src.as_bytes()).unwrap_or("")
    }

    fn site(&self, n: Node<'t>) -> Site {
        Site {
            file: self.file,
            start: n.start_byte() as u32,
            end: n.end_byte() as u32,
        }
    }

    /// `__global__` and `__device__` functions run on the device (`__host__ __device__` ones are
    /// not analysed either: the device side dominates them).
    fn is_device_code(&self, f: Node<'t>) -> bool {
        let head_end = f.field("body").map_or(f.end_byte(), |b| b.start_byte());
        let head = &self.src[f.start_byte()..head_end.max(f.start_byte())];
        if head.contains("__global__") || head.contains("__device__") {
            return true;
        }
        // Through a macro (`TCNN_HOST_DEVICE T& operator[](..)`): one the file defines as
        // `__host__ __device__`, or, when it is not defined here, one named for it.
        head.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).any(|w| {
            if w.is_empty()
                || !w
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            {
                return w == "__hostdev__";
            }
            match self.constants.get(w) {
                Some(v) => v.contains("__device__") || v.contains("__global__"),
                None => w.contains("DEVICE") || w.contains("HOSTDEV") || w == "CUDA_CALLABLE",
            }
        })
    }
}

/// The name a function declarator declares (`f`, `ns::f`, `C::f`).
fn function_name<'s>(d: Node<'_>, src: &'s str) -> Option<&'s str> {
    let f = find_kind(d, "function_declarator")?;
    let name = f.field("declarator")?;
    let name = match name.kind() {
        "qualified_identifier" => name.field("name")?,
        _ => name,
    };
    name.utf8_text(src.as_bytes()).ok()
}

/// The first node of `kind` in `n`'s subtree (breadth first, bounded).
fn find_kind<'t>(n: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut queue = std::collections::VecDeque::from([n]);
    let mut seen = 0;
    while let Some(x) = queue.pop_front() {
        seen += 1;
        if seen > 256 {
            return None;
        }
        if x.kind() == kind {
            return Some(x);
        }
        let mut c = x.walk();
        queue.extend(x.named_children(&mut c));
    }
    None
}

/// Joins the partitions that know the same facts; past [`MAX_PARTS`], all of them.
/// How many `else if`s of one chain are split into partitions (`branch_body`); the rest run
/// joined.
const MAX_ELSE_IF: u32 = 32;

fn merge_parts(parts: Vec<Flow>) -> Vec<Flow> {
    let mut out: Vec<Flow> = Vec::new();
    for p in parts {
        match out.iter_mut().find(|o| o.facts == p.facts && o.dead == p.dead) {
            Some(o) => o.join(&p),
            None => out.push(p),
        }
    }
    if out.len() > MAX_PARTS {
        vec![join_parts(out)]
    } else {
        out
    }
}

fn join_parts(parts: Vec<Flow>) -> Flow {
    let mut iter = parts.into_iter();
    let mut first = iter.next().unwrap_or_default();
    for p in iter {
        first.join(&p);
    }
    first
}

fn is_statement(kind: &str) -> bool {
    kind.ends_with("_statement") || kind == "declaration" || kind == "for_range_loop" || kind == "else_clause"
}

/// Whether `text` is a plain name (`d_x`), not an expression.
fn is_plain_name(text: &str) -> bool {
    !text.is_empty()
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !text.starts_with(|c: char| c.is_ascii_digit())
}

fn is_null(text: &str) -> bool {
    matches!(
        text.trim(),
        "0" | "NULL" | "nullptr" | "(cudaStream_t)0" | "cudaStreamDefault"
    )
}

/// Whether `n`'s subtree has a node of `kind` (bounded, without recursion: a declarator nested
/// thousands deep must not overflow the stack).
fn contains_kind(n: Node<'_>, kind: &str) -> bool {
    find_kind(n, kind).is_some()
}

/// Whether the declarator itself (not the parameters of a function declarator in it) has a
/// part of `kind`: in `std::vector<char> v(bytes * count);`, which the parser reads as a
/// function taking a `bytes*`, `v` is not a pointer.
fn declarator_has(n: Node<'_>, kind: &str) -> bool {
    let mut cur = Some(n);
    let mut steps = 0;
    while let Some(d) = cur {
        steps += 1;
        if steps > 64 {
            return false;
        }
        if d.kind() == kind {
            return true;
        }
        cur = d.field("declarator").or_else(|| {
            // `&x` and `(x)` name the inner declarator without a field.
            matches!(d.kind(), "reference_declarator" | "parenthesized_declarator")
                .then(|| d.named_child(d.named_child_count().saturating_sub(1)))
                .flatten()
        });
    }
    false
}

/// The variable a declarator declares.
fn declared_name(n: Node<'_>, src: &str) -> Option<String> {
    let mut cur = n;
    for _ in 0..16 {
        if matches!(cur.kind(), "identifier" | "field_identifier") {
            return cur.utf8_text(src.as_bytes()).ok().map(str::to_string);
        }
        cur = cur.field("declarator").or_else(|| cur.named_child(0))?;
    }
    None
}

/// `cudaMalloc(&p, ..)`, `cudaMalloc((void**)&p, ..)`: the variable `p`.
/// A test of a CUDA status: the status (a variable or a call) and whether the test holds when
/// the call failed. `x != cudaSuccess`, `x != CUDA_SUCCESS`, `x != 0`, `x` hold on failure;
/// `x == cudaSuccess`, `!x` hold on success.
/// Whether the condition compares its subject with a constant (`x != cudaSuccess`), rather than
/// testing it as it is (`x`, `!x`).
fn is_comparison(cond: Node<'_>) -> bool {
    condition_inner(cond).is_some_and(|c| c.kind() == "binary_expression")
}

/// The expression a condition tests, under `if (..)`'s clause and parentheses.
fn condition_inner(cond: Node<'_>) -> Option<Node<'_>> {
    let mut cur = cond;
    for _ in 0..4 {
        if cur.kind() == "condition_clause" || cur.kind() == "parenthesized_expression" {
            cur = cur.named_child(0)?;
        } else {
            break;
        }
    }
    Some(cur)
}

fn failure_test<'t>(cond: Node<'t>, src: &str) -> Option<(Node<'t>, bool)> {
    let text = |n: Node<'_>| n.utf8_text(src.as_bytes()).unwrap_or("").trim().to_string();
    let cur = condition_inner(cond)?;
    // The libraries' success statuses too: a routine that failed started no work.
    let is_success = |t: &str| {
        matches!(
            t,
            "cudaSuccess"
                | "CUDA_SUCCESS"
                | "0"
                | "CUBLAS_STATUS_SUCCESS"
                | "CUFFT_SUCCESS"
                | "CURAND_STATUS_SUCCESS"
                | "CUDNN_STATUS_SUCCESS"
                | "ncclSuccess"
        )
    };
    match cur.kind() {
        "binary_expression" => {
            let (l, r) = (cur.field("left")?, cur.field("right")?);
            let op = text(cur.field("operator")?);
            let (subject, other) = if is_success(&text(r)) { (l, r) } else { (r, l) };
            if !is_success(&text(other)) {
                return None;
            }
            match op.as_str() {
                "!=" => Some((subject, true)),
                "==" => Some((subject, false)),
                _ => None,
            }
        }
        "unary_expression" if text(cur).starts_with('!') => Some((cur.field("argument")?, false)),
        "identifier" | "call_expression" => Some((cur, true)),
        _ => None,
    }
}

/// The memory a container type holds: `thrust::device_vector` device memory,
/// `thrust::universal_vector` managed, a host vector with a pinned allocator pinned, any other
/// `vector`/`std::array` pageable. `None`: not a container.
fn container_kind(ty: &str) -> Option<MemKind> {
    let lower = ty.to_ascii_lowercase();
    if ty.contains("device_vector") {
        Some(MemKind::Device)
    } else if ty.contains("universal_vector") {
        Some(MemKind::Managed)
    } else if (ty.contains("vector") || ty.contains("array<")) && lower.contains("pinned") {
        Some(MemKind::Pinned)
    } else if ty.contains("vector") || ty.contains("array<") || is_string_type(ty) {
        Some(MemKind::Pageable)
    } else if ["list<", "deque<", "queue<", "stack<"].iter().any(|c| ty.contains(c)) {
        // Node-based containers: their elements live in pageable heap memory.
        Some(MemKind::Pageable)
    } else {
        None
    }
}

/// `std::string`, `std::wstring`, `std::basic_string<..>`: their characters are in pageable
/// heap memory (`s.data()`, `s.c_str()`).
fn is_string_type(ty: &str) -> bool {
    let t = ty.trim().trim_start_matches("const ").trim_start_matches("std::");
    matches!(t, "string" | "wstring" | "u16string" | "u32string") || t.starts_with("basic_string<")
}

/// Whether a local of this type is an object of host memory whose address may be taken (a
/// struct, a number), not a handle to something else (a stream, an event, a device address).
fn is_host_object_type(ty: &str) -> bool {
    let t = ty
        .trim()
        .trim_start_matches("const ")
        .trim_start_matches("struct ")
        .trim();
    let lower = t.to_ascii_lowercase();
    !(t.is_empty()
        || t == "auto"
        || t == "dim3"
        // CUDA's handles (streams, events, device pointers, results) are not host objects; its
        // structs (`cudaLaunchConfig_t`, `CUmemAllocationProp`, `cudaDeviceProp`) are.
        || ((lower.starts_with("cu") || lower.starts_with("nv"))
            && !["Config", "Prop", "Desc", "Attribute", "Params"].iter().any(|k| t.contains(k)))
        // MPI's handles (`MPI_Request`, `MPI_Comm`), passed by value; not `MPI_Status`.
        || (t.starts_with("MPI_") && t != "MPI_Status")
        || t.starts_with("std::")
        || t.contains("vector")
        || t.contains("thread")
        || t.contains("mutex")
        || t.contains('<'))
}

/// The variable an lvalue names the object of (`p` of `p`, `p.x`, `p.a[i]`), not through a
/// pointer (`p->x` is another object).
fn reference_root(n: Node<'_>, src: &str) -> Option<String> {
    let mut cur = n;
    for _ in 0..16 {
        match cur.kind() {
            "identifier" => return cur.utf8_text(src.as_bytes()).ok().map(str::to_string),
            "field_expression"
                if cur
                    .field("operator")
                    .is_some_and(|op| op.utf8_text(src.as_bytes()) == Ok(".")) =>
            {
                cur = cur.field("argument")?
            }
            "parenthesized_expression" => cur = cur.named_child(0)?,
            _ => return None,
        }
    }
    None
}

/// The lengths of an array declarator as written, outermost first (`a[N][4]`: `N`, `4`).
pub(crate) fn array_lengths<'s>(d: Node<'_>, src: &'s str) -> Vec<&'s str> {
    let mut out = Vec::new();
    let mut cur = Some(d);
    for _ in 0..8 {
        let Some(n) = cur else { break };
        match n.kind() {
            "array_declarator" => {
                if let Some(size) = n.field("size") {
                    out.push(&src[size.start_byte()..size.end_byte()]);
                } else {
                    out.push("?");
                }
                cur = n.field("declarator");
            }
            // `char* bufs[4]`: an array of pointers.
            "init_declarator" | "pointer_declarator" => cur = n.field("declarator"),
            _ => break,
        }
    }
    out.reverse();
    out
}

fn out_var(n: Node<'_>, src: &str) -> Option<String> {
    let mut cur = n;
    for _ in 0..8 {
        match cur.kind() {
            "pointer_expression" => {
                let mut arg = cur.field("argument")?;
                // `&(p)`, as a macro's expansion writes it.
                while arg.kind() == "parenthesized_expression" {
                    arg = arg.named_child(0)?;
                }
                return (arg.kind() == "identifier")
                    .then(|| arg.utf8_text(src.as_bytes()).ok().map(str::to_string))
                    .flatten();
            }
            "cast_expression" => cur = cur.field("value")?,
            "parenthesized_expression" => cur = cur.named_child(0)?,
            // `reinterpret_cast<void**>(&p)`
            "call_expression"
                if cur
                    .field("function")
                    .is_some_and(|f| callee_name(f, src).ends_with("_cast")) =>
            {
                cur = cur.field("arguments")?.named_child(0)?;
            }
            _ => return None,
        }
    }
    None
}

/// The name a call calls: `f`, `ns::f`, `obj.f`, `f<T>`.
/// `x` under its casts: `(void*)x`, `reinterpret_cast<void*>(x)`, `(x)`.
fn strip_casts<'t>(n: Node<'t>, src: &str) -> Option<Node<'t>> {
    let mut cur = n;
    for _ in 0..8 {
        match cur.kind() {
            "cast_expression" => cur = cur.field("value")?,
            "parenthesized_expression" => cur = cur.named_child(0)?,
            "call_expression"
                if cur
                    .field("function")
                    .is_some_and(|f| callee_name(f, src).ends_with("_cast")) =>
            {
                cur = cur.field("arguments")?.named_child(0)?;
            }
            _ => return Some(cur),
        }
    }
    Some(cur)
}

/// Whether `n` lies in a loop of its function (a `cudaStreamQuery` polled until done).
fn in_loop(n: Node<'_>) -> bool {
    let mut cur = n.parent();
    while let Some(p) = cur {
        match p.kind() {
            "for_statement" | "while_statement" | "do_statement" | "for_range_loop" => return true,
            "function_definition" | "lambda_expression" => return false,
            _ => cur = p.parent(),
        }
    }
    false
}

fn callee_name(f: Node<'_>, src: &str) -> String {
    let text = |n: Node<'_>| n.utf8_text(src.as_bytes()).unwrap_or("").to_string();
    match f.kind() {
        "identifier" => text(f),
        "qualified_identifier" => f.field("name").map_or_else(|| text(f), |n| callee_name(n, src)),
        "field_expression" => f.field("field").map(text).unwrap_or_default(),
        "template_function" => f.field("name").map(text).unwrap_or_default(),
        _ => text(f),
    }
}

/// [`const_bytes_with`] with no names known.
#[cfg(test)]
fn const_bytes(text: &str) -> Option<u64> {
    const_bytes_with(text, &|_| None)
}

/// The value of a byte count written as a constant: integer literals, `sizeof` of a scalar
/// type, `*`, `+` and `<<`, parentheses (`4 * sizeof(float)`, `1 << 20`); `resolve` gives what
/// a name or a `sizeof(..)` of something other than a scalar type is (`kClasses`,
/// `sizeof(params)`). `None` when a part is not known.
pub(crate) fn const_bytes_with(text: &str, resolve: &dyn Fn(&str) -> Option<u64>) -> Option<u64> {
    const SCALARS: &[(&str, u64)] = &[
        ("char", 1),
        ("unsigned char", 1),
        ("signed char", 1),
        ("bool", 1),
        ("int8_t", 1),
        ("uint8_t", 1),
        ("short", 2),
        ("unsigned short", 2),
        ("int16_t", 2),
        ("uint16_t", 2),
        ("__half", 2),
        ("half", 2),
        ("int", 4),
        ("unsigned", 4),
        ("unsigned int", 4),
        ("int32_t", 4),
        ("uint32_t", 4),
        ("float", 4),
        ("long", 8),
        ("unsigned long", 8),
        ("long long", 8),
        ("unsigned long long", 8),
        ("int64_t", 8),
        ("uint64_t", 8),
        ("size_t", 8),
        ("double", 8),
        // CUDA's vector types (`vector_types.h`).
        ("char2", 2),
        ("uchar2", 2),
        ("char4", 4),
        ("uchar4", 4),
        ("short2", 4),
        ("ushort2", 4),
        ("short4", 8),
        ("ushort4", 8),
        ("__half2", 4),
        ("half2", 4),
        ("int2", 8),
        ("uint2", 8),
        ("int3", 12),
        ("uint3", 12),
        ("int4", 16),
        ("uint4", 16),
        ("float2", 8),
        ("float3", 12),
        ("float4", 16),
        ("double2", 16),
        ("double3", 24),
        ("double4", 32),
        ("long2", 16),
        ("longlong2", 16),
    ];
    fn sum(s: &str, r: &dyn Fn(&str) -> Option<u64>) -> Option<u64> {
        let (mut depth, mut at) = (0i32, None);
        for (i, c) in s.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                '+' if depth == 0 => at = Some((i, 1)),
                // `a - b` (not a sign, not `->`), evaluated as C does, in unsigned bytes.
                '-' if depth == 0
                    && i > 0
                    && !s[i..].starts_with("->")
                    && !s[..i].trim_end().ends_with(['*', '/', '%', '(', '+', '-']) =>
                {
                    at = Some((i, 0))
                }
                '<' if depth == 0 && s[i..].starts_with("<<") && at.is_none() => at = Some((i, 2)),
                _ => {}
            }
        }
        match at {
            Some((i, 1)) => sum(&s[..i], r)?.checked_add(sum(&s[i + 1..], r)?),
            Some((i, 0)) => sum(&s[..i], r)?.checked_sub(sum(&s[i + 1..], r)?),
            Some((i, _)) => sum(&s[..i], r)?.checked_shl(u32::try_from(sum(&s[i + 2..], r)?).ok()?),
            None => product(s, r),
        }
    }
    fn product(s: &str, r: &dyn Fn(&str) -> Option<u64>) -> Option<u64> {
        // The last `*`, `/` or `%` outside parentheses: C's operators of one precedence group
        // from the left.
        let (mut depth, mut at) = (0i32, None);
        for (i, c) in s.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                '*' | '/' | '%' if depth == 0 && i > 0 && !s[..i].trim_end().ends_with(['*', '/', '%']) => {
                    at = Some((i, c))
                }
                _ => {}
            }
        }
        match at {
            Some((i, '*')) => product(&s[..i], r)?.checked_mul(atom(s[i + 1..].trim(), r)?),
            Some((i, '/')) => product(&s[..i], r)?.checked_div(atom(s[i + 1..].trim(), r)?),
            Some((i, _)) => product(&s[..i], r)?.checked_rem(atom(s[i + 1..].trim(), r)?),
            None => atom(s.trim(), r),
        }
    }
    fn atom(s: &str, r: &dyn Fn(&str) -> Option<u64>) -> Option<u64> {
        if let Some(inner) = s.strip_prefix("sizeof") {
            let inner = inner.trim().strip_prefix('(')?.strip_suffix(')')?.trim();
            let inner = inner.split_whitespace().collect::<Vec<_>>().join(" ");
            return match SCALARS.iter().find(|(n, _)| *n == inner) {
                Some(&(_, b)) => Some(b),
                None => r(s),
            };
        }
        if let Some(inner) = s.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
            return sum(inner, r);
        }
        if s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == ':') {
            return r(s);
        }
        let digits = s.trim_end_matches(['u', 'U', 'l', 'L']);
        match digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
            Some(hex) => u64::from_str_radix(hex, 16).ok(),
            None => digits.parse().ok(),
        }
    }
    if text.len() > 200 {
        return None;
    }
    sum(text, resolve)
}

#[cfg(test)]
mod const_bytes_tests {
    use super::const_bytes;

    #[test]
    fn constant_byte_counts() {
        assert_eq!(const_bytes("sizeof(int)"), Some(4));
        assert_eq!(const_bytes("4 * sizeof(float)"), Some(16));
        assert_eq!(const_bytes("(1 << 20) * sizeof(double)"), Some(8 << 20));
        assert_eq!(const_bytes("256"), Some(256));
        assert_eq!(const_bytes("0x100UL"), Some(256));
        assert_eq!(const_bytes("sizeof(unsigned  long long) + 8"), Some(16));
        assert_eq!(const_bytes("(4096 / 2 + 1) * sizeof(float)"), Some(8196));
        assert_eq!(const_bytes("64 - 16 - 8"), Some(40));
        assert_eq!(const_bytes("100 / 10 * 3"), Some(30));
        assert_eq!(const_bytes("10 % 4 * 2"), Some(4));
        assert_eq!(const_bytes("8 - 16"), None);
        assert_eq!(const_bytes("n * sizeof(float)"), None);
        assert_eq!(const_bytes("sizeof(h_data)"), None);
        assert_eq!(const_bytes("sizeof(Params)"), None);
        // Names and `sizeof` of what the file declares, as the resolver says.
        let resolve = |s: &str| match s {
            "kTaps" => Some(16),
            "sizeof(params)" => Some(24),
            _ => None,
        };
        assert_eq!(super::const_bytes_with("kTaps * sizeof(float)", &resolve), Some(64));
        assert_eq!(super::const_bytes_with("sizeof(params)", &resolve), Some(24));
        assert_eq!(super::const_bytes_with("n * sizeof(float)", &resolve), None);
        // A dereference is not a product.
        assert_eq!(super::const_bytes_with("*count", &resolve), None);
        assert_eq!(const_bytes("bytes"), None);
    }
}
