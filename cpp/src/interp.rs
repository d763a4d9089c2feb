//! The per-function interpreter: walks a host function's statements in order, keeps what each
//! pointer variable may point to, and drives the machine with what each call does
//! ([`crate::api`]). Branches join as "may" (the machine's own join); loops run to a fixpoint
//! (at most [`LOOP_ROUNDS`] rounds, then what they reached is kept); `return` ends a path.

use std::collections::{BTreeMap, HashMap};

use cuda_lint_cuda_source::{Fence, kernel_fence, kernel_writes};
use cuda_lint_machine::lints::{Cx, check_all};
use cuda_lint_machine::{
    Access, Child, Describe, Dir, Event, Finding, InFlight, Kernel, Loc, LocSet, Machine, MemKind, OpId, OpKind, OpSet,
    Origin, Region, Regions, State,
};
use tree_sitter::Node;

use crate::api::{self, ADVICE, Effect};

mod globals;
mod items;
mod objects;
mod sizes;

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
}

#[derive(Clone, Default, PartialEq)]
struct Flow {
    /// What each variable may point to (for a stream or event variable: the object).
    vars: BTreeMap<String, LocSet>,
    m: State,
    /// The path has returned.
    dead: bool,
    /// Streams capturing into a graph: work on them is recorded, not run.
    capturing: LocSet,
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
type KernelInfo = (Option<Vec<bool>>, Fence, Vec<bool>);

/// The field name under which an array's elements are kept.
const ELEMENTS: &str = "[]";

/// What a path knows of a variable it tested.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Fact {
    /// It is this value (`true`/`false` for a truth test, a case label).
    Is(String),
    /// It is none of these values.
    IsNot(Vec<String>),
}

impl Fact {
    /// Whether the variable equals `value`: `None` when not known.
    fn equals(&self, value: &str) -> Option<bool> {
        match self {
            // A truth test of a number: nonzero is true.
            Fact::Is(v) if value == "true" && v.parse::<i64>().is_ok() => Some(v.parse::<i64>() != Ok(0)),
            Fact::Is(v) => Some(v == value),
            Fact::IsNot(vs) if vs.iter().any(|v| v == value) => Some(false),
            Fact::IsNot(_) => None,
        }
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
        self.capturing.union_with(&other.capturing);
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
    op_by_site: HashMap<(Vec<u32>, u32), OpId>,
    /// The calls being run inline, by the start of each call, outermost first.
    call_sites: Vec<u32>,
    /// Views into VMM reservations, by reservation and offset as written.
    views: HashMap<(Loc, String), Loc>,
    /// For each function run inline, the text of the argument each parameter was given (a
    /// flag such as `cudaHostAllocWriteCombined` passed through a helper).
    param_texts: Vec<HashMap<String, String>>,
    legacy: Loc,
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
    /// The file's classes and type aliases ([`objects`]).
    classes: objects::Classes<'s, 't>,
    /// The class of each object made from one.
    object_class: HashMap<Loc, &'s str>,
    /// The memory of container members (`std::vector<float> h_;`), by object and member.
    member_locs: HashMap<(Loc, &'s str), Loc>,
    /// Lambdas kept in variables (`auto del = [](float* p) {..};`), for a smart pointer's
    /// deleter.
    lambdas: HashMap<&'s str, Node<'t>>,
    /// Set while a smart pointer's deleter is checked where the pointer is handed over: its
    /// releases say which allocator they are for, not that the memory ends there.
    checking_release: bool,
    /// The file's named integer constants ([`sizes::constants`]).
    constants: HashMap<&'s str, &'s str>,
    /// The declared type and array lengths of each local variable, by name (the last
    /// declaration of a name wins): for `sizeof(x)`.
    var_types: HashMap<String, (&'s str, Vec<&'s str>, bool)>,
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
            op_by_site: HashMap::new(),
            call_sites: Vec::new(),
            views: HashMap::new(),
            param_texts: Vec::new(),
            legacy: Loc(0),
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
            work: 0,
            started: Started::default(),
            functions: HashMap::new(),
            inlined: Vec::new(),
            returns: Vec::new(),
            classes: objects::Classes::default(),
            object_class: HashMap::new(),
            member_locs: HashMap::new(),
            lambdas: HashMap::new(),
            checking_release: false,
            constructing: 0,
            constants: HashMap::new(),
            var_types: HashMap::new(),
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
        a.globals_obj = a.new_loc(Some(MemKind::Pageable), None, origin, false);
        a
    }

    /// Runs every host function of the translation unit.
    /// The memory a container variable holds (`std::vector`, `thrust::device_vector`...).
    fn container(&mut self, declarator: Node<'t>, kind: MemKind, name: &str) -> Loc {
        let l = self.loc_at(declarator, "var", Some(kind), Some(name.to_string()), false);
        // A standard container's buffer (not a plain array's storage): its destructor frees it.
        let array = contains_kind(declarator, "array_declarator");
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
            .unwrap_or_default();
        let info = (kernel_writes(self.src, name), kernel_fence(self.src, name), volatile);
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
                    self.statement(body, &mut flow);
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
            } else if let Some(class) = self.class_of_type(ty) {
                let o = self.loc_at(d, "object", Some(MemKind::Pageable), Some(name.clone()), false);
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
                self.inline_method(
                    at.start_byte() as u32,
                    name,
                    def,
                    Some(LocSet::single(o)),
                    &vals,
                    &[],
                    &mut part,
                );
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

    fn mark(&self) -> (usize, usize) {
        (self.started.ops.len(), self.started.mapped.len())
    }

    fn since(&self, (ops, mapped): (usize, usize)) -> Started {
        Started {
            ops: self.started.ops.get(ops..).unwrap_or_default().to_vec(),
            mapped: self.started.mapped.get(mapped..).unwrap_or_default().to_vec(),
        }
    }

    /// On the branch of `if (cond)` taken (`taken`) where `cond` says a call failed
    /// (`err != cudaSuccess`, `res != CUDA_SUCCESS`, `err`, `!ok`... of a status variable, or
    /// of the call itself: `direct`), nothing the call started happened: its work is not
    /// running, its mapping not made.
    fn failed_branch(&self, cond: Node<'t>, direct: &Started, taken: bool, flow: &mut Flow) {
        let Some((subject, failed_when)) = failure_test(cond, self.src) else {
            return;
        };
        if taken != failed_when {
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
        let ops: cuda_lint_machine::OpSet = started.ops.iter().copied().collect();
        flow.m.finish(&ops);
        for views in &started.mapped {
            self.machine.map_failed(&mut flow.m, views);
        }
    }

    /// Stores what an API call made (`l`) where its out-parameter `a` points: a variable
    /// (`&p`), a field (`&s.d_buf`) or an element (`&rows[i]`). `handle`: a stream or event,
    /// named after the variable whatever it was named before.
    fn store_out(&mut self, a: Option<Node<'t>>, l: Loc, flow: &mut Flow, handle: bool) {
        let Some(a) = a else { return };
        let name = if let Some(var) = out_var(a, self.src) {
            // A member named bare in a method (`cudaMalloc(&d_, n)`): `this`'s field.
            match self.named_place(&var, flow) {
                Some(objs) => {
                    self.store_field(&objs, &var, &LocSet::single(l), flow);
                    var
                }
                None => {
                    flow.vars.insert(var.clone(), LocSet::single(l));
                    // `cudaMalloc(&p, n)` for `p` a reference to a range's element: named as
                    // an element of the range (`d_act[..]`).
                    match flow.element_refs.get(&var).cloned() {
                        Some(range) => {
                            self.store_field(&range, ELEMENTS, &LocSet::single(l), flow);
                            let container = range.iter().find_map(|r| self.locs[r.0 as usize].name.clone());
                            container.map_or(var, |c| format!("{c}[..]"))
                        }
                        None => var,
                    }
                }
            }
        } else if let Some((objs, field)) = self.out_field(a, flow) {
            self.store_field(&objs, &field, &LocSet::single(l), flow);
            // An element at a constant index is an element too.
            if field.starts_with('[') && field != ELEMENTS {
                self.store_field(&objs, ELEMENTS, &LocSet::single(l), flow);
            }
            let mut text = self
                .text(a)
                .trim_start_matches(|c: char| c != '&')
                .trim_start_matches('&');
            text = text.trim_start_matches("this->");
            text.trim_end_matches(')').to_string()
        } else {
            return;
        };
        if handle {
            self.locs[l.0 as usize].name = Some(name);
        } else {
            self.name_new(&LocSet::single(l), &name);
        }
    }

    /// `s.f = v`, `s->f = v`, `a[i] = v`: what the field or element now holds.
    fn store_through(&mut self, left: Node<'t>, value: &LocSet, flow: &mut Flow) {
        match left.kind() {
            "field_expression" => {
                let arrow = self.is_arrow(left);
                let (Some(x), Some(f)) = (left.field("argument"), left.field("field")) else {
                    return;
                };
                let objs = self.object_of(x, arrow, flow);
                let field = self.text(f).to_string();
                self.name_new(value, &self.text(left).replace("this->", ""));
                self.store_field(&objs, &field, value, flow);
            }
            "subscript_expression" => {
                let Some(arr) = left.field("argument") else {
                    return;
                };
                let objs = self.expr(arr, flow, false);
                self.store_field(&objs, ELEMENTS, value, flow);
                if let Some(key) = self.element_key(left) {
                    self.store_field(&objs, &key, value, flow);
                }
            }
            _ => {}
        }
    }

    /// The field an element at a constant index is also kept under (`h[0]`: `[0]`), so that
    /// `h[0]` and `h[1]` stay apart; elements at other indices are all `[]`.
    fn element_key(&self, subscript: Node<'t>) -> Option<String> {
        let i = subscript.field("indices")?.named_child(0)?;
        (i.kind() == "number_literal").then(|| format!("[{}]", self.text(i).trim()))
    }

    /// The objects `a` may be in a field access `a.f` (`arrow`: `a->f`).
    fn object_of(&mut self, a: Node<'t>, arrow: bool, flow: &mut Flow) -> LocSet {
        if arrow {
            return self.expr(a, flow, false);
        }
        match a.kind() {
            "identifier" => {
                let name = self.text(a);
                match flow.objects.get(name) {
                    Some(&o) => LocSet::single(o),
                    None => match self.named_place(name, flow) {
                        // A member object named bare in a method (`buf_.data()`).
                        Some(this) => self.member_object(&this, name, a, flow),
                        // A reference parameter of a helper: bound to the caller's object.
                        None => flow.vars.get(name).cloned().unwrap_or_default(),
                    },
                }
            }
            // `(*p).f`, `p[i].f`: the object `p` points to.
            "parenthesized_expression" => match a.named_child(0) {
                Some(inner) if inner.kind() == "pointer_expression" => inner
                    .field("argument")
                    .map(|p| self.expr(p, flow, false))
                    .unwrap_or_default(),
                Some(inner) => self.object_of(inner, false, flow),
                None => LocSet::new(),
            },
            "subscript_expression" => a
                .field("argument")
                .map(|p| self.expr(p, flow, false))
                .unwrap_or_default(),
            // `a.b.c`: the object `a.b` is kept as `a`'s field.
            "field_expression" => {
                let inner_arrow = self.is_arrow(a);
                let (Some(x), Some(f)) = (a.field("argument"), a.field("field")) else {
                    return LocSet::new();
                };
                let objs = self.object_of(x, inner_arrow, flow);
                let field = self.text(f).to_string();
                objs.iter()
                    .map(|o| {
                        let key = (o, format!("{field}."));
                        if let Some(v) = flow.fields.get(&key) {
                            return v.clone();
                        }
                        // The nested object, made once per site and kept.
                        let l = self.loc_at(a, "field-object", None, None, false);
                        flow.fields.insert(key, LocSet::single(l));
                        LocSet::single(l)
                    })
                    .fold(LocSet::new(), |mut acc, v| {
                        acc.union_with(&v);
                        acc
                    })
            }
            _ => LocSet::new(),
        }
    }

    /// What the field `field` of the objects `objs` holds.
    fn field_value(&self, objs: &LocSet, field: &str, flow: &Flow) -> LocSet {
        let mut out = LocSet::new();
        for o in objs.iter() {
            if let Some(v) = flow.fields.get(&(o, field.to_string())) {
                out.union_with(v);
            }
        }
        out
    }

    /// Stores `value` in the field of the objects: replaced when the object is one, else added.
    fn store_field(&mut self, objs: &LocSet, field: &str, value: &LocSet, flow: &mut Flow) {
        let strong = objs.iter().count() == 1 && field != ELEMENTS;
        for o in objs.iter() {
            let slot = flow.fields.entry((o, field.to_string())).or_default();
            if strong {
                *slot = value.clone();
            } else {
                slot.union_with(value);
            }
        }
    }

    /// Where an out-parameter (`&s.d_buf`, `&this->d`, `&rows[i]`, through casts) stores: the
    /// objects and the field. `None` for a plain variable or what is not known.
    fn out_field(&mut self, a: Node<'t>, flow: &mut Flow) -> Option<(LocSet, String)> {
        let mut cur = a;
        for _ in 0..8 {
            match cur.kind() {
                "pointer_expression" => {
                    let target = cur.field("argument")?;
                    return match target.kind() {
                        "field_expression" => {
                            let arrow = self.is_arrow(target);
                            let x = target.field("argument")?;
                            let f = self.text(target.field("field")?).to_string();
                            let objs = self.object_of(x, arrow, flow);
                            if arrow {
                                // The host writes the field through the pointer.
                                self.access(target, &objs, true, flow);
                            }
                            Some((objs, f))
                        }
                        "subscript_expression" => {
                            let arr = target.field("argument")?;
                            let objs = self.expr(arr, flow, false);
                            // `cudaMalloc(&rows[i], n)` writes `rows[i]` on the host.
                            self.access(target, &objs, true, flow);
                            Some((objs, self.element_key(target).unwrap_or_else(|| ELEMENTS.to_string())))
                        }
                        _ => None,
                    };
                }
                "cast_expression" => cur = cur.field("value")?,
                "parenthesized_expression" => cur = cur.named_child(0)?,
                "call_expression" => {
                    // `reinterpret_cast<void**>(&s.d)`
                    let list = cur.field("arguments")?;
                    cur = list.named_child(0)?;
                }
                _ => return None,
            }
        }
        None
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
        call: u32,
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
        let mut params = Vec::new();
        if let Some(list) = def.field("declarator").and_then(|d| find_kind(d, "parameter_list")) {
            let mut c = list.walk();
            for p in list.named_children(&mut c) {
                params.push(p.field("declarator").and_then(|d| declared_name(d, self.src)));
            }
        }
        let caller_vars = std::mem::take(&mut flow.vars);
        let caller_objects = std::mem::take(&mut flow.objects);
        let caller_facts = std::mem::take(&mut flow.facts);
        for (p, v) in params.iter().zip(args) {
            if let Some(p) = p {
                flow.vars.insert(p.clone(), v.clone());
            }
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
        self.call_sites.push(call);
        self.returns.push((None, LocSet::new()));
        if let Some(this) = this {
            flow.vars.insert("this".into(), this);
            self.run_initializers(def, flow);
        }
        self.statement(body, flow);
        let (returned, ret) = self.returns.pop().unwrap_or_default();
        self.call_sites.pop();
        self.inlined.pop();
        self.param_texts.pop();
        if let Some(r) = returned {
            flow.join(&r);
        }
        flow.dead = false;
        flow.facts = caller_facts;
        flow.vars = caller_vars;
        flow.objects = caller_objects;
        ret
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

    fn new_loc(&mut self, kind: Option<MemKind>, name: Option<String>, origin: Site, allocated: bool) -> Loc {
        let l = Loc(self.locs.len() as u32);
        self.locs.push(LocInfo {
            kind,
            name,
            origin,
            allocated,
            allocator: None,
            write_combined: false,
            physical: LocSet::new(),
            parent: None,
            named_in: self.inlined.len(),
            attached: false,
            attached_streams: LocSet::new(),
            copies_on_access: false,
            any_offset: false,
        });
        l
    }

    /// The location made at `site` (the same one each time a loop passes it).
    fn loc_at(
        &mut self,
        n: Node<'t>,
        what: &'static str,
        kind: Option<MemKind>,
        name: Option<String>,
        allocated: bool,
    ) -> Loc {
        let key = (self.call_sites.clone(), n.start_byte() as u32, what);
        if let Some(&l) = self.by_site.get(&key) {
            return l;
        }
        let site = self.site(n);
        let l = self.new_loc(kind, name, site, allocated);
        self.by_site.insert(key, l);
        l
    }

    fn emit(&mut self, at: Node<'t>, event: Event<'_, Site>, flow: &Flow) {
        let span = self.site(at);
        let mut found = Vec::new();
        {
            let regions = FileRegions { locs: &self.locs };
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
            let order = self.found_in.len() as u64;
            self.found_in.entry(f.span).or_insert((self.root, order));
            self.findings.insert((f.lint.name, f.kind, f.span), f);
        }
    }

    // ---- statements ----

    fn statement(&mut self, n: Node<'t>, flow: &mut Flow) {
        // Not in this build (`#ifdef NOT_DEFINED ... #endif`): not run.
        if flow.dead || self.excluded.contains(n.start_byte()) {
            return;
        }
        self.work += 1;
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.depth -= 1;
            self.too_deep.get_or_insert(n.start_byte());
            return;
        }
        match n.kind() {
            "compound_statement" | "translation_unit" => {
                let mut c = n.walk();
                let children: Vec<Node> = n.named_children(&mut c).collect();
                // The statements run on partitions of the path, split where a branch tests a
                // variable (so a later test of it follows the same way), joined at the end.
                let mut parts = vec![std::mem::take(flow)];
                for s in children {
                    let mut next = Vec::new();
                    for mut part in parts {
                        if part.dead {
                            next.push(part);
                            continue;
                        }
                        match self.branch(s, &mut part) {
                            Some(split) => next.extend(split),
                            None => {
                                self.statement(s, &mut part);
                                next.push(part);
                            }
                        }
                    }
                    parts = merge_parts(next);
                }
                // The block's objects end, last made first.
                if n.kind() == "compound_statement" {
                    for part in &mut parts {
                        if !part.dead {
                            self.end_block_objects(n, None, None, n, part);
                        }
                    }
                }
                *flow = join_parts(parts);
            }
            "declaration" => self.declaration(n, flow),
            "expression_statement" => {
                if let Some(e) = n.named_child(0) {
                    self.expr(e, flow, false);
                }
            }
            "if_statement" => {
                let mark = self.mark();
                if let Some(c) = n.field("condition") {
                    self.expr(c, flow, false);
                }
                let direct = self.since(mark);
                let cond = n.field("condition");
                let mut other = flow.clone();
                if let Some(c) = cond {
                    self.failed_branch(c, &direct, true, flow);
                    self.failed_branch(c, &direct, false, &mut other);
                }
                if let Some(then) = n.field("consequence") {
                    self.statement(then, flow);
                }
                if let Some(alt) = n.field("alternative") {
                    self.statement(alt, &mut other);
                }
                flow.join(&other);
            }
            "else_clause" => {
                let mut c = n.walk();
                let children: Vec<Node> = n.named_children(&mut c).collect();
                for s in children {
                    self.statement(s, flow);
                }
            }
            "for_statement" | "while_statement" | "for_range_loop" | "do_statement" => self.looped(n, flow),
            "switch_statement" => self.switch(n, flow),
            "return_statement" => {
                let value = match n.named_child(0) {
                    // A local object returned by value (the caller's variable is that object), a
                    // member object returned by reference.
                    Some(e) if self.object_named(e, flow).is_some() => self.object_named(e, flow).unwrap_or_default(),
                    Some(e) => self.expr(e, flow, false),
                    None => LocSet::new(),
                };
                // The objects of the blocks it leaves end (not one it returns).
                let keep = n
                    .named_child(0)
                    .filter(|e| e.kind() == "identifier")
                    .map(|e| self.text(e));
                self.end_objects_on_return(n, keep, flow);
                // Returning from a function run inline: the caller goes on from here.
                if let Some((returned, ret)) = self.returns.last_mut() {
                    ret.union_with(&value);
                    match returned {
                        Some(r) => r.join(flow),
                        None => *returned = Some(flow.clone()),
                    }
                }
                flow.dead = true;
            }
            "break_statement" | "continue_statement" | "goto_statement" => {}
            // An exception leaves the function (and, uncaught here, its callers): no path goes
            // on past it.
            "throw_statement" => {
                if let Some(e) = n.named_child(0) {
                    self.expr(e, flow, false);
                }
                flow.dead = true;
            }
            "comment" | "preproc_include" | "preproc_def" | "preproc_call" => {}
            _ => {
                // switch, try, labeled statements, preprocessor blocks: their parts in order.
                let mut c = n.walk();
                let children: Vec<Node> = n.named_children(&mut c).collect();
                for s in children {
                    if self.excluded.contains(s.start_byte()) {
                        continue;
                    }
                    if is_statement(s.kind()) {
                        self.statement(s, flow);
                    } else {
                        self.expr(s, flow, false);
                    }
                }
            }
        }
        self.depth -= 1;
    }

    /// An `if` or a `switch` on a plain variable, run on one partition: the way its facts say, or
    /// split into a partition per way, each knowing which it took. `None`: not such a branch.
    fn branch(&mut self, n: Node<'t>, flow: &mut Flow) -> Option<Vec<Flow>> {
        match n.kind() {
            "switch_statement" => Some(self.switch_parts(n, flow)),
            "if_statement" => {
                let cond = n.field("condition")?;
                let then = n.field("consequence");
                let alt = n.field("alternative");
                let Some(test) = self.test(cond) else {
                    // `a && b`, `!a || b`: decided when the facts decide it, else both ways.
                    let decided = self.decide(cond, &flow.facts, 0)?;
                    self.expr(cond, flow, false);
                    if let Some(b) = if decided { then } else { alt } {
                        self.statement(b, flow);
                    }
                    return Some(vec![std::mem::take(flow)]);
                };
                let mark = self.mark();
                self.expr(cond, flow, false);
                let direct = self.since(mark);
                let known = flow.facts.get(&test.var).and_then(|f| f.equals(&test.value));
                let holds = known.map(|eq| eq == test.when_equal);
                let mut out = Vec::new();
                for taken in [true, false] {
                    if holds.is_some_and(|h| h != taken) {
                        continue;
                    }
                    let mut part = flow.clone();
                    if holds.is_none() {
                        let equal = taken == test.when_equal;
                        let fact = if equal {
                            Fact::Is(test.value.clone())
                        } else {
                            match part.facts.get(&test.var) {
                                Some(Fact::IsNot(vs)) => {
                                    let mut vs = vs.clone();
                                    if !vs.contains(&test.value) {
                                        vs.push(test.value.clone());
                                    }
                                    Fact::IsNot(vs)
                                }
                                _ => Fact::IsNot(vec![test.value.clone()]),
                            }
                        };
                        part.facts.insert(test.var.clone(), fact);
                    }
                    self.failed_branch(cond, &direct, taken, &mut part);
                    let body = if taken { then } else { alt };
                    if let Some(b) = body {
                        self.statement(b, &mut part);
                    }
                    out.push(part);
                }
                Some(out)
            }
            _ => None,
        }
    }

    /// Whether a condition holds, when the facts say (`a && b`, `a || !b`, simple tests).
    fn decide(&self, cond: Node<'t>, facts: &BTreeMap<String, Fact>, depth: u32) -> Option<bool> {
        if depth > 16 {
            return None;
        }
        if let Some(t) = self.test(cond) {
            let eq = facts.get(&t.var)?.equals(&t.value)?;
            return Some(eq == t.when_equal);
        }
        let mut e = cond;
        while matches!(e.kind(), "condition_clause" | "parenthesized_expression") {
            e = e.named_child(0)?;
        }
        match e.kind() {
            "binary_expression" => {
                let op = e.field("operator").map(|o| self.text(o))?;
                let (l, r) = (e.field("left")?, e.field("right")?);
                let (a, b) = (self.decide(l, facts, depth + 1), self.decide(r, facts, depth + 1));
                match op {
                    "&&" => match (a, b) {
                        (Some(false), _) | (_, Some(false)) => Some(false),
                        (Some(true), Some(true)) => Some(true),
                        _ => None,
                    },
                    "||" => match (a, b) {
                        (Some(true), _) | (_, Some(true)) => Some(true),
                        (Some(false), Some(false)) => Some(false),
                        _ => None,
                    },
                    _ => None,
                }
            }
            "unary_expression" if self.text(e).trim_start().starts_with('!') => {
                self.decide(e.field("argument")?, facts, depth + 1).map(|v| !v)
            }
            _ => None,
        }
    }

    /// The variable a condition tests, when it is that simple.
    fn test(&self, cond: Node<'t>) -> Option<Test> {
        let mut e = cond;
        for _ in 0..4 {
            match e.kind() {
                "condition_clause" | "parenthesized_expression" => e = e.named_child(0)?,
                _ => break,
            }
        }
        match e.kind() {
            "identifier" => Some(Test {
                var: self.text(e).to_string(),
                value: "true".into(),
                when_equal: true,
            }),
            "unary_expression" if self.text(e).trim_start().starts_with('!') => {
                let arg = e.field("argument")?;
                (arg.kind() == "identifier").then(|| Test {
                    var: self.text(arg).to_string(),
                    value: "true".into(),
                    when_equal: false,
                })
            }
            "binary_expression" => {
                let op = e.field("operator").map(|o| self.text(o))?;
                let (l, r) = (e.field("left")?, e.field("right")?);
                let when_equal = match op {
                    "==" => true,
                    "!=" => false,
                    _ => return None,
                };
                let constant = |n: Node<'_>| {
                    matches!(
                        n.kind(),
                        "identifier" | "number_literal" | "qualified_identifier" | "true" | "false"
                    )
                };
                (l.kind() == "identifier" && constant(r)).then(|| Test {
                    var: self.text(l).to_string(),
                    value: self.text(r).to_string(),
                    when_equal,
                })
            }
            _ => None,
        }
    }

    /// `switch`: each case from the state before it (a case that falls through to the next one
    /// is taken as the next one's path), joined; without a `default`, the path that matches none.
    fn switch(&mut self, n: Node<'t>, flow: &mut Flow) {
        let parts = self.switch_parts(n, flow);
        *flow = join_parts(parts);
    }

    /// The paths through a `switch`, one per case taken (and one for no case, without a
    /// `default`), each knowing the case it took.
    fn switch_parts(&mut self, n: Node<'t>, flow: &mut Flow) -> Vec<Flow> {
        if let Some(c) = n.field("condition") {
            self.expr(c, flow, false);
        }
        let Some(body) = n.field("body") else {
            return vec![std::mem::take(flow)];
        };
        let var = n
            .field("condition")
            .and_then(|c| self.test(c))
            .filter(|t| t.value == "true" && t.when_equal)
            .map(|t| t.var);
        let entry = flow.clone();
        let known = var.as_ref().and_then(|v| entry.facts.get(v).cloned());
        let mut out: Vec<Flow> = Vec::new();
        let mut labels: Vec<String> = Vec::new();
        let mut has_default = false;
        let mut c = body.walk();
        let cases: Vec<Node> = body.named_children(&mut c).collect();
        for case in cases {
            if case.kind() != "case_statement" {
                continue;
            }
            let label = case.field("value").map(|v| self.text(v).to_string());
            has_default |= label.is_none();
            labels.extend(label.clone());
            // A case the path's facts rule out is not taken.
            if let (Some(f), Some(l)) = (&known, &label)
                && f.equals(l) == Some(false)
            {
                continue;
            }
            let mut path = entry.clone();
            if let (Some(v), Some(l)) = (&var, &label) {
                path.facts.insert(v.clone(), Fact::Is(l.clone()));
            }
            let mut cc = case.walk();
            let stmts: Vec<Node> = case
                .named_children(&mut cc)
                .filter(|s| Some(*s) != case.field("value"))
                .collect();
            for st in stmts {
                self.statement(st, &mut path);
            }
            // `break` ends a case, not the function.
            path.dead = path.dead && entry.dead;
            out.push(path);
        }
        if !has_default
            && known
                .as_ref()
                .is_none_or(|f| labels.iter().all(|l| f.equals(l) != Some(true)))
        {
            let mut none = entry.clone();
            if let Some(v) = &var {
                none.facts.insert(v.clone(), Fact::IsNot(labels));
            }
            out.push(none);
        }
        if out.is_empty() {
            out.push(entry);
        }
        out
    }

    fn looped(&mut self, n: Node<'t>, flow: &mut Flow) {
        if let Some(init) = n.field("initializer") {
            if is_statement(init.kind()) {
                self.statement(init, flow);
            } else {
                self.expr(init, flow, false);
            }
        }
        // `for (x : range)` reads the range's elements (a container's or an array's memory).
        let mut range = LocSet::new();
        if n.kind() == "for_range_loop"
            && let Some(r) = n.field("right")
        {
            range = self.expr(r, flow, false);
            self.access(r, &range, false, flow);
            // The loop variable is each element in turn; a reference to it, the element.
            if let Some(d) = n.field("declarator")
                && let Some(name) = declared_name(d, self.src)
            {
                let elements = self.field_value(&range, ELEMENTS, flow);
                flow.vars.insert(name.clone(), elements);
                flow.objects.remove(&name);
                if contains_kind(d, "reference_declarator") && !range.is_empty() {
                    flow.element_refs.insert(name, range.clone());
                } else {
                    flow.element_refs.remove(&name);
                }
            }
        }
        let body = n.field("body");
        let cond = n.field("condition");
        let update = n.field("update");
        let do_while = n.kind() == "do_statement";
        // The elements it visits one per round, and the work it starts.
        let items = self.loop_items(n, &range, flow);
        let loop_mark = self.mark();
        // The state at the loop head: entry joined with the end of each round.
        let mut head = flow.clone();
        if do_while && let Some(b) = body {
            self.statement(b, &mut head);
        }
        // A loop whose body waits (`for (i...) cudaStreamSynchronize(streams[i])`) is taken to
        // run at least once: it waits for what the loop before it, over the same range, issued
        // (the path where it runs zero times is the one where nothing was issued).
        let waits = !do_while && body.is_some_and(|b| self.waits_inside(b));
        let mut rounds: Option<Flow> = None;
        for _ in 0..LOOP_ROUNDS {
            let mut round = head.clone();
            if !items.is_empty() {
                let started: OpSet = self.since(loop_mark).ops.into_iter().collect();
                self.next_round(&items, &started, &mut round);
            }
            if let Some(c) = cond {
                self.expr(c, &mut round, false);
            }
            if let Some(b) = body {
                self.statement(b, &mut round);
            }
            if let Some(u) = update {
                self.expr(u, &mut round, false);
            }
            round.dead = false;
            match &mut rounds {
                Some(r) => r.join(&round),
                None => rounds = Some(round.clone()),
            }
            let mut next = head.clone();
            next.join(&round);
            if next == head {
                break;
            }
            head = next;
        }
        *flow = match rounds {
            Some(r) if waits => r,
            _ => head,
        };
        // The loop ends where its condition is tested (a `while (cudaEventQuery(e) ==
        // cudaErrorNotReady)` poll has waited by then).
        if !do_while && let Some(c) = cond {
            self.expr(c, flow, false);
        }
    }

    fn declaration(&mut self, n: Node<'t>, flow: &mut Flow) {
        let written_ty = n.field("type").map(|t| self.text(t)).unwrap_or("");
        let ty = self.classes.resolve(written_ty);
        let mut c = n.walk();
        let decls: Vec<Node> = n.children_by_field_name("declarator", &mut c).collect();
        for d in decls {
            let (declarator, value) = if d.kind() == "init_declarator" {
                (d.field("declarator"), d.field("value"))
            } else {
                (Some(d), None)
            };
            let Some(declarator) = declarator else { continue };
            let Some(name) = declared_name(declarator, self.src) else {
                continue;
            };
            let is_array = contains_kind(declarator, "array_declarator");
            let is_pointer = contains_kind(declarator, "pointer_declarator");
            let is_reference = contains_kind(declarator, "reference_declarator");
            self.var_types.insert(
                name.clone(),
                (written_ty, array_lengths(declarator, self.src), is_pointer),
            );
            if let Some(v) = value
                && v.kind() == "lambda_expression"
            {
                self.lambdas.insert(self.text(declarator), v);
            }
            // An object of a class the file defines: made, its constructor run on it.
            if !is_pointer
                && !is_reference
                && !is_array
                && let Some(class) = self.class_of_type(ty)
                && value.is_none_or(|v| !self.calls_own_function(v))
            {
                let args: Vec<Node<'t>> = match value {
                    // `Foo f(a, b);`, which the parser reads as a function's declaration.
                    None if declarator.kind() == "function_declarator" => objects::argument_nodes(declarator),
                    None => Vec::new(),
                    Some(v) if matches!(v.kind(), "argument_list" | "initializer_list") => objects::argument_nodes(v),
                    // `Foo f = Foo(a, b);`
                    Some(v)
                        if v.kind() == "call_expression"
                            && v.field("function")
                                .is_some_and(|f| self.class_of_type(self.text(f)) == Some(class)) =>
                    {
                        v.field("arguments").map(objects::argument_nodes).unwrap_or_default()
                    }
                    Some(v) => {
                        // A copy of another object: that object.
                        let vals = self.expr(v, flow, false);
                        if v.kind() == "identifier"
                            && let Some(&o) = flow.objects.get(self.text(v))
                        {
                            flow.objects.insert(name.clone(), o);
                            flow.vars.insert(name, LocSet::new());
                            continue;
                        }
                        let _ = vals;
                        Vec::new()
                    }
                };
                let o = self.loc_at(declarator, "object", Some(MemKind::Pageable), Some(name.clone()), false);
                self.construct(declarator, class, o, &args, flow, 0);
                flow.objects.insert(name.clone(), o);
                flow.vars.insert(name, LocSet::new());
                continue;
            }
            // A smart pointer made over a pointer: its deleter is checked against it.
            let smart_args = match value {
                Some(v) if matches!(v.kind(), "argument_list" | "initializer_list") => Some(objects::argument_nodes(v)),
                // `std::unique_ptr<float[]> p(raw);`, read by the parser as a function's declaration.
                None if declarator.kind() == "function_declarator" => Some(objects::argument_nodes(declarator)),
                _ => None,
            };
            if !is_pointer
                && objects::smart_pointer(ty).is_some()
                && let Some(args) = smart_args
            {
                self.smart_pointer_made(ty, &args, flow);
                let held = args.first().map(|a| self.expr(*a, flow, false)).unwrap_or_default();
                self.name_new(&held, &name);
                flow.objects.remove(&name);
                flow.vars.insert(name, held);
                continue;
            }
            let container = (!is_pointer).then(|| self.container_kind_of(ty)).flatten();
            let target = if is_array || container.is_some() {
                // Memory the variable is: a stack array, a `std::vector`'s buffer, a
                // `thrust::device_vector`'s.
                let l = self.container(declarator, container.unwrap_or(MemKind::Pageable), &name);
                if let Some(v) = value {
                    self.expr(v, flow, false);
                }
                LocSet::single(l)
            } else if let Some(v) = value {
                let mark = self.mark();
                let mut vals = self.expr(v, flow, false);
                let since = self.since(mark);
                if v.kind() == "call_expression" {
                    flow.statuses.insert(name.clone(), since);
                } else {
                    flow.statuses.remove(&name);
                }
                // `cudaStream_t s = 0;`: the legacy stream.
                if is_null(self.text(v)) && ty.contains("Stream") {
                    vals = LocSet::single(self.legacy);
                }
                if self.calls_own_function(v) {
                    self.rename(&vals, &name);
                } else {
                    self.name_new(&vals, &name);
                }
                if vals.is_empty() && is_pointer {
                    vals = LocSet::single(self.unknown);
                }
                vals
            } else {
                LocSet::new()
            };
            // A local object or scalar (not a handle): host memory of its own, for `&x`; one a
            // helper of the file returns is the helper's object.
            let returned_object = value
                .filter(|v| !is_pointer && self.calls_own_function(*v))
                .and_then(|_| {
                    let mut it = target.iter();
                    match (it.next(), it.next()) {
                        (Some(o), None) => Some(o),
                        _ => None,
                    }
                });
            // `Shard& sh = shards[g];`, `auto& cfg = job.config;`, `Entry& e = lru.back();`: a
            // reference names the object.
            let referenced = value
                .filter(|v| {
                    is_reference
                        && !is_pointer
                        && matches!(
                            v.kind(),
                            "subscript_expression" | "field_expression" | "identifier" | "call_expression"
                        )
                })
                .map(|v| match v.kind() {
                    "identifier" => match flow.objects.get(self.text(v)) {
                        Some(&o) => LocSet::single(o),
                        None => LocSet::new(),
                    },
                    // What the call returned (already run above), when it is an object.
                    "call_expression" => target
                        .iter()
                        .filter(|&o| {
                            self.object_class.contains_key(&o)
                                || flow.fields.keys().any(|(k, f)| *k == o && f != ELEMENTS)
                        })
                        .collect(),
                    _ => self.object_of(v, false, flow),
                })
                .and_then(|objs| {
                    let mut it = objs.iter();
                    match (it.next(), it.next()) {
                        (Some(o), None) => Some(o),
                        _ => None,
                    }
                });
            if let Some(o) = returned_object.or(referenced) {
                flow.objects.insert(name.clone(), o);
            } else if !is_pointer
                && !is_array
                && is_host_object_type(ty)
                && !contains_kind(declarator, "reference_declarator")
            {
                let o = self.loc_at(declarator, "object", Some(MemKind::Pageable), Some(name.clone()), false);
                flow.objects.insert(name.clone(), o);
            } else {
                flow.objects.remove(&name);
            }
            flow.facts.remove(&name);
            if let Some(v) = value
                && matches!(v.kind(), "true" | "false" | "number_literal")
            {
                flow.facts.insert(name.clone(), Fact::Is(self.text(v).to_string()));
            }
            flow.vars.insert(name, target);
        }
    }

    /// Whether a loop body calls a function that waits for the device (a stream, an event or
    /// the device synchronized), directly: not inside a nested branch.
    fn waits_inside(&self, body: Node<'t>) -> bool {
        self.waits_within(body, 0)
    }

    /// [`Self::waits_inside`], looking into the file's functions it calls, `depth` of them deep
    /// (bounded by `MAX_INLINE`).
    fn waits_within(&self, body: Node<'t>, depth: usize) -> bool {
        let is_wait = |e: &Effect| matches!(e, Effect::SyncStream(_) | Effect::SyncEvent(_) | Effect::SyncDevice);
        let mut stack = vec![body];
        let mut seen = 0;
        while let Some(n) = stack.pop() {
            seen += 1;
            if seen > 10_000 {
                return false;
            }
            match n.kind() {
                "if_statement"
                | "switch_statement"
                | "conditional_expression"
                | "lambda_expression"
                | "for_statement"
                | "while_statement"
                | "do_statement"
                | "for_range_loop" => continue,
                "call_expression" => {
                    let f = n.field("function");
                    let name = f.map(|f| callee_name(f, self.src)).unwrap_or_default();
                    let configured = f.and_then(|f| self.configured_effects(f));
                    if api::effects(&name).is_some_and(|e| e.iter().any(is_wait))
                        || configured.is_some_and(|e| e.iter().any(is_wait))
                    {
                        return true;
                    }
                    // A helper of the file that waits (`wait_for(streams[i])`), or a method of one
                    // of its classes (`w->wait()`).
                    let defs = self
                        .functions
                        .get(name.as_str())
                        .copied()
                        .into_iter()
                        .chain(self.classes.methods_named(&name));
                    for d in defs {
                        if depth < MAX_INLINE
                            && let Some(b) = d.field("body")
                            && self.waits_within(b, depth + 1)
                        {
                            return true;
                        }
                    }
                }
                _ => {}
            }
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
        }
        false
    }

    /// Whether `v` is a call of one of the file's functions (its result is named after the
    /// caller's variable: one helper called three times makes one abstract memory, and each
    /// finding should name the variable the caller uses now).
    fn calls_own_function(&self, v: Node<'t>) -> bool {
        v.kind() == "call_expression"
            && v.field("function")
                .is_some_and(|f| self.functions.contains_key(callee_name(f, self.src).as_str()))
    }

    /// Names memory after the caller's variable, whatever it was named before.
    fn rename(&mut self, vals: &LocSet, name: &str) {
        for l in vals.iter() {
            let info = &mut self.locs[l.0 as usize];
            if info.allocated {
                info.name = Some(name.to_string());
                info.named_in = self.inlined.len();
            }
        }
    }

    /// Names new memory after the variable it is first stored in.
    fn name_new(&mut self, vals: &LocSet, name: &str) {
        for l in vals.iter() {
            let info = &mut self.locs[l.0 as usize];
            if info.allocated && (info.name.is_none() || self.inlined.len() < info.named_in) {
                info.name = Some(name.to_string());
                info.named_in = self.inlined.len();
            }
        }
    }

    // ---- expressions: what a pointer value may point to ----

    fn expr(&mut self, n: Node<'t>, flow: &mut Flow, write: bool) -> LocSet {
        self.depth += 1;
        let out = if self.depth > MAX_DEPTH {
            self.too_deep.get_or_insert(n.start_byte());
            LocSet::new()
        } else {
            self.expr_inner(n, flow, write)
        };
        self.depth -= 1;
        out
    }

    fn expr_inner(&mut self, n: Node<'t>, flow: &mut Flow, write: bool) -> LocSet {
        match n.kind() {
            "this" => flow.vars.get("this").cloned().unwrap_or_default(),
            // `type_identifier`: an argument of `Foo f(a, b);`, which the parser reads as a type.
            "identifier" | "type_identifier" => match flow.vars.get(self.text(n)) {
                Some(v) => v.clone(),
                // A member named bare in a method (`this`'s field), a variable of the file.
                None => match self.named_place(self.text(n), flow) {
                    Some(objs) => self.field_value(&objs, self.text(n), flow),
                    None => LocSet::new(),
                },
            },
            "parenthesized_expression" | "cast_expression" => {
                let inner = n
                    .field("value")
                    .or_else(|| n.named_child(n.named_child_count().saturating_sub(1)));
                inner.map(|i| self.expr(i, flow, write)).unwrap_or_default()
            }
            "binary_expression" => {
                let mut out = LocSet::new();
                for f in ["left", "right"] {
                    if let Some(x) = n.field(f) {
                        out.union_with(&self.expr(x, flow, false));
                    }
                }
                let op = n.field("operator").map(|o| self.text(o)).unwrap_or("");
                if op != "+" && op != "-" {
                    return LocSet::new();
                }
                // An address past a VMM reservation's start is a view of its own (`base +
                // size` in a mirrored ring buffer); other pointers stay in their memory.
                let mut views = LocSet::new();
                // One view per reservation and offset as written (`base + size` is the same view
                // wherever it is written).
                let offset: String = n
                    .field("right")
                    .map(|r| self.text(r).split_whitespace().collect())
                    .unwrap_or_default();
                for l in out.iter() {
                    if self.locs[l.0 as usize].kind == Some(MemKind::VmmMapping) {
                        let root = self.root_of(l);
                        let key = (root, format!("{op}{offset}"));
                        let v = match self.views.get(&key) {
                            Some(&v) => v,
                            None => {
                                let v = self.loc_at(n, "view", Some(MemKind::VmmMapping), None, true);
                                self.views.insert(key, v);
                                v
                            }
                        };
                        self.locs[v.0 as usize].parent = Some(root);
                        // An offset that is neither a constant nor one name (`base + size`, the
                        // mirror of a ring) may be any: read from an element or a field
                        // (`base + c.offset`), or computed (`base + i * page_`).
                        let one_name = offset
                            .trim_start_matches("this->")
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_');
                        // One name that the code steps (`mapped_ += sz`) is a new offset each time.
                        let name = offset.trim_start_matches("this->");
                        let stepped = one_name
                            && ["+=", "-=", "++"].iter().any(|op| {
                                self.src.contains(&format!("{name} {op}"))
                                    || self.src.contains(&format!("{name}{op}"))
                                    || self.src.contains(&format!("++{name}"))
                            });
                        if (!one_name || stepped) && self.byte_count(&offset).is_none() {
                            self.locs[v.0 as usize].any_offset = true;
                        }
                        views.insert(v);
                    } else {
                        views.insert(l);
                    }
                }
                views
            }
            "conditional_expression" => {
                let mut out = LocSet::new();
                if let Some(c) = n.field("condition") {
                    self.expr(c, flow, false);
                }
                for f in ["consequence", "alternative"] {
                    if let Some(x) = n.field(f) {
                        out.union_with(&self.expr(x, flow, false));
                    }
                }
                out
            }
            "pointer_expression" => {
                let arg = n.field("argument");
                let op = n.child(0).map(|o| self.text(o)).unwrap_or("");
                match (op, arg) {
                    ("&", Some(a)) => self.address_of(a, flow),
                    ("*", Some(a)) => {
                        let target = self.expr(a, flow, false);
                        self.access(n, &target, write, flow);
                        LocSet::new()
                    }
                    _ => LocSet::new(),
                }
            }
            "subscript_expression" => {
                let target = n
                    .field("argument")
                    .map(|a| self.expr(a, flow, false))
                    .unwrap_or_default();
                if let Some(i) = n.field("indices") {
                    self.expr(i, flow, false);
                }
                self.access(n, &target, write, flow);
                // An array of pointers: what its elements hold (at a constant index stored
                // there, that element's).
                if let Some(key) = self.element_key(n) {
                    let one = self.field_value(&target, &key, flow);
                    if !one.is_empty() {
                        return one;
                    }
                }
                self.field_value(&target, ELEMENTS, flow)
            }
            "field_expression" => {
                let arg = n.field("argument");
                let arrow = self.is_arrow(n);
                let Some(a) = arg else { return LocSet::new() };
                let objs = self.object_of(a, arrow, flow);
                // `p->f`, `p[i].f`, `(*p).f`: the host reads (or writes) what `p` points to.
                let through_pointer = matches!(a.kind(), "subscript_expression")
                    || (a.kind() == "parenthesized_expression"
                        && a.named_child(0).is_some_and(|i| i.kind() == "pointer_expression"));
                if arrow || through_pointer {
                    self.access(n, &objs, write, flow);
                }
                match n.field("field") {
                    Some(f) => self.field_value(&objs, self.text(f), flow),
                    None => LocSet::new(),
                }
            }
            "assignment_expression" => {
                let mark = self.mark();
                let right = n.field("right").map(|r| self.expr(r, flow, false)).unwrap_or_default();
                // `p = ..`, `p.x = ..` for `p` a reference to a range's element (`for (auto& p :
                // v)`): the host writes the range's memory.
                if let Some(left) = n.field("left")
                    && let Some(root) = reference_root(left, self.src)
                    && let Some(range) = flow.element_refs.get(&root).cloned()
                {
                    self.access(left, &range, true, flow);
                }
                if let Some(left) = n.field("left")
                    && left.kind() == "identifier"
                {
                    let since = self.since(mark);
                    if n.field("right").is_some_and(|r| r.kind() == "call_expression") {
                        flow.statuses.insert(self.text(left).to_string(), since);
                    } else {
                        flow.statuses.remove(self.text(left));
                    }
                }
                if let Some(left) = n.field("left") {
                    // A member named bare in a method (`d_ = p;`): `this`'s field.
                    let member = (left.kind() == "identifier")
                        .then(|| self.named_place(self.text(left), flow))
                        .flatten();
                    // `obj = make_obj(..)`, `member_ = Owner::adopt(..)`: an object assigned to
                    // an object takes its members (copy or move assignment).
                    let target_object = (self.is_object(&right, flow))
                        .then(|| self.object_named(left, flow))
                        .flatten();
                    if let Some(dst) = target_object {
                        self.assign_object(&dst, &right, flow);
                    } else if let Some(objs) = member {
                        let name = self.text(left).to_string();
                        let op = n.field("operator").map(|o| self.text(o)).unwrap_or("=");
                        if op == "=" {
                            self.name_new(&right, &name);
                            self.store_field(&objs, &name, &right, flow);
                        }
                    } else if left.kind() == "identifier" {
                        let name = self.text(left).to_string();
                        if n.field("right").is_some_and(|r| self.calls_own_function(r)) {
                            self.rename(&right, &name);
                        } else {
                            self.name_new(&right, &name);
                        }
                        let op = n.field("operator").map(|o| self.text(o)).unwrap_or("=");
                        flow.facts.remove(&name);
                        if op == "="
                            && let Some(r) = n.field("right")
                            && matches!(r.kind(), "true" | "false" | "number_literal")
                        {
                            flow.facts.insert(name.clone(), Fact::Is(self.text(r).to_string()));
                        }
                        if op == "=" {
                            let value = if right.is_empty() {
                                LocSet::single(self.unknown)
                            } else {
                                right.clone()
                            };
                            // `p = x` for `p` a reference to a range's element.
                            if let Some(range) = flow.element_refs.get(&name).cloned() {
                                self.store_field(&range, ELEMENTS, &value, flow);
                            }
                            flow.vars.insert(name, value);
                        }
                    } else {
                        let op = n.field("operator").map(|o| self.text(o)).unwrap_or("=");
                        // `h[i] += x` reads before it writes.
                        if op != "=" {
                            self.expr(left, flow, false);
                        }
                        self.expr(left, flow, true);
                        self.store_through(left, &right, flow);
                    }
                }
                right
            }
            "update_expression" => {
                if let Some(a) = n.field("argument")
                    && a.kind() != "identifier"
                {
                    self.expr(a, flow, true);
                }
                LocSet::new()
            }
            "call_expression" => self.call(n, flow),
            "new_expression" => {
                // `new Foo(args)` of a class the file defines: an object, constructed.
                if let Some(ty) = n.field("type")
                    && let Some(class) = self.class_of_type(self.text(ty))
                    && n.field("declarator").is_none()
                {
                    let args = n.field("arguments").map(objects::argument_nodes).unwrap_or_default();
                    let o = self.new_object(n, class, &args, flow);
                    for l in o.iter() {
                        self.locs[l.0 as usize].allocated = true;
                        self.locs[l.0 as usize].allocator = Some(cuda_lint_machine::Allocator::CppNew);
                    }
                    return o;
                }
                let l = self.loc_at(n, "new", Some(MemKind::Pageable), None, true);
                self.locs[l.0 as usize].allocator = Some(cuda_lint_machine::Allocator::CppNew);
                LocSet::single(l)
            }
            "delete_expression" => {
                let mut c = n.walk();
                let targets: Vec<Node> = n.named_children(&mut c).collect();
                for t in targets {
                    let v = self.expr(t, flow, false);
                    // An object of the file's classes: its destructor runs first.
                    for o in v.iter() {
                        if self.object_class.contains_key(&o) {
                            self.destroy(n, o, flow, 0);
                        }
                    }
                    let mem = self.memory(&v);
                    if !mem.is_empty() && !v.contains(self.unknown) {
                        self.emit(
                            n,
                            Event::Dealloc {
                                regions: &mem,
                                by: cuda_lint_machine::Allocator::CppNew,
                            },
                            flow,
                        );
                    }
                    if !mem.is_empty() {
                        self.emit(
                            n,
                            Event::HostAccess {
                                regions: &mem,
                                access: Access::Free,
                            },
                            flow,
                        );
                    }
                }
                LocSet::new()
            }
            // Unevaluated operands: `sizeof(*p)` reads nothing.
            "sizeof_expression" | "alignof_expression" | "decltype" | "offsetof_expression" => LocSet::new(),
            "comma_expression" | "argument_list" | "initializer_list" | "unary_expression" => {
                let mut c = n.walk();
                let parts: Vec<Node> = n.named_children(&mut c).collect();
                let mut last = LocSet::new();
                for p in parts {
                    last = self.expr(p, flow, false);
                }
                if n.kind() == "comma_expression" {
                    last
                } else {
                    LocSet::new()
                }
            }
            "lambda_expression" => LocSet::new(),
            _ => {
                let mut c = n.walk();
                let parts: Vec<Node> = n.named_children(&mut c).collect();
                for p in parts {
                    self.expr(p, flow, false);
                }
                LocSet::new()
            }
        }
    }

    /// `&x`: the address of variable `x`'s memory when `x` is memory (an array), or of what
    /// `x[i]` is part of.
    fn address_of(&mut self, a: Node<'t>, flow: &mut Flow) -> LocSet {
        // Whatever was known of the variable, its address lets a callee change it.
        if a.kind() == "identifier" {
            flow.facts.remove(self.text(a));
        }
        match a.kind() {
            "subscript_expression" => a
                .field("argument")
                .map(|x| self.expr(x, flow, false))
                .unwrap_or_default(),
            // `&s.count`, `&model->mean_loss`: a field inside an object's host memory (a pointer
            // field's own value is what `s.f` reads, not its address).
            "field_expression" => {
                let arrow = self.is_arrow(a);
                let objs = match a.field("argument") {
                    Some(x) => self.object_of(x, arrow, flow),
                    None => LocSet::new(),
                };
                objs.iter()
                    .filter(|l| self.locs[l.0 as usize].kind == Some(MemKind::Pageable))
                    .collect()
            }
            "identifier" if flow.objects.contains_key(self.text(a)) => flow
                .objects
                .get(self.text(a))
                .map(|o| LocSet::single(*o))
                .unwrap_or_default(),
            // `&count_` of a member in a method: inside `this`'s object.
            "identifier" if self.named_place(self.text(a), flow).is_some() => self
                .member_objects(self.text(a), flow)
                .unwrap_or_default()
                .iter()
                .filter(|l| self.locs[l.0 as usize].kind == Some(MemKind::Pageable))
                .collect(),
            "identifier" => {
                let v = flow.vars.get(self.text(a)).cloned().unwrap_or_default();
                // Only an array's own memory: `&p` of a pointer is the variable, not its target.
                v.iter()
                    .filter(|l| self.locs[l.0 as usize].origin.start == a.start_byte() as u32)
                    .collect()
            }
            _ => LocSet::new(),
        }
    }

    fn root_of(&self, l: Loc) -> Loc {
        self.locs[l.0 as usize].parent.unwrap_or(l)
    }

    /// The VMM mappings among `vals`.
    fn mappings(&self, vals: &LocSet) -> LocSet {
        vals.iter()
            .filter(|l| self.locs[l.0 as usize].kind == Some(MemKind::VmmMapping))
            .collect()
    }

    /// The memory locations among `vals`.
    fn memory(&self, vals: &LocSet) -> LocSet {
        vals.iter().filter(|l| self.locs[l.0 as usize].kind.is_some()).collect()
    }

    fn access(&mut self, at: Node<'t>, target: &LocSet, write: bool, flow: &Flow) {
        let mut mem = self.memory(target);
        mem.retain(|l| !self.locs[l.0 as usize].copies_on_access);
        if mem.is_empty() {
            return;
        }
        let access = if write { Access::Write } else { Access::Read };
        self.emit(at, Event::HostAccess { regions: &mem, access }, flow);
    }

    fn call(&mut self, n: Node<'t>, flow: &mut Flow) -> LocSet {
        let func = n.field("function");
        let args: Vec<Node> = match n.field("arguments") {
            Some(list) => {
                let mut c = list.walk();
                list.named_children(&mut c).filter(|a| a.kind() != "comment").collect()
            }
            None => Vec::new(),
        };
        let name = func.map(|f| callee_name(f, self.src)).unwrap_or_default();
        // C++'s named casts are casts: the value passes through.
        if matches!(
            name.as_str(),
            "static_cast" | "reinterpret_cast" | "const_cast" | "dynamic_cast" | "std::move" | "raw_pointer_cast"
        ) && let [value] = args.as_slice()
        {
            let v = self.expr(*value, flow, false);
            // `thrust::raw_pointer_cast(d.data())`: a raw pointer into a device container,
            // which reads device memory when the host dereferences it (no reference proxy).
            if name == "raw_pointer_cast" {
                return v.iter().map(|l| self.raw_view(l)).collect();
            }
            return v;
        }
        // A variable passed by name may be a C++ reference the callee changes.
        for a in &args {
            if a.kind() == "identifier" {
                flow.facts.remove(self.text(*a));
            }
        }
        // The process ends here: no path goes on (`exit(1)`, `std::terminate()`; not a method
        // that happens to be named so, `plugin.terminate()`).
        if matches!(
            name.as_str(),
            "exit" | "abort" | "_exit" | "_Exit" | "quick_exit" | "terminate"
        ) && func.is_some_and(|f| matches!(f.kind(), "identifier" | "qualified_identifier"))
            && !self.functions.contains_key(name.as_str())
            && self.method_call_target(func, flow).is_none()
        {
            for a in &args {
                self.expr(*a, flow, false);
            }
            flow.dead = true;
            return LocSet::new();
        }
        // A kernel launch: `kernel<<<grid, block, shared, stream>>>(args)`.
        let mut c = n.walk();
        if let Some(launch) = n.children(&mut c).find(|k| k.kind() == "kernel_call_syntax") {
            return self.launch(n, &name, launch, &args, flow);
        }
        // A function `cuda-lint.toml` describes: its effects, whatever the file says of it. In a
        // method call (`q.finish()`) the object is argument 0.
        if let Some(f) = func
            && let Some(effects) = self.configured_effects(f)
        {
            let mut all = Vec::new();
            if f.kind() == "field_expression"
                && let Some(object) = f.field("argument")
            {
                all.push(object);
            }
            all.extend(args.iter().copied());
            return self.apply(n, &effects, &all, flow);
        }
        if let Some(out) = self.launch_through_api(n, &name, &args, flow) {
            return out;
        }
        // `std::fill(v.begin(), v.end(), 0)`: the algorithm reads or writes the memory its
        // iterators are in (`std::move(x)` with one argument is a cast, handled above).
        if let Some(f) = func
            && self.text(f).trim_start().starts_with("std::")
            && args.len() >= 2
            && let Some(effects) = api::std_algorithm(&name)
        {
            return self.apply(n, effects, &args, flow);
        }
        // A method of the file's classes, run on its object.
        if let Some(f) = func
            && let Some(out) = self.method_call(n, f, &args, flow)
        {
            return out;
        }
        // `std::make_unique<Foo>(args)`, `Foo(args)`, `std::shared_ptr<T>(raw, deleter)`.
        if let Some(f) = func
            && let Some(out) = self.made_by_call(n, f, &name, &args, flow)
        {
            return out;
        }
        // `v.data()`, `v.size()`: what the object is.
        if let Some(f) = func
            && f.kind() == "field_expression"
        {
            let object = f
                .field("argument")
                .map(|o| self.expr(o, flow, false))
                .unwrap_or_default();
            let vals: Vec<LocSet> = args.iter().map(|a| self.expr(*a, flow, false)).collect();
            let pushes = matches!(
                name.as_str(),
                "push_back" | "emplace_back" | "push_front" | "emplace_front" | "push" | "emplace" | "insert"
            );
            let containers: LocSet = object
                .iter()
                .filter(|l| self.locs[l.0 as usize].kind.is_some())
                .collect();
            // `v.push_back(p)`: a container's elements now include what `p` points to.
            if pushes
                && let Some(last) = vals.last()
                && !last.is_empty()
            {
                self.store_field(&containers, ELEMENTS, last, flow);
            }
            // `v.push_back(entry)` of an object: the container's element object (the container
            // itself, one for all its elements) holds what the entry's fields hold.
            if pushes
                && let Some(&last) = args.last()
                && let Some(src) = self.object_named(last, flow)
            {
                let copied: Vec<(String, LocSet)> = flow
                    .fields
                    .iter()
                    .filter(|((o, _), _)| src.contains(*o))
                    .map(|((_, f), v)| (f.clone(), v.clone()))
                    .collect();
                for c in containers.iter() {
                    for (f, v) in &copied {
                        flow.fields.entry((c, f.clone())).or_default().union_with(v);
                    }
                }
            }
            // `v[i]`, `v.at(i)`, `v.front()`, `v.back()`: of a container of pointers its
            // elements; of a container of structs, its element object.
            if matches!(name.as_str(), "at" | "front" | "back" | "top") {
                let elements = self.field_value(&object, ELEMENTS, flow);
                if elements.is_empty()
                    && containers
                        .iter()
                        .any(|c| flow.fields.keys().any(|(o, f)| *o == c && f != ELEMENTS))
                {
                    return containers;
                }
                return elements;
            }
            return if matches!(name.as_str(), "data" | "begin" | "get") {
                object
            } else {
                LocSet::new()
            };
        }
        let Some(effects) = api::effects(&name) else {
            let vals: Vec<LocSet> = args
                .iter()
                .map(|a| {
                    // An object handed by reference (`init(st)` for `void init(State& s)`).
                    if let Some(o) = self.object_named(*a, flow) {
                        return o;
                    }
                    self.expr(*a, flow, false)
                })
                .collect();
            // A function of the file: run inline (not recursively, not too deep).
            if let Some((&fname, &def)) = self.functions.get_key_value(name.as_str())
                && self.inlined.len() < MAX_INLINE
                && !self.inlined.contains(&fname)
                && self.within_budget(n)
            {
                let texts: Vec<String> = args.iter().map(|a| self.argument_text(*a)).collect();
                return self.inline_method(n.start_byte() as u32, fname, def, None, &vals, &texts, flow);
            }
            return LocSet::new();
        };
        self.apply(n, effects, &args, flow)
    }

    /// The effects `cuda-lint.toml` gives the function called as `f`, if any.
    fn configured_effects(&self, f: Node<'t>) -> Option<Vec<Effect>> {
        let written = match f.kind() {
            "field_expression" => f.field("field").map(|n| self.text(n).to_string()),
            "template_function" => f.field("name").map(|n| self.text(n).to_string()),
            "identifier" => Some(self.text(f).to_string()),
            "qualified_identifier" => {
                let text = self.text(f);
                // `ns::f<T>` is `ns::f`.
                Some(text.split('<').next().unwrap_or(text).split_whitespace().collect())
            }
            _ => None,
        }?;
        self.configured.lookup(&written).map(<[Effect]>::to_vec)
    }

    /// Applies a called function's effects to its arguments; returns what it returns.
    fn apply(&mut self, n: Node<'t>, effects: &[Effect], args: &[Node<'t>], flow: &mut Flow) -> LocSet {
        let vals: Vec<LocSet> = args.iter().map(|a| self.expr(*a, flow, false)).collect();
        self.apply_values(n, effects, args, &vals, flow)
    }

    /// [`Self::apply`] with the arguments' values known (`vals`).
    fn apply_values(
        &mut self,
        n: Node<'t>,
        effects: &[Effect],
        args: &[Node<'t>],
        vals: &[LocSet],
        flow: &mut Flow,
    ) -> LocSet {
        let arg = |i: usize| vals.get(i).cloned().unwrap_or_default();
        // A deleter checked where a smart pointer takes the memory: which allocator its
        // release is for, nothing else.
        if self.checking_release {
            for e in effects {
                let (mem, by) = match *e {
                    Effect::Free { mem, by, .. } => (mem, by),
                    Effect::FreeOnStream { mem, .. } => (mem, cuda_lint_machine::Allocator::Device),
                    _ => continue,
                };
                let m = self.memory(&arg(mem));
                if !m.is_empty() && !arg(mem).contains(self.unknown) {
                    self.emit(n, Event::Dealloc { regions: &m, by }, flow);
                }
            }
            return LocSet::new();
        }
        let mut ret = LocSet::new();
        for e in effects {
            match *e {
                Effect::AllocOut { out, kind, by } => {
                    let l = self.loc_at(n, "alloc", Some(kind), None, true);
                    self.locs[l.0 as usize].allocator = Some(by);
                    if kind == MemKind::Pinned
                        && let Some(flags) = args.get(2)
                        && self
                            .argument_text(*flags)
                            .to_ascii_lowercase()
                            .contains("writecombined")
                    {
                        self.locs[l.0 as usize].write_combined = true;
                    }
                    if kind == MemKind::Managed
                        && let Some(flags) = args.get(2)
                        && self.argument_text(*flags).contains("AttachHost")
                    {
                        self.locs[l.0 as usize].attached = true;
                    }
                    self.store_out(args.get(out).copied(), l, flow, false);
                }
                Effect::AllocRet { kind, by } => {
                    let l = self.loc_at(n, "alloc", Some(kind), None, true);
                    self.locs[l.0 as usize].allocator = Some(by);
                    ret.insert(l);
                }
                Effect::AttachMem { mem, flags, stream } => {
                    let text = args.get(flags).map(|f| self.argument_text(*f)).unwrap_or_default();
                    let attached = !text.contains("Global") && !text.contains("GLOBAL");
                    // Attached to one stream, its kernels take the memory.
                    let streams = if text.contains("Single") || text.contains("SINGLE") {
                        self.streams_of(args.get(stream).copied(), &arg(stream))
                    } else {
                        LocSet::new()
                    };
                    for l in self.memory(&arg(mem)).iter() {
                        self.locs[l.0 as usize].attached = attached;
                        self.locs[l.0 as usize].attached_streams = streams.clone();
                    }
                }
                Effect::HostAccess { mem, write } => {
                    self.access(n, &arg(mem), write, flow);
                }
                Effect::Returns { kind } => {
                    ret.insert(self.loc_at(n, "alloc", Some(kind), None, true));
                }
                Effect::Free { mem, by, waits } => {
                    let m = self.memory(&arg(mem));
                    if m.is_empty() {
                        continue;
                    }
                    if !arg(mem).contains(self.unknown) {
                        self.emit(n, Event::Dealloc { regions: &m, by }, flow);
                    }
                    if waits {
                        let users = self.machine.users(&flow.m, &m, &FileRegions { locs: &self.locs });
                        flow.m.finish(&users);
                    } else {
                        self.emit(
                            n,
                            Event::HostAccess {
                                regions: &m,
                                access: Access::Free,
                            },
                            flow,
                        );
                    }
                }
                Effect::Copy {
                    dst,
                    src,
                    kind,
                    dir,
                    stream,
                } => {
                    let dir = match kind.and_then(|k| args.get(k)) {
                        Some(k) => api::copy_kind(self.text(*k).trim()).unwrap_or(Dir::Unknown),
                        None => dir,
                    };
                    let (d, s) = (self.memory(&arg(dst)), self.memory(&arg(src)));
                    let dir = if dir == Dir::Unknown {
                        self.infer_dir(&d, &s)
                    } else {
                        dir
                    };
                    let streams = match stream {
                        Some(i) => self.streams_of(args.get(i).copied(), &arg(i)),
                        None => LocSet::single(self.legacy),
                    };
                    // A copy captured into a graph does not run here (it runs, staged or not, when
                    // the graph is launched): nothing to say of the call.
                    let captured = !streams.is_empty() && streams.iter().all(|x| flow.capturing.contains(x));
                    if stream.is_some() && !captured {
                        let (host, host_arg) = match dir {
                            Dir::HostToDevice => (s.clone(), args.get(src)),
                            Dir::DeviceToHost => (d.clone(), args.get(dst)),
                            _ => (LocSet::new(), None),
                        };
                        if !host.is_empty() {
                            // A one-dimensional copy's byte count follows its two pointers; a copy
                            // to or from one local object (`&out` of `T out;`) is that object.
                            let bytes = (dst == 0 && src == 1)
                                .then(|| args.get(2))
                                .flatten()
                                .and_then(|c| self.byte_count(self.text(*c)))
                                .or_else(|| host_arg.and_then(|a| self.single_object_bytes(*a)));
                            let host_arg = host_arg.map(|a| self.site(*a));
                            self.emit(
                                n,
                                Event::AsyncCopy {
                                    host: &host,
                                    dir,
                                    host_arg,
                                    bytes,
                                    advice: &ADVICE,
                                },
                                flow,
                            );
                        }
                    }
                    // From pageable memory the call returns once the data is staged: the copy no
                    // longer reads the host buffer (CUDA's API sync behavior).
                    let staged = dir == Dir::HostToDevice
                        && !s.is_empty()
                        && s.iter().all(|l| {
                            self.locs[l.0 as usize].kind == Some(MemKind::Pageable)
                                && !flow.m.registered_may.contains(self.root_of(l))
                                && !flow.m.registered_may.contains(l)
                        });
                    let reads = if staged { LocSet::new() } else { s.clone() };
                    self.enqueue(
                        n,
                        OpKind::Copy,
                        &streams,
                        &reads,
                        &d,
                        stream.and_then(|i| args.get(i).copied()),
                        flow,
                    );
                    if stream.is_none() {
                        self.machine.sync_streams(&mut flow.m, &streams);
                    }
                }
                Effect::Memset { dst, stream } => {
                    let d = self.memory(&arg(dst));
                    let streams = match stream {
                        Some(i) => self.streams_of(args.get(i).copied(), &arg(i)),
                        None => LocSet::single(self.legacy),
                    };
                    self.enqueue(
                        n,
                        OpKind::Memset,
                        &streams,
                        &LocSet::new(),
                        &d,
                        stream.and_then(|i| args.get(i).copied()),
                        flow,
                    );
                    if stream.is_none() {
                        self.machine.sync_streams(&mut flow.m, &streams);
                    }
                }
                Effect::StreamCreate { out, flags } => {
                    let l = self.loc_at(n, "stream", None, None, true);
                    if let Some(f) = flags.and_then(|f| args.get(f)) {
                        // Through a parameter, a named constant or a macro (`STREAM_FLAGS`).
                        let t = self.argument_text(*f);
                        if t.contains("NonBlocking") || t.contains("NON_BLOCKING") || t.trim() == "1" {
                            self.machine.set_non_blocking(l);
                        }
                    }
                    self.store_out(args.get(out).copied(), l, flow, true);
                }
                Effect::EventCreate { out } => {
                    let l = self.loc_at(n, "event", None, None, true);
                    self.store_out(args.get(out).copied(), l, flow, true);
                }
                Effect::SyncStream(i) => {
                    let streams = self.streams_of(args.get(i).copied(), &arg(i));
                    self.machine.sync_streams(&mut flow.m, &streams);
                }
                Effect::SyncEvent(i) => {
                    let events = arg(i);
                    if events.is_empty() {
                        self.machine.sync_all(&mut flow.m);
                    } else {
                        self.machine.sync_events(&mut flow.m, &events);
                    }
                }
                Effect::SyncDevice => self.machine.sync_all(&mut flow.m),
                Effect::RecordEvent { event, stream } => {
                    let streams = self.streams_of(args.get(stream).copied(), &arg(stream));
                    // An event recorded in a capture belongs to the graph.
                    if !streams.is_empty() && streams.iter().all(|s| flow.capturing.contains(s)) {
                        flow.capturing.union_with(&arg(event));
                        continue;
                    }
                    self.machine.record_events(&mut flow.m, &arg(event), &streams);
                }
                Effect::StreamWaitEvent { stream, event } => {
                    let streams = self.streams_of(args.get(stream).copied(), &arg(stream));
                    // A stream that waits for a captured event joins the capture (CUDA's
                    // cross-stream capture): its work is recorded into the graph too.
                    let events = arg(event);
                    if !events.is_empty() && events.iter().all(|e| flow.capturing.contains(e)) {
                        flow.capturing.union_with(&streams);
                        continue;
                    }
                    self.machine.wait_events(&mut flow.m, &streams, &events);
                }
                Effect::Register(i) => {
                    let m = self.memory(&arg(i));
                    self.machine.register_in_place(&mut flow.m, &m);
                }
                Effect::PhysicalOut { out } | Effect::ReserveOut { out } => {
                    let (what, kind) = match *e {
                        Effect::PhysicalOut { .. } => ("physical", None),
                        _ => ("reserve", Some(MemKind::VmmMapping)),
                    };
                    let l = self.loc_at(n, what, kind, None, true);
                    self.store_out(args.get(out).copied(), l, flow, false);
                }
                Effect::MapAt { va, physical } => {
                    let phys: LocSet = arg(physical)
                        .iter()
                        .filter(|l| self.locs[l.0 as usize].kind.is_none())
                        .collect();
                    let views = self.mappings(&arg(va));
                    for v in views.iter() {
                        self.locs[v.0 as usize].physical.union_with(&phys);
                        self.locs[v.0 as usize].origin = self.site(n);
                    }
                    if !views.is_empty() {
                        // A place at an offset that may be any (`base + handles_.size() * page_`)
                        // may be a new one each time: not mapped before, as far as is known.
                        let anywhere: LocSet = views.iter().filter(|v| self.locs[v.0 as usize].any_offset).collect();
                        flow.m.mapped_must.subtract(&anywhere);
                        flow.m.mapped_may.subtract(&anywhere);
                        self.emit(n, Event::Map { views: &views }, flow);
                        self.machine.map(&mut flow.m, &views);
                        self.started.mapped.push(views.clone());
                    }
                }
                Effect::SetAccess { va } => {
                    let at = self.mappings(&arg(va));
                    self.machine
                        .set_access(&mut flow.m, &at, &FileRegions { locs: &self.locs });
                }
                Effect::Unmap { va } => {
                    let mut at = self.mappings(&arg(va));
                    // At an offset that may be any: it may unmap any mapping of the reservation.
                    let roots: Vec<Loc> = at
                        .iter()
                        .filter(|l| self.locs[l.0 as usize].any_offset)
                        .map(|l| self.root_of(l))
                        .collect();
                    for root in roots {
                        at.insert(root);
                        let views: Vec<Loc> = self
                            .views
                            .iter()
                            .filter(|((r, _), _)| *r == root)
                            .map(|(_, &v)| v)
                            .collect();
                        for v in views {
                            at.insert(v);
                        }
                    }
                    if !at.is_empty() {
                        self.emit(
                            n,
                            Event::HostAccess {
                                regions: &at,
                                access: Access::Free,
                            },
                            flow,
                        );
                    }
                    self.machine.unmap(&mut flow.m, &at, &FileRegions { locs: &self.locs });
                }
                Effect::AddressFree { va } => {
                    let at = self.mappings(&arg(va));
                    if !at.is_empty() {
                        self.emit(n, Event::AddressFree { regions: &at }, flow);
                    }
                }
                Effect::FreeOnStream { mem, stream } => {
                    let m = self.memory(&arg(mem));
                    if m.is_empty() {
                        continue;
                    }
                    if !arg(mem).contains(self.unknown) {
                        let by = cuda_lint_machine::Allocator::Device;
                        self.emit(n, Event::Dealloc { regions: &m, by }, flow);
                    }
                    let streams = self.streams_of(args.get(stream).copied(), &arg(stream));
                    let exempt = cuda_lint_machine::OpSet::new();
                    let event = Event::FreeOnStreams {
                        regions: &m,
                        streams: &streams,
                        exempt: &exempt,
                    };
                    self.emit(n, event, flow);
                }
                // A query waits only when polled: in a loop, until the work is done.
                Effect::QueryStream(_) | Effect::QueryEvent(_) if !in_loop(n) => {}
                Effect::QueryStream(i) => {
                    let streams = self.streams_of(args.get(i).copied(), &arg(i));
                    self.machine.sync_streams(&mut flow.m, &streams);
                }
                Effect::QueryEvent(i) => {
                    let events = arg(i);
                    if events.is_empty() {
                        self.machine.sync_all(&mut flow.m);
                    } else {
                        self.machine.sync_events(&mut flow.m, &events);
                    }
                }
                Effect::BeginCapture(i) => {
                    let streams = self.streams_of(args.get(i).copied(), &arg(i));
                    flow.capturing.union_with(&streams);
                }
                Effect::EndCapture(i) => {
                    // The capture ends for its origin stream and every stream that joined it.
                    let _ = i;
                    flow.capturing = LocSet::new();
                }
                Effect::Unregister(i) => {
                    let m = self.memory(&arg(i));
                    if !arg(i).contains(self.unknown) {
                        self.emit(n, Event::Unregister { regions: &m }, flow);
                    }
                    self.machine
                        .unregister(&mut flow.m, &m, &FileRegions { locs: &self.locs });
                }
            }
        }
        ret
    }

    /// The direction of a `cudaMemcpyDefault` copy from the kinds of its sides.
    fn infer_dir(&self, dst: &LocSet, src: &LocSet) -> Dir {
        let device = |s: &LocSet| {
            s.iter()
                .any(|l| self.locs[l.0 as usize].kind.is_some_and(MemKind::is_device_only))
        };
        let host = |s: &LocSet| {
            s.iter().any(|l| {
                matches!(
                    self.locs[l.0 as usize].kind,
                    Some(MemKind::Pageable | MemKind::Pinned | MemKind::Unknown)
                )
            })
        };
        match (host(dst), device(dst), host(src), device(src)) {
            (true, _, _, true) => Dir::DeviceToHost,
            (_, true, true, _) => Dir::HostToDevice,
            (_, true, _, true) => Dir::DeviceToDevice,
            _ => Dir::Unknown,
        }
    }

    /// The streams an argument names: `0`/`NULL`/`cudaStreamLegacy` is the legacy stream; a
    /// stream the analysis did not see created is not known (empty: any stream).
    fn streams_of(&self, arg: Option<Node<'t>>, vals: &LocSet) -> LocSet {
        match arg {
            None => LocSet::single(self.legacy),
            Some(a) if is_null(self.text(a)) || self.text(a).contains("cudaStreamLegacy") => {
                LocSet::single(self.legacy)
            }
            Some(_) => vals.iter().filter(|l| self.locs[l.0 as usize].kind.is_none()).collect(),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn enqueue(
        &mut self,
        n: Node<'t>,
        kind: OpKind,
        streams: &LocSet,
        reads: &LocSet,
        writes: &LocSet,
        stream_arg: Option<Node<'_>>,
        flow: &mut Flow,
    ) -> Option<OpId> {
        let key = (self.call_sites.clone(), n.start_byte() as u32);
        if !streams.is_empty() && streams.iter().all(|s| flow.capturing.contains(s)) {
            // Captured into a graph: it runs when the graph is launched.
            return None;
        }
        let op = match self.op_by_site.get(&key) {
            Some(&op) => op,
            None => {
                let op = self.machine.new_op(kind, &ADVICE);
                let name = stream_arg
                    .map(|a| self.text(a).trim().to_string())
                    .filter(|t| !is_null(t));
                self.op_sites.push((self.site(n), name));
                self.op_by_site.insert(key, op);
                op
            }
        };
        self.machine.add_uses(op, streams, reads, writes);
        if std::mem::take(&mut self.launch_writes_unseen) {
            self.machine.set_writes_unseen(op);
        }
        self.emit(n, Event::Enqueue { op }, flow);
        self.machine.start(&mut flow.m, op);
        self.started.ops.push(op);
        Some(op)
    }

    fn launch(&mut self, n: Node<'t>, name: &str, config: Node<'t>, args: &[Node<'t>], flow: &mut Flow) -> LocSet {
        let mut c = config.walk();
        let conf: Vec<Node> = config.named_children(&mut c).collect();
        for x in &conf {
            self.expr(*x, flow, false);
        }
        let stream_arg = conf.get(3).copied();
        let streams = self.launch_streams(stream_arg, flow);
        let slots: Vec<LocSet> = args.iter().map(|a| self.memory_of(*a, flow)).collect();
        // A lambda given to the kernel (`kernel<<<..>>>(functor)` with `[=](int i) { d[i] = ..; }`)
        // uses the memory it captured: read, and written where its body writes through it.
        let mut captured = (LocSet::new(), LocSet::new());
        for a in args {
            let lambda = match a.kind() {
                "lambda_expression" => Some(*a),
                "identifier" => self.lambdas.get(self.text(*a)).copied(),
                _ => None,
            };
            if let Some(l) = lambda {
                let (r, w) = self.lambda_uses(l, flow);
                captured.0.union_with(&r);
                captured.1.union_with(&w);
            }
        }
        self.launch_with(n, name, slots, captured, streams, stream_arg, flow)
    }

    /// `cudaLaunchKernel((void*)k, grid, block, args, shmem, stream)` (and
    /// `cudaLaunchCooperativeKernel`): a launch of `k` whose arguments are the variables the
    /// `void* args[] = {&a, &b}` array of the function lists. `None`: not such a call.
    fn launch_through_api(&mut self, n: Node<'t>, name: &str, args: &[Node<'t>], flow: &mut Flow) -> Option<LocSet> {
        // `cudaLaunchKernelEx(&config, kernel, a, b, ...)`: the arguments as written, the stream
        // in the configuration's `stream` field.
        if name == "cudaLaunchKernelEx" && args.len() >= 2 {
            let kernel = self
                .text(strip_casts(args[1], self.src)?)
                .trim_start_matches('&')
                .trim()
                .to_string();
            let config = strip_casts(args[0], self.src)?;
            let objs = match config.kind() {
                "pointer_expression" => match config.field("argument") {
                    Some(x) => self.address_of_object(x, flow),
                    None => LocSet::new(),
                },
                _ => self.expr(config, flow, false),
            };
            let streams = self.field_value(&objs, "stream", flow);
            let streams: LocSet = streams
                .iter()
                .filter(|l| self.locs[l.0 as usize].kind.is_none())
                .collect();
            let slots: Vec<LocSet> = args[2..].iter().map(|a| self.memory_of(*a, flow)).collect();
            let streams = if streams.is_empty() {
                LocSet::single(self.legacy)
            } else {
                streams
            };
            return Some(self.launch_with(n, &kernel, slots, Default::default(), streams, None, flow));
        }
        // `cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shmem, stream, params, extra)`: a kernel
        // loaded from a module, whose source is not in the file.
        let (kernel, stream_at, array_at) = match name {
            "cudaLaunchKernel" | "cudaLaunchCooperativeKernel" if args.len() >= 4 => {
                let k = strip_casts(args[0], self.src)?;
                (self.text(k).trim_start_matches('&').trim().to_string(), 5, 3)
            }
            "cuLaunchKernel" | "cuLaunchCooperativeKernel" if args.len() >= 10 => {
                (self.text(args[0]).trim().to_string(), 8, 9)
            }
            _ => return None,
        };
        for (i, a) in args.iter().enumerate().skip(1) {
            if i != array_at {
                self.expr(*a, flow, false);
            }
        }
        let stream_arg = args.get(stream_at).copied();
        let streams = self.launch_streams(stream_arg, flow);
        // The argument array: its initializer in this function, each element `&x`.
        let array = self.text(strip_casts(args[array_at], self.src)?).to_string();
        let list = self.initializer_of(n, &array)?;
        let mut c = list.walk();
        let elements: Vec<Node> = list.named_children(&mut c).collect();
        let slots: Vec<LocSet> = elements
            .iter()
            .map(|e| {
                let target = strip_casts(*e, self.src)
                    .filter(|t| t.kind() == "pointer_expression")
                    .and_then(|t| t.field("argument"));
                match target {
                    Some(x) => self.memory_of(x, flow),
                    None => LocSet::new(),
                }
            })
            .collect();
        Some(self.launch_with(n, &kernel, slots, Default::default(), streams, stream_arg, flow))
    }

    /// Whether a field expression is `p->f` (else `s.f`).
    fn is_arrow(&self, field_expression: Node<'t>) -> bool {
        field_expression.field("operator").is_some_and(|o| self.text(o) == "->")
    }

    /// The streams a launch's stream argument names (none given: the legacy default stream).
    fn launch_streams(&mut self, stream_arg: Option<Node<'t>>, flow: &mut Flow) -> LocSet {
        match stream_arg {
            Some(s) => {
                let v = self.expr(s, flow, false);
                self.streams_of(Some(s), &v)
            }
            None => LocSet::single(self.legacy),
        }
    }

    /// The memory an argument points to.
    fn memory_of(&mut self, a: Node<'t>, flow: &mut Flow) -> LocSet {
        let v = self.expr(a, flow, false);
        self.memory(&v)
    }

    /// `&x` of a local object (a launch configuration): its location.
    fn address_of_object(&mut self, x: Node<'t>, flow: &mut Flow) -> LocSet {
        match x.kind() {
            "identifier" => flow
                .objects
                .get(self.text(x))
                .map(|o| LocSet::single(*o))
                .unwrap_or_default(),
            _ => LocSet::new(),
        }
    }

    /// The initializer list of the array `name` declared in the function around `at`.
    fn initializer_of<'n>(&self, at: Node<'n>, name: &str) -> Option<Node<'n>> {
        let mut f = at;
        while f.kind() != "function_definition" {
            f = f.parent()?;
        }
        let mut stack = vec![f.field("body")?];
        let mut seen = 0;
        while let Some(x) = stack.pop() {
            seen += 1;
            if seen > 20_000 {
                return None;
            }
            if x.kind() == "init_declarator"
                && x.field("declarator")
                    .and_then(|d| declared_name(d, self.src))
                    .as_deref()
                    == Some(name)
                && let Some(v) = x.field("value")
                && v.kind() == "initializer_list"
            {
                return Some(v);
            }
            let mut c = x.walk();
            stack.extend(x.named_children(&mut c));
        }
        None
    }

    /// The memory a lambda captured from the variables in scope: what its body names, and of
    /// that what it writes through (`d[i] = ..`, `*p = ..`, `p->f = ..`).
    fn lambda_uses(&self, lambda: Node<'t>, flow: &Flow) -> (LocSet, LocSet) {
        let (mut reads, mut writes) = (LocSet::new(), LocSet::new());
        let Some(body) = lambda.field("body") else {
            return (reads, writes);
        };
        let mut stack = vec![body];
        let mut seen = 0;
        while let Some(x) = stack.pop() {
            seen += 1;
            if seen > 10_000 {
                break;
            }
            if x.kind() == "identifier"
                && let Some(v) = flow.vars.get(self.text(x))
            {
                let mem = self.memory(v);
                reads.union_with(&mem);
                // Written: the root of an assignment's left side.
                let mut up = x;
                while let Some(p) = up.parent() {
                    match p.kind() {
                        "subscript_expression"
                        | "pointer_expression"
                        | "field_expression"
                        | "parenthesized_expression"
                            if p.named_child(0) == Some(up) || p.field("argument") == Some(up) =>
                        {
                            up = p;
                        }
                        "assignment_expression" | "update_expression"
                            if (p.field("left") == Some(up) || p.field("argument") == Some(up)) && up != x =>
                        {
                            writes.union_with(&mem);
                            break;
                        }
                        _ => break,
                    }
                }
            }
            let mut c = x.walk();
            stack.extend(x.named_children(&mut c));
        }
        (reads, writes)
    }

    #[allow(clippy::too_many_arguments)]
    fn launch_with(
        &mut self,
        n: Node<'t>,
        name: &str,
        slots: Vec<LocSet>,
        captured: (LocSet, LocSet),
        streams: LocSet,
        stream_arg: Option<Node<'_>>,
        flow: &mut Flow,
    ) -> LocSet {
        let (written, fence, volatile) = self.kernel_info(name);
        let kernel = match fence {
            Fence::Fenced => None,
            Fence::Unfenced => Some(Kernel::Unfenced { name: name.to_string() }),
            Fence::NotFound => {
                self.unseen_kernels.insert(n.start_byte() as u32, name.to_string());
                Some(Kernel::SourceNotVisible {
                    name: Some(name.to_string()),
                })
            }
        };
        self.emit(
            n,
            Event::Launch {
                slots: &slots,
                apart: true,
                written: written.as_deref(),
                kernel: kernel.as_ref(),
            },
            flow,
        );
        // A `volatile` pointer parameter is a channel the kernel polls while the host writes it
        // (`delay(volatile int* flag)` spinning until the host sets the flag): the host's
        // accesses to it are the protocol, not a race.
        let (mut reads, mut writes) = (LocSet::new(), LocSet::new());
        for (i, s) in slots.iter().enumerate() {
            if volatile.get(i).copied().unwrap_or(false) {
                continue;
            }
            reads.union_with(s);
            if written.as_ref().is_none_or(|w| w.get(i).copied().unwrap_or(true)) {
                writes.union_with(s);
            }
        }
        reads.union_with(&captured.0);
        writes.union_with(&captured.1);
        // A kernel whose source is not in the file is taken to write every argument: assumed.
        self.launch_writes_unseen = written.is_none();
        self.enqueue(n, OpKind::Launch, &streams, &reads, &writes, stream_arg, flow);
        self.launch_writes_unseen = false;
        LocSet::new()
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
fn failure_test<'t>(cond: Node<'t>, src: &str) -> Option<(Node<'t>, bool)> {
    let text = |n: Node<'_>| n.utf8_text(src.as_bytes()).unwrap_or("").trim().to_string();
    let mut cur = cond;
    for _ in 0..4 {
        if cur.kind() == "condition_clause" || cur.kind() == "parenthesized_expression" {
            cur = cur.named_child(0)?;
        } else {
            break;
        }
    }
    let is_success = |t: &str| matches!(t, "cudaSuccess" | "CUDA_SUCCESS" | "0");
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
    } else if ty.contains("vector") || ty.contains("array<") {
        Some(MemKind::Pageable)
    } else if ["list<", "deque<", "queue<", "stack<"].iter().any(|c| ty.contains(c)) {
        // Node-based containers: their elements live in pageable heap memory.
        Some(MemKind::Pageable)
    } else {
        None
    }
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

struct FileRegions<'a> {
    locs: &'a [LocInfo],
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
        InFlight {
            what: self.a.machine.op(op).kind.describe(),
            span,
            stream,
            advice: &ADVICE,
            notes: Vec::new(),
        }
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
    ];
    fn sum(s: &str, r: &dyn Fn(&str) -> Option<u64>) -> Option<u64> {
        let (mut depth, mut at) = (0i32, None);
        for (i, c) in s.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                '+' if depth == 0 => at = Some((i, 1)),
                '<' if depth == 0 && s[i..].starts_with("<<") && at.is_none() => at = Some((i, 2)),
                _ => {}
            }
        }
        match at {
            Some((i, 1)) => sum(&s[..i], r)?.checked_add(sum(&s[i + 1..], r)?),
            Some((i, _)) => sum(&s[..i], r)?.checked_shl(u32::try_from(sum(&s[i + 2..], r)?).ok()?),
            None => product(s, r),
        }
    }
    fn product(s: &str, r: &dyn Fn(&str) -> Option<u64>) -> Option<u64> {
        let mut depth = 0i32;
        for (i, c) in s.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                '*' if depth == 0 && i > 0 => return product(&s[..i], r)?.checked_mul(product(&s[i + 1..], r)?),
                _ => {}
            }
        }
        atom(s.trim(), r)
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
