//! Values and places: what an expression may point to, what variables, fields and elements
//! hold, and where a call's output argument stores what it made; new places and their names.

use super::*;

impl<'s, 't> FileAnalysis<'s, 't> {
    /// Stores what an API call made (`l`) where its out-parameter `a` points: a variable
    /// (`&p`), a field (`&s.d_buf`) or an element (`&rows[i]`). `handle`: a stream or event,
    /// named after the variable whatever it was named before.
    pub(super) fn store_out(&mut self, a: Option<Node<'t>>, l: Loc, flow: &mut Flow, handle: bool) {
        let Some(name) = self.store_values_out(a, &LocSet::single(l), flow) else {
            return;
        };
        if handle {
            self.locs[l.0 as usize].name = Some(name);
        } else {
            self.name_new(&LocSet::single(l), &name);
        }
    }

    /// Stores `vals` where the output argument `a` (`&p`, `&s.f`, `&v[i]`) points; returns the
    /// name of the place, for the memory it now holds.
    pub(super) fn store_values_out(&mut self, a: Option<Node<'t>>, vals: &LocSet, flow: &mut Flow) -> Option<String> {
        let a = a?;
        let name = if let Some(var) = out_var(a, self.src) {
            // A member named bare in a method (`cudaMalloc(&d_, n)`): `this`'s field.
            match self.named_place(&var, flow) {
                Some(objs) => {
                    self.store_field(&objs, &var, vals, flow);
                    var
                }
                None => {
                    flow.vars.insert(var.clone(), vals.clone());
                    // `cudaMalloc(&p, n)` for `p` a reference to a range's element: named as
                    // an element of the range (`d_act[..]`).
                    match flow.element_refs.get(&var).cloned() {
                        Some(range) => {
                            self.store_field(&range, ELEMENTS, vals, flow);
                            let container = range.iter().find_map(|r| self.locs[r.0 as usize].name.clone());
                            container.map_or(var, |c| format!("{c}[..]"))
                        }
                        None => var,
                    }
                }
            }
        } else if let Some(p) = strip_casts(a, self.src).filter(|p| p.kind() == "identifier") {
            // `cudaMalloc(p, n)` for `p` a pointer to the caller's pointer (`float** p`): what
            // it points to, `*p`, is what the caller passed the address of.
            let name = self.text(p).to_string();
            flow.vars.insert(format!("*{name}"), vals.clone());
            name
        } else if let Some((objs, field)) = self.out_field(a, flow) {
            self.store_field(&objs, &field, vals, flow);
            // An element at a constant index is an element too.
            if field.starts_with('[') && field != ELEMENTS {
                self.store_field(&objs, ELEMENTS, vals, flow);
            }
            let mut text = self
                .text(a)
                .trim_start_matches(|c: char| c != '&')
                .trim_start_matches('&');
            text = text.trim_start_matches("this->");
            text.trim_end_matches(')').to_string()
        } else {
            return None;
        };
        Some(name)
    }

    /// `s.f = v`, `s->f = v`, `a[i] = v`: what the field or element now holds.
    pub(super) fn store_through(&mut self, left: Node<'t>, value: &LocSet, flow: &mut Flow) {
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
                // Stored where the analysis does not follow (a struct of a library's type):
                // code it cannot see may reach the memory from there.
                if objs.is_empty() {
                    let mem = self.memory(value);
                    self.machine.handed_over(&mut flow.m, &mem, &self.regions());
                }
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
            // `*p = d;` for `p` a pointer to the caller's pointer: the caller's pointer.
            "pointer_expression" if self.text(left).trim_start().starts_with('*') => {
                if let Some(p) = left.field("argument").filter(|p| p.kind() == "identifier") {
                    let name = format!("*{}", self.text(p));
                    flow.vars.insert(name, value.clone());
                }
            }
            _ => {}
        }
    }

    /// The field an element at a constant index is also kept under (`h[0]`: `[0]`), so that
    /// `h[0]` and `h[1]` stay apart; elements at other indices are all `[]`.
    pub(super) fn element_key(&self, subscript: Node<'t>) -> Option<String> {
        let i = subscript.field("indices")?.named_child(0)?;
        (i.kind() == "number_literal").then(|| format!("[{}]", self.text(i).trim()))
    }

    /// The objects `a` may be in a field access `a.f` (`arrow`: `a->f`).
    pub(super) fn object_of(&mut self, a: Node<'t>, arrow: bool, flow: &mut Flow) -> LocSet {
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
    pub(super) fn field_value(&self, objs: &LocSet, field: &str, flow: &Flow) -> LocSet {
        let mut out = LocSet::new();
        for o in objs.iter() {
            if let Some(v) = flow.fields.get(&(o, field.to_string())) {
                out.union_with(v);
            }
        }
        out
    }

    /// Stores `value` in the field of the objects: replaced when the object is one, else added.
    pub(super) fn store_field(&mut self, objs: &LocSet, field: &str, value: &LocSet, flow: &mut Flow) {
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
    pub(super) fn out_field(&mut self, a: Node<'t>, flow: &mut Flow) -> Option<(LocSet, String)> {
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

    /// Names memory after the caller's variable, whatever it was named before.
    pub(super) fn rename(&mut self, vals: &LocSet, name: &str) {
        for l in vals.iter() {
            let info = &mut self.locs[l.0 as usize];
            if info.allocated {
                info.name = Some(name.to_string());
                info.named_in = self.inlined.len();
            }
        }
    }

    /// Names new memory after the variable it is first stored in.
    pub(super) fn name_new(&mut self, vals: &LocSet, name: &str) {
        for l in vals.iter() {
            let info = &mut self.locs[l.0 as usize];
            if info.allocated && (info.name.is_none() || self.inlined.len() < info.named_in) {
                info.name = Some(name.to_string());
                info.named_in = self.inlined.len();
            }
        }
    }

    // ---- expressions: what a pointer value may point to ----

    pub(super) fn expr(&mut self, n: Node<'t>, flow: &mut Flow, write: bool) -> LocSet {
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

    pub(super) fn expr_inner(&mut self, n: Node<'t>, flow: &mut Flow, write: bool) -> LocSet {
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
                // An offset that is neither a constant nor one name may be any: read from an
                // element or a field (`base + c.offset`), or computed (`base + i * page_`, `h +
                // i * chunk` in a loop over chunks). One name the code steps (`mapped_ += sz`),
                // or one a loop sets each round (`off = c * chunk`), is a new offset each time.
                let anywhere =
                    !out.is_empty() && (self.offset_may_be_any(&offset) || self.offset_changes_per_round(n, &offset));
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
                        if anywhere {
                            self.locs[v.0 as usize].any_offset = true;
                        }
                        views.insert(v);
                    } else {
                        views.insert(self.offset_view(l, &format!("{op}{offset}"), anywhere));
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
                        let mut target = self.expr(a, flow, false);
                        if target.is_empty()
                            && let Some(p) = self.converted_to_pointer(a, flow)
                        {
                            target = p;
                        }
                        self.access(n, &target, write, flow);
                        LocSet::new()
                    }
                    _ => LocSet::new(),
                }
            }
            "subscript_expression" => {
                // `buf[i]` of an object whose class has `operator[]`: the place it returns.
                let index = n.field("indices").and_then(|l| l.named_child(0));
                if let Some(a) = n.field("argument")
                    && let Some(place) = self.index_operator(n, a, index, flow)
                {
                    self.access(n, &place, write, flow);
                    return self.field_value(&place, ELEMENTS, flow);
                }
                let mut target = n
                    .field("argument")
                    .map(|a| self.expr(a, flow, false))
                    .unwrap_or_default();
                // `buf[i]` of an object whose class converts to a pointer (`operator T*()`): the
                // built-in subscript of the pointer it converts to.
                if target.is_empty()
                    && let Some(p) = n.field("argument").and_then(|a| self.converted_to_pointer(a, flow))
                {
                    target = p;
                }
                if let Some(i) = n.field("indices") {
                    self.expr(i, flow, false);
                }
                // `h[k]` is `*(h + k)`: the part `h + k` where the program names it elsewhere.
                if let Some(k) = index {
                    let offset: String = format!("+{}", self.text(k).split_whitespace().collect::<String>());
                    target = target
                        .iter()
                        .map(|l| self.views.get(&(self.root_of(l), offset.clone())).copied().unwrap_or(l))
                        .collect();
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
                } else if a.kind() == "field_expression" {
                    // `h->hdr.seq`, `p[i].pos.x`: a member of a struct embedded in what the
                    // pointer points to is that memory too.
                    self.expr(a, flow, write);
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
                            // `d = nullptr;` of a local pointer (after its `cudaFree`): no memory
                            // until something gives it some.
                            let pointer = self
                                .var_types
                                .get(&name)
                                .is_some_and(|(_, dims, pointer)| *pointer && dims.is_empty());
                            let null = pointer
                                && flow.vars.contains_key(&name)
                                && n.field("right").is_some_and(|r| is_null(self.text(r)));
                            let value = if null {
                                LocSet::single(self.null)
                            } else if right.is_empty() {
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
                        self.machine.released(&mut flow.m, &mem, &self.regions());
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
    pub(super) fn address_of(&mut self, a: Node<'t>, flow: &mut Flow) -> LocSet {
        // Whatever was known of the variable, its address lets a callee change it.
        if a.kind() == "identifier" {
            flow.facts.remove(self.text(a));
        }
        match a.kind() {
            // `&h[k]` of memory a call allocated is `h + k`: the same part of it (see the
            // binary `+` in `expr`). An array the code declares (`float* slots[4]`, `MPI_Request
            // reqs[2]`) stays whole: its elements are where calls store (`cudaMallocHost(&slots[i],
            // ..)`), which `slots[i]` reads back.
            "subscript_expression" => {
                let whole = a
                    .field("argument")
                    .map(|x| self.expr(x, flow, false))
                    .unwrap_or_default();
                let Some(k) = a
                    .field("indices")
                    .and_then(|l| l.named_child(0))
                    .or_else(|| a.field("index"))
                else {
                    return whole;
                };
                let offset: String = self.text(k).split_whitespace().collect();
                let anywhere =
                    !whole.is_empty() && (self.offset_may_be_any(&offset) || self.offset_changes_per_round(a, &offset));
                whole
                    .iter()
                    .map(|l| {
                        let info = &self.locs[self.root_of(l).0 as usize];
                        if info.kind == Some(MemKind::VmmMapping) || !info.allocated {
                            l
                        } else {
                            self.offset_view(l, &format!("+{offset}"), anywhere)
                        }
                    })
                    .collect()
            }
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

    pub(super) fn root_of(&self, l: Loc) -> Loc {
        self.locs[l.0 as usize].parent.unwrap_or(l)
    }

    /// The VMM mappings among `vals`.
    pub(super) fn mappings(&self, vals: &LocSet) -> LocSet {
        vals.iter()
            .filter(|l| self.locs[l.0 as usize].kind == Some(MemKind::VmmMapping))
            .collect()
    }

    /// The memory locations among `vals`.
    pub(super) fn memory(&self, vals: &LocSet) -> LocSet {
        vals.iter().filter(|l| self.locs[l.0 as usize].kind.is_some()).collect()
    }

    pub(super) fn access(&mut self, at: Node<'t>, target: &LocSet, write: bool, flow: &mut Flow) {
        let mem = self.accessed_memory(target);
        if mem.is_empty() {
            return;
        }
        let access = if write { Access::Write } else { Access::Read };
        self.emit(at, Event::HostAccess { regions: &mem, access }, flow);
        self.machine.host_touched(&mut flow.m, &mem, write, &self.regions());
    }

    /// The memory among `target` an access reaches (not what copies itself on access).
    pub(super) fn accessed_memory(&self, target: &LocSet) -> LocSet {
        let mut mem = self.memory(target);
        mem.retain(|l| !self.locs[l.0 as usize].copies_on_access);
        mem
    }

    /// Whether an argument names the start of its memory (`p`, `v.data()`, `&x`, `arr`,
    /// `&a[0]`), not a place inside it (`p + k`, `&a[i]`): what a byte count is measured from.
    pub(super) fn names_start(&self, a: Node<'t>) -> bool {
        let Some(a) = strip_casts(a, self.src) else {
            return false;
        };
        match a.kind() {
            "identifier" => true,
            "field_expression" => true,
            "call_expression" => a.field("function").is_some_and(|f| {
                f.kind() == "field_expression"
                    && f.field("field").is_some_and(|m| matches!(self.text(m), "data" | "get"))
            }),
            "pointer_expression" => {
                self.text(a).trim_start().starts_with('&')
                    && a.field("argument").is_some_and(|x| match x.kind() {
                        "identifier" => true,
                        "subscript_expression" => x
                            .field("indices")
                            .or_else(|| x.field("index"))
                            .is_some_and(|i| self.text(i).trim_matches(|c| c == '[' || c == ']').trim() == "0"),
                        _ => false,
                    })
            }
            _ => false,
        }
    }

    /// Whether a field expression is `p->f` (else `s.f`).
    pub(super) fn is_arrow(&self, field_expression: Node<'t>) -> bool {
        field_expression.field("operator").is_some_and(|o| self.text(o) == "->")
    }

    /// The memory an argument points to.
    pub(super) fn memory_of(&mut self, a: Node<'t>, flow: &mut Flow) -> LocSet {
        let v = self.expr(a, flow, false);
        self.memory(&v)
    }

    /// `&x` of a local object (a launch configuration): its location.
    pub(super) fn address_of_object(&mut self, x: Node<'t>, flow: &mut Flow) -> LocSet {
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
    pub(super) fn initializer_of<'n>(&self, at: Node<'n>, name: &str) -> Option<Node<'n>> {
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

    pub(super) fn new_loc(
        &mut self,
        kind: Option<MemKind>,
        name: Option<String>,
        origin: Site,
        allocated: bool,
    ) -> Loc {
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
            many: false,
            on_stream: false,
            bytes: None,
        });
        l
    }

    /// The location made at `site` (the same one each time a loop passes it).
    /// The place `offset` past memory `l` (`d + half`, `h + i * chunk`): a view of the same
    /// allocation, one per offset as written, so that work on two parts of one buffer is not
    /// taken as work on the same bytes. Memory of no known kind, null, and a zero offset stay
    /// what they are.
    /// Whether a pointer's offset as written (`size`, `i * chunk`, `c.offset`) may be any
    /// offset: not a constant, and not one name the code leaves unchanged.
    pub(super) fn offset_may_be_any(&self, offset: &str) -> bool {
        if let Some(&any) = self.offsets_any.borrow().get(offset) {
            return any;
        }
        let any = self.find_offset_may_be_any(offset);
        self.offsets_any.borrow_mut().insert(offset.to_string(), any);
        any
    }

    fn find_offset_may_be_any(&self, offset: &str) -> bool {
        let offset = offset.trim_start_matches("this->");
        let stepped = |name: &str| {
            ["+=", "-=", "++"].iter().any(|op| {
                self.src.contains(&format!("{name} {op}"))
                    || self.src.contains(&format!("{name}{op}"))
                    || self.src.contains(&format!("++{name}"))
            })
        };
        // Arithmetic over names and numbers (`(iy_end - 1) * nx`, `half * sizeof(float)`) is
        // one offset the code fixes (a loop's changing names are `offset_changes_per_round`'s);
        // one read from memory (`c.offset`, `offs[i]`, `v.size()`) or a name the code steps
        // may be any.
        let arithmetic = offset
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_*+-/() ".contains(c))
            && !calls_a_function(offset);
        let fixed = arithmetic
            && names_in_offset(offset)
                .filter(|t| !t.starts_with(|c: char| c.is_ascii_digit()))
                .all(|t| !stepped(t));
        !fixed && self.byte_count(offset).is_none()
    }

    pub(super) fn offset_view(&mut self, l: Loc, offset: &str, anywhere: bool) -> Loc {
        let info = &self.locs[l.0 as usize];
        if l == self.null
            || l == self.unknown
            || info.kind.is_none_or(|k| k == MemKind::Unknown)
            || offset.ends_with(['+', '-'])
            || matches!(&offset[1..], "0" | "0u" | "0ul" | "0UL" | "0ull")
        {
            return l;
        }
        let root = self.root_of(l);
        let key = (root, offset.to_string());
        if let Some(&v) = self.views.get(&key) {
            return v;
        }
        let info = self.locs[root.0 as usize].clone();
        let v = self.new_loc(info.kind, info.name.clone(), info.origin, info.allocated);
        let view = &mut self.locs[v.0 as usize];
        view.parent = Some(root);
        view.allocator = info.allocator;
        view.write_combined = info.write_combined;
        view.attached = info.attached;
        view.attached_streams = info.attached_streams.clone();
        view.many = info.many;
        view.any_offset = anywhere;
        self.views.insert(key, v);
        v
    }

    pub(super) fn loc_at(
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
        if allocated && matches!(what, "alloc" | "new") {
            self.locs[l.0 as usize].many = super::in_loop(n) || self.call_nodes.iter().any(|c| super::in_loop(*c));
        }
        self.by_site.insert(key, l);
        l
    }
}

/// The names and numbers an offset as written is made of.
fn names_in_offset(offset: &str) -> impl Iterator<Item = &str> {
    offset
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|t| !t.is_empty())
}

/// Whether an offset as written calls a function (`f(x)`, not `sizeof(float)` or `(a + b)`).
fn calls_a_function(offset: &str) -> bool {
    let bytes = offset.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| {
        if b != b'(' || i == 0 {
            return false;
        }
        let before = &offset[..i];
        let name: String = before
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect::<String>()
            .chars()
            .rev()
            .collect();
        !name.is_empty() && name != "sizeof"
    })
}
