//! The C++ object model: classes the file defines, their members with their declared types,
//! constructors run where an object is made, methods run on their object, destructors where it
//! ends (the end of its block, an early `return`, `delete`), type aliases, and the deleters of
//! smart pointers (the release function `mismatched_free` checks).
//!
//! A class is read once from the tree ([`Classes::collect`]); the interpreter asks it what a
//! type names and runs the definitions it holds in the caller's state, as it runs the file's
//! own functions ([`FileAnalysis::inline`]).

use std::collections::HashMap;

use cuda_lint_machine::{Loc, LocSet, MemKind};
use tree_sitter::Node;

use super::{FieldExt, FileAnalysis, Flow, container_kind, contains_kind, declared_name, find_kind};
use crate::api::{self, Effect};

/// How deep members that are objects are made and ended inside each other.
const MAX_NESTING: u32 = 4;

/// A member of a class: a field with its declared type.
pub(super) struct Member<'s, 't> {
    pub name: &'s str,
    /// The declared type as written (`std::vector<float>`, `float`, `PinnedBuffer`).
    pub ty: &'s str,
    pub pointer: bool,
    pub reference: bool,
    /// Its array lengths as written (`float taps_[kTaps]`: `kTaps`).
    pub dims: Vec<&'s str>,
    /// Its default member initializer (`= nullptr`, `{n}`).
    pub default: Option<Node<'t>>,
}

/// What the file says of one class or struct.
#[derive(Default)]
pub(super) struct Class<'s, 't> {
    /// Fields in declaration order.
    pub members: Vec<Member<'s, 't>>,
    /// Base classes, by name.
    pub bases: Vec<&'s str>,
    /// Methods with a body, by name (the first definition of each).
    pub methods: HashMap<&'s str, Node<'t>>,
    /// Constructors with a body.
    pub ctors: Vec<Node<'t>>,
    pub dtor: Option<Node<'t>>,
}

/// The classes of a file and its type aliases.
#[derive(Default)]
pub(super) struct Classes<'s, 't> {
    pub by_name: HashMap<&'s str, Class<'s, 't>>,
    /// `using V = std::vector<float>;`, `typedef ... V;`, `template <..> using P = ...;`: the
    /// aliased type as written.
    pub aliases: HashMap<&'s str, &'s str>,
}

/// The name a type's text names: `const ns::Foo<T>&` is `Foo`.
pub(super) fn base_name(ty: &str) -> &str {
    let mut t = ty.trim();
    for prefix in [
        "const ",
        "volatile ",
        "struct ",
        "class ",
        "typename ",
        "static ",
        "mutable ",
    ] {
        t = t.trim_start_matches(prefix).trim_start();
    }
    let t = t.split('<').next().unwrap_or(t);
    let t = t.trim_end_matches(['&', '*', ' ']).trim_end_matches(" const").trim();
    t.rsplit("::").next().unwrap_or(t).trim()
}

impl<'s, 't> Classes<'s, 't> {
    /// Reads the classes, their out-of-class definitions and the aliases of the tree.
    pub fn collect(root: Node<'t>, src: &'s str, excluded: &crate::config::Excluded) -> Self {
        let text = |n: Node<'_>| -> &'s str { &src[n.start_byte()..n.end_byte()] };
        let mut classes = Classes::default();
        let mut out_of_class = Vec::new();
        let mut stack = vec![root];
        let mut steps = 0usize;
        while let Some(n) = stack.pop() {
            steps += 1;
            if steps > 2_000_000 || excluded.contains(n.start_byte()) {
                continue;
            }
            match n.kind() {
                "class_specifier" | "struct_specifier" => {
                    if let (Some(name), Some(body)) = (n.field("name"), n.field("body"))
                        && name.kind() == "type_identifier"
                    {
                        let class = classes.by_name.entry(text(name)).or_default();
                        read_class(class, text(name), n, body, src, excluded);
                    }
                }
                "alias_declaration" => {
                    if let (Some(name), Some(ty)) = (n.field("name"), n.field("type")) {
                        classes.aliases.insert(text(name), text(ty));
                    }
                }
                "type_definition" => {
                    if let Some(ty) = n.field("type") {
                        let mut c = n.walk();
                        for d in n.children_by_field_name("declarator", &mut c) {
                            if d.kind() == "type_identifier" {
                                classes.aliases.insert(text(d), text(ty));
                            }
                        }
                    }
                }
                "function_definition" => {
                    out_of_class.push(n);
                    continue;
                }
                _ => {}
            }
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
        }
        // `void C::m() {..}`, `C::C(..) : .. {..}`, `C::~C() {..}`.
        for def in out_of_class {
            let Some(f) = def
                .field("declarator")
                .and_then(|d| find_kind(d, "function_declarator"))
            else {
                continue;
            };
            let Some(q) = f.field("declarator").filter(|q| q.kind() == "qualified_identifier") else {
                continue;
            };
            let (Some(scope), Some(name)) = (q.field("scope"), q.field("name")) else {
                continue;
            };
            let class_name = base_name(text(scope));
            let Some(class) = classes.by_name.get_mut(class_name) else {
                continue;
            };
            add_definition(class, class_name, name, def, src);
        }
        classes
    }

    /// The class a type names, through aliases (`using Solver = HeatSolver;`).
    pub fn class_of(&self, ty: &str) -> Option<&'s str> {
        let mut name = base_name(ty);
        for _ in 0..4 {
            if let Some((&k, _)) = self.by_name.get_key_value(name) {
                return Some(k);
            }
            name = base_name(self.aliases.get(name)?);
        }
        None
    }

    /// A type's text with an alias it starts with replaced by what it aliases
    /// (`HostVec` is `std::vector<float, PinnedAlloc>`), so that containers are seen.
    pub fn resolve(&self, ty: &'s str) -> &'s str {
        let mut t = ty;
        for _ in 0..4 {
            match self.aliases.get(base_name(t)) {
                Some(&a) => t = a,
                None => break,
            }
        }
        t
    }

    /// `class` and its bases, nearest first (bounded: a base named twice, or a cycle, is
    /// visited at most 16 classes deep).
    pub fn lineage(&self, class: &str) -> Vec<(&'s str, &Class<'s, 't>)> {
        let mut out = Vec::new();
        let mut todo = vec![class];
        while let Some(c) = todo.pop() {
            if out.len() >= 16 {
                break;
            }
            if let Some((&k, info)) = self.by_name.get_key_value(c) {
                out.push((k, info));
                todo.extend(info.bases.iter().rev().copied());
            }
        }
        out
    }

    /// The method `name` of `class` or of one of its bases.
    pub fn method(&self, class: &str, name: &str) -> Option<(&'s str, Node<'t>)> {
        self.lineage(class)
            .into_iter()
            .find_map(|(k, info)| info.methods.get(name).map(|&m| (k, m)))
    }

    /// The methods named `name` of every class (bounded).
    pub fn methods_named(&self, name: &str) -> Vec<Node<'t>> {
        self.by_name
            .values()
            .filter_map(|c| c.methods.get(name).copied())
            .take(8)
            .collect()
    }

    /// Whether `class` or one of its bases declares a member `name`.
    pub fn has_member(&self, class: &str, name: &str) -> bool {
        self.lineage(class)
            .iter()
            .any(|(_, info)| info.members.iter().any(|m| m.name == name))
    }
}

fn read_class<'s, 't>(
    class: &mut Class<'s, 't>,
    class_name: &'s str,
    spec: Node<'t>,
    body: Node<'t>,
    src: &'s str,
    excluded: &crate::config::Excluded,
) {
    let text = |n: Node<'_>| -> &'s str { &src[n.start_byte()..n.end_byte()] };
    let mut c = spec.walk();
    for part in spec.named_children(&mut c) {
        if part.kind() == "base_class_clause" {
            let mut c2 = part.walk();
            for b in part.named_children(&mut c2) {
                if matches!(b.kind(), "type_identifier" | "qualified_identifier" | "template_type") {
                    class.bases.push(base_name(text(b)));
                }
            }
        }
    }
    let mut c = body.walk();
    let items: Vec<Node<'t>> = body.named_children(&mut c).collect();
    for item in items {
        if excluded.contains(item.start_byte()) {
            continue;
        }
        let item = if item.kind() == "template_declaration" {
            let mut c = item.walk();
            let inner = item
                .named_children(&mut c)
                .find(|k| matches!(k.kind(), "function_definition" | "field_declaration"));
            match inner {
                Some(i) => i,
                None => continue,
            }
        } else {
            item
        };
        match item.kind() {
            "field_declaration" => {
                let Some(ty) = item.field("type") else { continue };
                let default = item.field("default_value");
                let mut c = item.walk();
                for d in item.children_by_field_name("declarator", &mut c) {
                    if contains_kind(d, "function_declarator") {
                        continue;
                    }
                    let Some(name) = member_name(d, src) else { continue };
                    class.members.push(Member {
                        name,
                        ty: text(ty),
                        pointer: contains_kind(d, "pointer_declarator"),
                        reference: contains_kind(d, "reference_declarator"),
                        dims: super::array_lengths(d, src),
                        default,
                    });
                }
            }
            "function_definition" => {
                // `operator cudaStream_t() const { .. }`: a conversion, filed under its text.
                if let Some(cast) = item.field("declarator").filter(|d| d.kind() == "operator_cast") {
                    add_definition(class, class_name, cast, item, src);
                    continue;
                }
                let Some(f) = item
                    .field("declarator")
                    .and_then(|d| find_kind(d, "function_declarator"))
                else {
                    continue;
                };
                if let Some(name) = f.field("declarator") {
                    add_definition(class, class_name, name, item, src);
                }
            }
            _ => {}
        }
    }
}

/// Files a definition under the class: a constructor, the destructor or a method.
fn add_definition<'s, 't>(class: &mut Class<'s, 't>, class_name: &str, name: Node<'t>, def: Node<'t>, src: &'s str) {
    if def.field("body").is_none() {
        return;
    }
    let text: &'s str = &src[name.start_byte()..name.end_byte()];
    if name.kind() == "destructor_name" {
        class.dtor.get_or_insert(def);
    } else if text == class_name {
        class.ctors.push(def);
    } else {
        class.methods.entry(text).or_insert(def);
    }
}

/// The name a member declarator declares (`d_`, `*h_`, `buf_[4]`).
fn member_name<'s>(d: Node<'_>, src: &'s str) -> Option<&'s str> {
    let mut cur = d;
    for _ in 0..16 {
        if matches!(cur.kind(), "identifier" | "field_identifier") {
            return Some(&src[cur.start_byte()..cur.end_byte()]);
        }
        cur = cur.field("declarator").or_else(|| cur.named_child(0))?;
    }
    None
}

/// How a smart pointer releases what it holds.
#[derive(Clone, Copy)]
pub(super) enum Deleter<'t> {
    /// A release function of the C APIs (`cudaFree`, `&cudaFreeHost`).
    Api(&'static [Effect]),
    /// A lambda, or a deleter class's `operator()`, run with the pointer.
    Body(Node<'t>),
    /// `delete` (no deleter given).
    Delete,
}

/// Whether a type's text is a smart pointer that owns what it points to.
pub(super) fn smart_pointer(ty: &str) -> Option<&'static str> {
    let head = ty.split('<').next().unwrap_or("");
    if head.ends_with("unique_ptr") {
        Some("unique_ptr")
    } else if head.ends_with("shared_ptr") {
        Some("shared_ptr")
    } else {
        None
    }
}

/// The template arguments of a type's text at its first level: `unique_ptr<T[], D>` gives
/// `T[]` and `D`.
pub(super) fn template_args(ty: &str) -> Vec<&str> {
    let Some(open) = ty.find('<') else { return Vec::new() };
    let mut depth = 0i32;
    let mut start = open + 1;
    let mut out = Vec::new();
    for (i, ch) in ty[open + 1..].char_indices().map(|(i, c)| (i + open + 1, c)) {
        match ch {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' if depth > 0 => depth -= 1,
            '>' => {
                out.push(ty[start..i].trim());
                return out;
            }
            ',' if depth == 0 => {
                out.push(ty[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out
}

impl<'s, 't> FileAnalysis<'s, 't> {
    /// The memory a container type's buffer is (`std::vector<float>`: pageable;
    /// `thrust::device_vector`: device), through aliases; a container whose allocator is a
    /// class of the file (`std::vector<T, PinnedAllocator<T>>`) is what that allocator's
    /// `allocate` makes (`cudaMallocHost`: pinned, `cudaMallocManaged`: managed).
    pub(super) fn container_kind_of(&self, ty: &'s str) -> Option<MemKind> {
        let ty = self.classes.resolve(ty);
        let kind = container_kind(ty)?;
        if kind != MemKind::Pageable {
            return Some(kind);
        }
        let args = template_args(ty);
        let Some(alloc) = args.get(1).and_then(|a| self.classes.class_of(a)) else {
            return Some(kind);
        };
        let Some((_, def)) = self.classes.method(alloc, "allocate") else {
            return Some(kind);
        };
        let body = self.text(def);
        if ["cudaMallocHost", "cudaHostAlloc", "cuMemHostAlloc", "cuMemAllocHost"]
            .iter()
            .any(|f| body.contains(f))
        {
            Some(MemKind::Pinned)
        } else if ["cudaMallocManaged", "cuMemAllocManaged"]
            .iter()
            .any(|f| body.contains(f))
        {
            Some(MemKind::Managed)
        } else {
            Some(kind)
        }
    }

    /// The class of a type's text, if the file defines it.
    pub(super) fn class_of_type(&self, ty: &str) -> Option<&'s str> {
        self.classes.class_of(ty)
    }

    /// The object `this` is in the current function, and its class when known.
    fn this_class(&self, flow: &Flow) -> Option<&'s str> {
        let this = flow.vars.get("this")?;
        this.iter().find_map(|o| self.object_class.get(&o).copied())
    }

    /// A member of the current method's object named bare (`d_` for `this->d_`): the object
    /// it is in, when `name` is neither a local nor a parameter.
    pub(super) fn member_objects(&self, name: &str, flow: &Flow) -> Option<LocSet> {
        if flow.vars.contains_key(name) || flow.objects.contains_key(name) || name == "this" {
            return None;
        }
        let this = flow.vars.get("this")?;
        match self.this_class(flow) {
            Some(class) if !self.classes.has_member(class, name) => None,
            _ => Some(this.clone()),
        }
    }

    /// Whether a method of `class` (or of a base) page-locks memory (`cudaHostRegister`,
    /// `cuMemHostRegister`).
    pub(super) fn class_registers(&self, class: &str) -> bool {
        self.class_calls(class, "HostRegister(")
    }

    /// Whether a method of `class` (or of a base) has `call` in this build's text.
    pub(super) fn class_calls(&self, class: &str, call: &str) -> bool {
        // In this build (not in an arm of `#ifdef` it leaves out).
        let calls = |d: &Node<'t>| {
            self.text(*d)
                .match_indices(call)
                .any(|(i, _)| !self.excluded.contains(d.start_byte() + i))
        };
        self.classes.lineage(class).iter().any(|(_, info)| {
            let mut defs = info.ctors.iter().chain(info.dtor.iter()).chain(info.methods.values());
            defs.any(calls)
        })
    }

    /// `dst = src;` of objects (a copy or move assignment): `dst`'s members become `src`'s.
    pub(super) fn assign_object(&mut self, dst: &LocSet, src: &LocSet, flow: &mut Flow) {
        let copied: Vec<(String, LocSet)> = flow
            .fields
            .iter()
            .filter(|((o, _), _)| src.contains(*o))
            .map(|((_, f), v)| (f.clone(), v.clone()))
            .collect();
        for (f, v) in copied {
            self.store_field(dst, &f, &v, flow);
        }
    }

    /// Whether a value is one object of the file's classes (or with members known).
    pub(super) fn is_object(&self, v: &LocSet, flow: &Flow) -> bool {
        let mut it = v.iter();
        match (it.next(), it.next()) {
            (Some(o), None) => self.object_class.contains_key(&o) || flow.fields.keys().any(|(k, _)| *k == o),
            _ => false,
        }
    }

    /// The object a name is, when it names one: a local object, or a member object of `this`
    /// (`front_` of type `Frame`), already made.
    pub(super) fn object_named(&self, a: Node<'t>, flow: &Flow) -> Option<LocSet> {
        if a.kind() != "identifier" {
            return None;
        }
        let name = self.text(a);
        if let Some(&o) = flow.objects.get(name) {
            return Some(LocSet::single(o));
        }
        let objs = self.named_place(name, flow)?;
        let member = self.field_value(&objs, &format!("{name}."), flow);
        (!member.is_empty()).then_some(member)
    }

    /// What a name that is no local or parameter names: a member of `this`, else a variable
    /// of the file's scope. The objects whose field it is.
    pub(super) fn named_place(&self, name: &str, flow: &Flow) -> Option<LocSet> {
        self.member_objects(name, flow)
            .or_else(|| self.global_objects(name, flow))
    }

    /// A member object (`buf_` of type `PinnedBuffer`) of the objects `objs`: made once per
    /// object and kept as the field `name.`.
    pub(super) fn member_object(&mut self, objs: &LocSet, name: &str, at: Node<'t>, flow: &mut Flow) -> LocSet {
        let mut out = LocSet::new();
        for o in objs.iter() {
            let key = (o, format!("{name}."));
            if let Some(v) = flow.fields.get(&key) {
                out.union_with(v);
                continue;
            }
            // One per object and member: two members made at one site (`Outer o;` making
            // `o.a` and `o.b`) are two objects.
            let l = match self.member_object_locs.get(&(o, name.to_string())) {
                Some(&l) => l,
                None => {
                    let l = self.new_loc(Some(MemKind::Pageable), None, self.site(at), false);
                    self.member_object_locs.insert((o, name.to_string()), l);
                    l
                }
            };
            flow.fields.insert(key, LocSet::single(l));
            out.insert(l);
        }
        out
    }

    /// Makes the object `o` of `class`: its bases, its members as declared (containers, member
    /// objects, default initializers), then the constructor that takes `args`, run on it.
    pub(super) fn construct(
        &mut self,
        at: Node<'t>,
        class: &'s str,
        o: Loc,
        args: &[Node<'t>],
        flow: &mut Flow,
        nesting: u32,
    ) {
        if nesting > MAX_NESTING {
            return;
        }
        self.object_class.entry(o).or_insert(class);
        let vals: Vec<LocSet> = args.iter().map(|a| self.expr(*a, flow, false)).collect();
        let texts: Vec<String> = args.iter().map(|a| self.argument_text(*a)).collect();
        // Which arguments are memory or objects (not plain numbers): among constructors of
        // the same arity, the one whose parameters take them (`DeviceArray(const
        // std::vector<T>&)` for a vector, `DeviceArray(size_t)` for a count).
        let shapes: Vec<bool> = args
            .iter()
            .zip(&vals)
            .map(|(a, v)| !v.is_empty() || self.object_named(*a, flow).is_some())
            .collect();
        let ctor = self.constructor_for(class, &shapes);
        let initialized = ctor.map(initialized_names(self.src)).unwrap_or_default();
        let bases: Vec<&'s str> = self
            .classes
            .by_name
            .get(class)
            .map(|c| c.bases.clone())
            .unwrap_or_default();
        for b in bases {
            if self.classes.by_name.contains_key(b) && !initialized.contains(&b) {
                self.construct(at, b, o, &[], flow, nesting + 1);
            }
        }
        self.make_members(at, class, o, &initialized, flow, nesting);
        // `Frame f = make_frame(..)`, `front_(make_frame(..))` with no constructor of one
        // argument written: the object is a copy of the one given.
        if ctor.is_none()
            && let [v] = vals.as_slice()
            && let Some(src) = v.iter().next()
            && v.iter().count() == 1
            && src != o
            && (self.object_class.contains_key(&src) || flow.fields.keys().any(|(s, _)| *s == src))
        {
            let copied: Vec<(String, LocSet)> = flow
                .fields
                .iter()
                .filter(|((s, _), _)| *s == src)
                .map(|((_, f), v)| (f.clone(), v.clone()))
                .collect();
            for (f, v) in copied {
                flow.fields.insert((o, f), v);
            }
        }

        if let Some(def) = ctor
            && self.inlined.len() < super::MAX_INLINE
            && self.within_budget(at)
        {
            let name = self.text(at);
            let this = LocSet::single(o);
            self.inline_method(at, name, def, Some(this), &vals, &texts, flow);
        }
    }

    /// The constructor of `class` a call runs (`shapes`: per argument, whether it is memory or
    /// an object rather than a plain number): of those whose parameters take that many
    /// arguments, the one whose parameters agree with the most of them (a number for a
    /// scalar parameter, memory for a pointer, a reference or a class), the first on a tie.
    fn constructor_for(&self, class: &str, shapes: &[bool]) -> Option<Node<'t>> {
        let info = self.classes.by_name.get(class)?;
        let n = shapes.len();
        let fits: Vec<Node<'t>> = info
            .ctors
            .iter()
            .copied()
            .filter(|def| {
                let Some(list) = def.field("declarator").and_then(|d| find_kind(d, "parameter_list")) else {
                    return n == 0;
                };
                let mut c = list.walk();
                let params: Vec<Node> = list.named_children(&mut c).collect();
                let variadic = params.iter().any(|p| p.kind() == "variadic_parameter_declaration");
                let required = params.iter().filter(|p| p.kind() == "parameter_declaration").count();
                let total = params.len();
                // `Foo(void)`.
                let total = if total == 1 && self.text(params[0]).trim() == "void" {
                    0
                } else {
                    total
                };
                let required = required.min(total);
                (required <= n && n <= total) || (variadic && n >= required)
            })
            .collect();
        if fits.len() < 2 {
            return fits.first().copied();
        }
        let agreement = |def: &Node<'t>| -> usize {
            let Some(list) = def.field("declarator").and_then(|d| find_kind(d, "parameter_list")) else {
                return 0;
            };
            let mut c = list.walk();
            list.named_children(&mut c)
                .zip(shapes)
                .filter(|(p, memory)| {
                    let ty = p.field("type").map(|t| self.text(t)).unwrap_or("");
                    let indirect = p.field("declarator").is_some_and(|d| {
                        contains_kind(d, "pointer_declarator") || contains_kind(d, "reference_declarator")
                    });
                    let scalar = !indirect && is_scalar_type(ty);
                    scalar != **memory
                })
                .count()
        };
        let best = fits.iter().map(agreement).max().unwrap_or(0);
        fits.into_iter().find(|d| agreement(d) == best)
    }

    /// The members of a new object of `class` as declared, except those the constructor's
    /// initializer list sets.
    pub(super) fn make_members(
        &mut self,
        at: Node<'t>,
        class: &'s str,
        o: Loc,
        initialized: &[&'s str],
        flow: &mut Flow,
        nesting: u32,
    ) {
        let Some(info) = self.classes.by_name.get(class) else {
            return;
        };
        #[allow(clippy::type_complexity)]
        let members: Vec<(&'s str, &'s str, bool, bool, Option<Node<'t>>, bool)> = info
            .members
            .iter()
            .map(|m| (m.name, m.ty, m.pointer, m.reference, m.default, !m.dims.is_empty()))
            .collect();
        let objs = LocSet::single(o);
        for (name, ty, pointer, reference, default, array) in members {
            // An array member is storage inside the object: memory of its own (its elements,
            // pointers too, are kept on it), one per object.
            if array {
                let key = (o, name);
                let l = match self.member_locs.get(&key) {
                    Some(&l) => l,
                    None => {
                        let l = self.new_loc(Some(MemKind::Pageable), Some(name.to_string()), self.site(at), false);
                        self.member_locs.insert(key, l);
                        l
                    }
                };
                self.store_field(&objs, name, &LocSet::single(l), flow);
                continue;
            }
            if pointer || reference {
                if let Some(d) = default
                    && !initialized.contains(&name)
                {
                    let v = self.expr(d, flow, false);
                    self.store_field(&objs, name, &v, flow);
                }
                continue;
            }
            let ty = self.classes.resolve(ty);
            if let Some(kind) = self.container_kind_of(ty) {
                let key = (o, name);
                let l = match self.member_locs.get(&key) {
                    Some(&l) => l,
                    None => {
                        let l = self.new_loc(Some(kind), Some(name.to_string()), self.site(at), false);
                        self.locs[l.0 as usize].copies_on_access = kind != MemKind::Pageable;
                        if kind == MemKind::Pageable {
                            self.locs[l.0 as usize].allocator = Some(cuda_lint_machine::Allocator::CppContainer);
                        }
                        self.member_locs.insert(key, l);
                        l
                    }
                };
                self.store_field(&objs, name, &LocSet::single(l), flow);
                continue;
            }
            if let Some(member_class) = self.classes.class_of(ty) {
                if initialized.contains(&name) {
                    continue;
                }
                let m = self.member_object(&objs, name, at, flow);
                let args: Vec<Node<'t>> = default.map(argument_nodes).unwrap_or_default();
                for mo in m.iter() {
                    self.construct(at, member_class, mo, &args, flow, nesting + 1);
                }
                continue;
            }
            if smart_pointer(ty).is_some() {
                if let Some(d) = default
                    && !initialized.contains(&name)
                {
                    let args = argument_nodes(d);
                    self.smart_pointer_made(ty, &args, flow);
                    let v = args.first().map(|a| self.expr(*a, flow, false)).unwrap_or_default();
                    self.store_field(&objs, name, &v, flow);
                }
                continue;
            }
            if let Some(d) = default
                && !initialized.contains(&name)
            {
                let v = self.expr(d, flow, false);
                self.store_field(&objs, name, &v, flow);
            }
        }
    }

    /// Runs a constructor's initializer list (`: d_(nullptr), buf_(n), Base(s)`) in its frame,
    /// `this` bound.
    pub(super) fn run_initializers(&mut self, def: Node<'t>, flow: &mut Flow) {
        let Some(this) = flow.vars.get("this").cloned() else {
            return;
        };
        let class = self.this_class(flow);
        let mut c = def.walk();
        let Some(list) = def
            .named_children(&mut c)
            .find(|k| k.kind() == "field_initializer_list")
        else {
            return;
        };
        let mut c = list.walk();
        let inits: Vec<Node> = list.named_children(&mut c).collect();
        for init in inits {
            let mut c = init.walk();
            let parts: Vec<Node> = init.named_children(&mut c).collect();
            let (Some(&target), Some(&value)) = (parts.first(), parts.last()) else {
                continue;
            };
            let name = self.text(target);
            let args = argument_nodes(value);
            // A base class's constructor.
            if class.is_none_or(|cl| !self.classes.has_member(cl, name))
                && let Some(base) = self.classes.class_of(name)
            {
                for o in this.iter() {
                    self.construct(init, base, o, &args, flow, 1);
                }
                continue;
            }
            let member_ty = class.and_then(|cl| {
                self.classes
                    .by_name
                    .get(cl)
                    .and_then(|i| i.members.iter().find(|m| m.name == name))
                    .map(|m| (m.ty, m.pointer || m.reference))
            });
            if let Some((ty, false)) = member_ty {
                let ty = self.classes.resolve(ty);
                if let Some(member_class) = self.classes.class_of(ty) {
                    let m = self.member_object(&this, name, init, flow);
                    for mo in m.iter() {
                        self.construct(init, member_class, mo, &args, flow, 1);
                    }
                    continue;
                }
                if smart_pointer(ty).is_some() {
                    self.smart_pointer_made(ty, &args, flow);
                    let v = args.first().map(|a| self.expr(*a, flow, false)).unwrap_or_default();
                    self.store_field(&this, name, &v, flow);
                    continue;
                }
                if self.container_kind_of(ty).is_some() {
                    for a in &args {
                        self.expr(*a, flow, false);
                    }
                    continue;
                }
            }
            let v = match args.as_slice() {
                [one] => self.expr(*one, flow, false),
                _ => {
                    for a in &args {
                        self.expr(*a, flow, false);
                    }
                    LocSet::new()
                }
            };
            self.store_field(&this, name, &v, flow);
        }
    }

    /// Ends the object `o`: its destructor run on it, then its member objects' and its bases'.
    pub(super) fn destroy(&mut self, at: Node<'t>, o: Loc, flow: &mut Flow, nesting: u32) {
        if nesting > MAX_NESTING || flow.dead {
            return;
        }
        let Some(&class) = self.object_class.get(&o) else {
            return;
        };
        self.destroy_as(at, class, o, flow, nesting);
    }

    fn destroy_as(&mut self, at: Node<'t>, class: &'s str, o: Loc, flow: &mut Flow, nesting: u32) {
        if nesting > MAX_NESTING {
            return;
        }
        let Some(info) = self.classes.by_name.get(class) else {
            return;
        };
        let dtor = info.dtor;
        let members: Vec<(&'s str, &'s str)> = info
            .members
            .iter()
            .rev()
            .filter(|m| !m.pointer && !m.reference)
            .map(|m| (m.name, m.ty))
            .collect();
        let bases = info.bases.clone();
        if let Some(def) = dtor
            && self.inlined.len() < super::MAX_INLINE
            && self.within_budget(at)
        {
            let name = self.text(at);
            self.inline_method(at, name, def, Some(LocSet::single(o)), &[], &[], flow);
        }
        let objs = LocSet::single(o);
        for (name, ty) in members {
            let ty = self.classes.resolve(ty);
            if let Some(member_class) = self.classes.class_of(ty) {
                let m = self.field_value(&objs, &format!("{name}."), flow);
                for mo in m.iter() {
                    self.destroy_as(at, member_class, mo, flow, nesting + 1);
                }
            }
        }
        for b in bases.into_iter().rev() {
            if self.classes.by_name.contains_key(b) {
                self.destroy_as(at, b, o, flow, nesting + 1);
            }
        }
    }

    /// Ends the objects the block `block` declared before `before` (all of them when `None`),
    /// last made first: at the end of the block, or on a `return` leaving it. `keep`: a
    /// variable returned, which lives on in the caller.
    /// A declaration's local arrays and standard containers (`float taps[63];`,
    /// `std::vector<float> v;`) end with their block: their storage is gone (a graph that
    /// captured a copy from it reads freed memory at its next launch).
    fn end_local_storage(&mut self, d: Node<'t>, ty: &str, keep: Option<&str>, block: Node<'t>, flow: &mut Flow) {
        if self.text(d).trim_start().starts_with("static") {
            return;
        }
        let container = self.container_kind_of(ty).is_some();
        let mut c = d.walk();
        let names: Vec<String> = d
            .children_by_field_name("declarator", &mut c)
            .filter(|x| {
                !super::declarator_has(*x, "pointer_declarator")
                    && !super::declarator_has(*x, "reference_declarator")
                    && (container || super::declarator_has(*x, "array_declarator"))
            })
            .filter_map(|x| declared_name(x, self.src))
            .collect();
        for name in names {
            if keep == Some(name.as_str()) || moved_in(block, &name, self.src) {
                continue;
            }
            let mut vals = flow.vars.get(&name).cloned().unwrap_or_default();
            if let Some(&o) = flow.objects.get(&name) {
                vals.insert(o);
            }
            let mut mem = self.memory(&vals);
            mem.retain(|l| self.locs[l.0 as usize].kind == Some(MemKind::Pageable));
            if !mem.is_empty() {
                self.machine.storage_ended(&mut flow.m, &mem, &self.regions());
            }
        }
    }

    pub(super) fn end_block_objects(
        &mut self,
        block: Node<'t>,
        before: Option<usize>,
        keep: Option<&str>,
        at: Node<'t>,
        flow: &mut Flow,
    ) {
        let mut c = block.walk();
        let decls: Vec<Node> = block
            .named_children(&mut c)
            .filter(|d| d.kind() == "declaration" && before.is_none_or(|b| d.start_byte() < b))
            .collect();
        for d in decls.into_iter().rev() {
            if self.excluded.contains(d.start_byte()) {
                continue;
            }
            let ty = d.field("type").map(|t| self.text(t)).unwrap_or("");
            let ty = self.classes.resolve(ty);
            // `auto p = make_device_array<float>(n);`: the type the file's function returns.
            let ty = if ty.trim() == "auto" {
                self.returned_type(d).unwrap_or(ty)
            } else {
                ty
            };
            self.end_local_storage(d, ty, keep, block, flow);
            let owns = self.classes.class_of(ty).is_some() || smart_pointer(ty) == Some("unique_ptr") || {
                // `auto p = std::make_unique<Foo>(..)`.
                let t = self.text(d);
                ty.trim() == "auto" && t.contains("make_unique<")
            };
            if !owns {
                continue;
            }
            let mut c = d.walk();
            let names: Vec<String> = d
                .children_by_field_name("declarator", &mut c)
                // Along the declarator itself: `Buf b(int(dev), n * sizeof(T))`, which the parser
                // reads as a function's declaration, has pointers only in its "parameters".
                .filter(|x| {
                    !super::declarator_has(*x, "pointer_declarator")
                        && !super::declarator_has(*x, "reference_declarator")
                })
                .filter_map(|x| declared_name(x, self.src))
                .collect();
            for name in names.into_iter().rev() {
                if keep == Some(name.as_str()) || moved_in(block, &name, self.src) {
                    continue;
                }
                let objs: Vec<Loc> = match flow.objects.get(&name) {
                    Some(&o) => vec![o],
                    None => flow.vars.get(&name).map(|v| v.iter().collect()).unwrap_or_default(),
                };
                for o in objs {
                    if self.object_class.contains_key(&o) {
                        self.destroy(at, o, flow, 0);
                    }
                }
                // A `std::unique_ptr` whose type names its deleter (`unique_ptr<float,
                // CudaFree>`) runs it on what it holds, here: when the memory is released (its
                // allocator was checked where the pointer took it).
                if smart_pointer(ty) == Some("unique_ptr")
                    && !released_in(block, &name, self.src)
                    && let Some(deleter @ (Deleter::Api(_) | Deleter::Body(_))) = self.deleter_of(ty, None, flow)
                    && let Some(vals) = flow.vars.get(&name).cloned()
                    && !self.memory(&vals).is_empty()
                    && !vals.contains(self.unknown)
                {
                    self.run_deleter(at, deleter, &vals, flow);
                }
            }
        }
    }

    /// The type the file's own function called in the declaration `d`'s initializer returns
    /// (`auto p = make_device_array<float>(n)`), with the file's aliases resolved.
    fn returned_type(&self, d: Node<'t>) -> Option<&'s str> {
        let init = d.field("declarator")?;
        let value = init.field("value")?;
        if value.kind() != "call_expression" {
            return None;
        }
        let f = value.field("function")?;
        let name = self.text(f);
        let name = name.split('<').next().unwrap_or(name).trim();
        let name = name.rsplit("::").next().unwrap_or(name);
        let def = self.functions.get(name)?;
        let ty = self.text(def.field("type")?);
        Some(self.classes.resolve(ty))
    }

    /// Runs a smart pointer's deleter on `vals` where the pointer ends: what it does when it
    /// frees (its allocator was checked where the pointer took the memory, not again).
    fn run_deleter(&mut self, at: Node<'t>, deleter: Deleter<'t>, vals: &LocSet, flow: &mut Flow) {
        let saved = self.deleting_at_scope_end;
        self.deleting_at_scope_end = true;
        self.apply_deleter(at, deleter, vals, flow, false);
        self.deleting_at_scope_end = saved;
    }

    /// Ends, on a `return` at `ret`, the objects of every block of the function it leaves.
    pub(super) fn end_objects_on_return(&mut self, ret: Node<'t>, keep: Option<&str>, flow: &mut Flow) {
        let mut cur = ret.parent();
        let mut steps = 0;
        while let Some(p) = cur {
            steps += 1;
            if steps > 64 || matches!(p.kind(), "function_definition" | "lambda_expression") {
                break;
            }
            if p.kind() == "compound_statement" {
                self.end_block_objects(p, Some(ret.start_byte()), keep, ret, flow);
            }
            cur = p.parent();
        }
    }

    /// `obj.m(args)`, `p->m(args)`, `this->m()`, `m()` in a method: the method of the object's
    /// class run on it, when the file defines it. `None`: not such a call.
    pub(super) fn method_call(
        &mut self,
        n: Node<'t>,
        func: Node<'t>,
        args: &[Node<'t>],
        flow: &mut Flow,
    ) -> Option<LocSet> {
        let (objs, name) = match func.kind() {
            "field_expression" => {
                let arrow = self.is_arrow(func);
                let object = func.field("argument")?;
                // `ring.primary<float>()`: the method `primary`.
                let field = self.text(func.field("field")?);
                let name = field.split('<').next().unwrap_or(field).trim();
                let objs = self.object_of(object, arrow, flow);
                (objs, name)
            }
            "identifier" => {
                let name = self.text(func);
                let class = self.this_class(flow)?;
                self.classes.method(class, name)?;
                (flow.vars.get("this")?.clone(), name)
            }
            // `Owner<T>::allocate(n)` (a static method), `Base::reset()` (a base's, on `this`).
            "qualified_identifier" => {
                let class = self.classes.class_of(self.text(func.field("scope")?))?;
                let name = super::callee_name(func, self.src);
                let name: &'s str = {
                    let text = self.text(func.field("name")?);
                    let bare = text.split('<').next().unwrap_or(text).trim();
                    if bare == name { bare } else { return None }
                };
                let (_, def) = self.classes.method(class, name)?;
                let this = flow.vars.get("this").cloned().filter(|_| {
                    self.this_class(flow)
                        .is_some_and(|c| self.classes.lineage(c).iter().any(|(k, _)| *k == class))
                });
                let vals: Vec<LocSet> = args
                    .iter()
                    .map(|a| match self.object_named(*a, flow) {
                        Some(o) => o,
                        None => self.expr(*a, flow, false),
                    })
                    .collect();
                if self.inlined.len() >= super::MAX_INLINE || self.inlined.contains(&name) || !self.within_budget(n) {
                    return Some(LocSet::new());
                }
                let texts: Vec<String> = args.iter().map(|a| self.argument_text(*a)).collect();
                return Some(self.inline_method(n, name, def, this, &vals, &texts, flow));
            }
            _ => return None,
        };
        self.method_on(n, objs, name, args, flow)
    }

    /// Runs the method `name` of the one class the objects `objs` are of, on them, with the
    /// call's arguments. `None`: not objects of one class with such a method.
    fn method_on(
        &mut self,
        n: Node<'t>,
        objs: LocSet,
        name: &'s str,
        args: &[Node<'t>],
        flow: &mut Flow,
    ) -> Option<LocSet> {
        let classes: Vec<&'s str> = {
            let mut cs: Vec<&'s str> = objs.iter().filter_map(|o| self.object_class.get(&o).copied()).collect();
            cs.sort_unstable();
            cs.dedup();
            cs
        };
        let [class] = classes.as_slice() else { return None };
        let (_, def) = self.classes.method(class, name)?;
        let vals: Vec<LocSet> = args
            .iter()
            .map(|a| match self.object_named(*a, flow) {
                Some(o) => o,
                None => self.expr(*a, flow, false),
            })
            .collect();
        if self.inlined.len() >= super::MAX_INLINE || self.inlined.contains(&name) || !self.within_budget(n) {
            return Some(LocSet::new());
        }
        let texts: Vec<String> = args.iter().map(|a| self.argument_text(*a)).collect();
        Some(self.inline_method(n, name, def, Some(objs), &vals, &texts, flow))
    }

    /// `buf[i]` for `buf` an object of a class with `operator[]` (`T& operator[](size_t i) {
    /// return ptr_[i]; }`): the operator runs on it, and what it returns is the element's place.
    /// `None`: not such an object.
    pub(super) fn index_operator(
        &mut self,
        n: Node<'t>,
        object: Node<'t>,
        index: Option<Node<'t>>,
        flow: &mut Flow,
    ) -> Option<LocSet> {
        if !matches!(object.kind(), "identifier" | "field_expression") {
            return None;
        }
        let objs = match self.object_named(object, flow) {
            Some(o) => o,
            None if object.kind() == "field_expression" => {
                let arrow = self.is_arrow(object);
                let inner = object.field("argument")?;
                let field = self.text(object.field("field")?).to_string();
                let owners = self.object_of(inner, arrow, flow);
                self.field_value(&owners, &format!("{field}."), flow)
            }
            None => return None,
        };
        let args: Vec<Node<'t>> = index.into_iter().collect();
        self.method_on(n, objs, "operator[]", &args, flow)
    }

    /// Whether a bare call names a method of `this`'s class (`terminate()` inside a plugin).
    pub(super) fn method_call_target(&self, func: Option<Node<'t>>, flow: &Flow) -> Option<()> {
        let f = func?;
        if f.kind() != "identifier" {
            return None;
        }
        let class = self.this_class(flow)?;
        self.classes.method(class, self.text(f)).map(|_| ())
    }

    /// `new Foo(args)`, `std::make_unique<Foo>(args)`, `Foo(args)` of a class the file
    /// defines: a new object, constructed.
    pub(super) fn new_object(&mut self, at: Node<'t>, class: &'s str, args: &[Node<'t>], flow: &mut Flow) -> LocSet {
        let o = self.loc_at(at, "object", Some(MemKind::Pageable), None, false);
        self.construct(at, class, o, args, flow, 0);
        LocSet::single(o)
    }

    /// What a call makes when it makes an object or a smart pointer: `std::make_unique<Foo>(..)`
    /// and `make_shared` (a new object, constructed; `T[]`: new memory), `Foo(args)` (a
    /// temporary object), `std::shared_ptr<T>(raw, deleter)` (the pointer, its deleter checked).
    /// `None`: not such a call.
    pub(super) fn made_by_call(
        &mut self,
        n: Node<'t>,
        f: Node<'t>,
        name: &str,
        args: &[Node<'t>],
        flow: &mut Flow,
    ) -> Option<LocSet> {
        let written = self.text(f);
        if matches!(name, "make_unique" | "make_shared") {
            let targs = template_args(written);
            let t = targs.first()?;
            if t.ends_with(']') {
                for a in args {
                    self.expr(*a, flow, false);
                }
                let l = self.loc_at(n, "new", Some(MemKind::Pageable), None, true);
                self.locs[l.0 as usize].allocator = Some(cuda_lint_machine::Allocator::CppNew);
                return Some(LocSet::single(l));
            }
            let class = self.class_of_type(t)?;
            let o = self.new_object(n, class, args, flow);
            for l in o.iter() {
                self.locs[l.0 as usize].allocated = true;
                self.locs[l.0 as usize].allocator = Some(cuda_lint_machine::Allocator::CppNew);
            }
            return Some(o);
        }
        // Through an alias too (`using StagingPtr = std::shared_ptr<uint8_t>;`).
        let resolved = self.classes.resolve(written);
        if smart_pointer(resolved.trim_start_matches("std::")).is_some() && f.kind() != "field_expression" {
            if args.is_empty() {
                return Some(LocSet::new());
            }
            self.smart_pointer_made(resolved, args, flow);
            return Some(self.expr(args[0], flow, false));
        }
        if matches!(
            f.kind(),
            "identifier" | "qualified_identifier" | "template_type" | "template_function"
        ) && !self.functions.contains_key(name)
            && let Some(class) = self.class_of_type(written)
            && base_name(written) == name
        {
            return Some(self.new_object(n, class, args, flow));
        }
        None
    }

    /// A smart pointer made over the pointer `args[0]` with the deleter of its type or
    /// `args[1]`: the deleter is checked against what made the memory (`mismatched_free`),
    /// where the pointer is handed over.
    pub(super) fn smart_pointer_made(&mut self, ty: &'s str, args: &[Node<'t>], flow: &mut Flow) {
        let Some(&ptr) = args.first() else { return };
        // The smart pointer owns the memory from here: its deleter releases it (however it is
        // checked below).
        let owned = self.expr(ptr, flow, false);
        let owned = self.memory(&owned);
        self.machine.handed_over(&mut flow.m, &owned, &self.regions());
        let Some(deleter) = self.deleter_of(ty, args.get(1).copied(), flow) else {
            return;
        };
        let vals = self.expr(ptr, flow, false);
        if vals.is_empty() || vals.contains(self.unknown) {
            return;
        }
        self.release_with(ptr, deleter, &vals, flow);
    }

    /// How a smart pointer of type `ty` (its second template argument) or given `arg` releases.
    fn deleter_of(&self, ty: &'s str, arg: Option<Node<'t>>, flow: &Flow) -> Option<Deleter<'t>> {
        if let Some(a) = arg {
            let mut a = a;
            if a.kind() == "pointer_expression" && self.text(a).starts_with('&') {
                a = a.field("argument")?;
            }
            return match a.kind() {
                "lambda_expression" => Some(Deleter::Body(a)),
                "identifier" | "qualified_identifier" => {
                    let name = super::callee_name(a, self.src);
                    if let Some(effects) = api::effects(&name) {
                        return Some(Deleter::Api(effects));
                    }
                    if let Some(&l) = self.lambdas.get(self.text(a)) {
                        return Some(Deleter::Body(l));
                    }
                    self.functions.get(name.as_str()).map(|&d| Deleter::Body(d))
                }
                // `PinnedDeleter{}`, `PinnedDeleter()`.
                "compound_literal_expression" | "call_expression" => {
                    let t = self.text(a);
                    let class = self.classes.class_of(t.split(['{', '(']).next().unwrap_or(t))?;
                    self.classes.method(class, "operator()").map(|(_, d)| Deleter::Body(d))
                }
                _ => None,
            };
        }
        let _ = flow;
        let ty = self.classes.resolve(ty);
        let targs = template_args(ty);
        match targs.get(1) {
            Some(d) => {
                let class = self.classes.class_of(d)?;
                self.classes.method(class, "operator()").map(|(_, d)| Deleter::Body(d))
            }
            None if smart_pointer(ty).is_some() => Some(Deleter::Delete),
            None => None,
        }
    }

    /// Runs a deleter on `vals` for what it says of the memory's allocator only (not when).
    fn release_with(&mut self, at: Node<'t>, deleter: Deleter<'t>, vals: &LocSet, flow: &mut Flow) {
        let saved = self.checking_release;
        self.checking_release = true;
        self.apply_deleter(at, deleter, vals, flow, true);
        self.checking_release = saved;
    }

    /// A deleter run on `vals`: a release function's effects, a deleter's body run inline
    /// (`probe`: on a copy of the path, for what it says only), or `delete`.
    fn apply_deleter(&mut self, at: Node<'t>, deleter: Deleter<'t>, vals: &LocSet, flow: &mut Flow, probe: bool) {
        match deleter {
            Deleter::Api(effects) => {
                self.apply_values(at, effects, &[at], std::slice::from_ref(vals), flow);
            }
            Deleter::Body(def) => {
                if self.inlined.len() < super::MAX_INLINE && self.within_budget(at) {
                    let name = self.text(def);
                    let mut copy;
                    let run = if probe {
                        copy = flow.clone();
                        &mut copy
                    } else {
                        &mut *flow
                    };
                    self.inline_method(at, name, def, None, std::slice::from_ref(vals), &[], run);
                }
            }
            // `delete` of host memory: its allocator is checked where the pointer takes it.
            Deleter::Delete if probe => {
                let mem = self.memory(vals);
                if !mem.is_empty() {
                    let event = cuda_lint_machine::Event::Dealloc {
                        regions: &mem,
                        by: cuda_lint_machine::Allocator::CppNew,
                    };
                    self.emit(at, event, flow);
                }
            }
            Deleter::Delete => {}
        }
    }
}

/// Whether the block gives up or replaces what the smart pointer `name` holds
/// (`name.release()`, `name.reset(..)`): its end does not free that.
fn released_in(block: Node<'_>, name: &str, src: &str) -> bool {
    let text = block.utf8_text(src.as_bytes()).unwrap_or("");
    [".release(", ".reset(", "->release(", "->reset("]
        .iter()
        .any(|m| text.contains(&format!("{name}{m}")))
}

/// The names a constructor's initializer list sets (members and bases).
fn initialized_names<'s>(src: &'s str) -> impl Fn(Node<'_>) -> Vec<&'s str> {
    move |def: Node<'_>| {
        let mut c = def.walk();
        let Some(list) = def
            .named_children(&mut c)
            .find(|k| k.kind() == "field_initializer_list")
        else {
            return Vec::new();
        };
        let mut c = list.walk();
        list.named_children(&mut c)
            .filter_map(|i| i.named_child(0))
            .map(|n| base_name(&src[n.start_byte()..n.end_byte()]))
            .collect()
    }
}

/// The arguments an initializer gives: `(a, b)`, `{a, b}`, `= v`; `Foo f(a, b);` read by the
/// parser as a function's declaration gives its "parameters" (`a` and `b`, as types).
pub(super) fn argument_nodes(n: Node<'_>) -> Vec<Node<'_>> {
    match n.kind() {
        "function_declarator" => {
            let Some(list) = n.field("parameters") else {
                return Vec::new();
            };
            let mut c = list.walk();
            list.named_children(&mut c)
                .map(|p| match (p.field("type"), p.field("declarator")) {
                    (Some(t), None) => t,
                    _ => p,
                })
                .collect()
        }
        "argument_list" | "initializer_list" => {
            let mut c = n.walk();
            n.named_children(&mut c).filter(|a| a.kind() != "comment").collect()
        }
        _ => vec![n],
    }
}

/// Whether the block hands the variable on (`std::move(p)`, `p.release()`): it no longer
/// owns what it held at the block's end.
fn moved_in(block: Node<'_>, name: &str, src: &str) -> bool {
    let text = &src[block.start_byte()..block.end_byte()];
    text.contains(&format!("move({name})")) || text.contains(&format!("{name}.release()"))
}

/// A number type (`size_t`, `int`, `unsigned long`, `float`, `std::uint32_t`), or a CUDA vector
/// type, not memory: one whose size the table of scalar sizes knows.
pub(super) fn is_scalar_type(ty: &str) -> bool {
    let t = ty
        .trim()
        .trim_start_matches("const ")
        .trim_start_matches("std::")
        .trim();
    super::const_bytes_with(&format!("sizeof({t})"), &|_| None).is_some() || matches!(t, "ptrdiff_t" | "ssize_t")
}
