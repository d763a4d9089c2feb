//! Variables of the file's scope (`int* d_a;` outside any function, in a namespace too): one
//! object whose fields they are, so that what `init()` stores in them is what `main` and
//! `check()` read after it, as in C.

use std::collections::HashMap;

use cuda_lint_machine::{LocSet, MemKind};
use tree_sitter::Node;

use super::{FieldExt, FileAnalysis, Flow, contains_kind, declared_name};

/// A variable of the file's scope: its declared type and declarator.
pub(super) struct Global<'s, 't> {
    pub ty: &'s str,
    pub declarator: Node<'t>,
    /// Whether it starts as a null pointer and the file never gives it a value: a pointer
    /// declared without an initializer (or with a null one), not `extern`, never assigned,
    /// never `&`-taken, never handed to a function that could change it (see [`changed_names`]).
    pub null: bool,
}

/// The file's variables, by name (the first declaration of each).
pub(super) fn collect<'s, 't>(
    root: Node<'t>,
    src: &'s str,
    excluded: &crate::config::Excluded,
) -> HashMap<String, Global<'s, 't>> {
    let mut out = HashMap::new();
    let mut stack = vec![root];
    let mut steps = 0usize;
    while let Some(n) = stack.pop() {
        steps += 1;
        if steps > 200_000 || excluded.contains(n.start_byte()) {
            continue;
        }
        match n.kind() {
            "translation_unit"
            | "declaration_list"
            | "linkage_specification"
            | "namespace_definition"
            | "preproc_if"
            | "preproc_ifdef"
            | "preproc_else"
            | "preproc_elif" => {
                let mut c = n.walk();
                stack.extend(n.named_children(&mut c));
            }
            "declaration" => {
                let Some(ty) = n.field("type") else { continue };
                let ty = &src[ty.start_byte()..ty.end_byte()];
                let mut c = n.walk();
                for d in n.children_by_field_name("declarator", &mut c) {
                    if contains_kind(d, "function_declarator") {
                        continue;
                    }
                    if let Some(name) = declared_name(d, src) {
                        let text = &src[n.start_byte()..n.end_byte()];
                        let value = (d.kind() == "init_declarator")
                            .then(|| d.field("value"))
                            .flatten()
                            .map(|v| &src[v.start_byte()..v.end_byte()]);
                        let null = contains_kind(d, "pointer_declarator")
                            && !contains_kind(d, "array_declarator")
                            && !text.trim_start().starts_with("extern")
                            && value.is_none_or(super::is_null);
                        out.entry(name).or_insert(Global {
                            ty,
                            declarator: d,
                            null,
                        });
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The names the file may give a value to outside their declaration: assigned (`x = ..`,
/// `x++`), their address taken (`&x`), or handed to a function that is not a CUDA or C API
/// function or a kernel (a C++ reference parameter may change them). `None`: the file is
/// too large to tell.
pub(super) fn changed_names(
    root: Node<'_>,
    src: &str,
    excluded: &crate::config::Excluded,
) -> Option<std::collections::HashSet<String>> {
    let mut out = std::collections::HashSet::new();
    // Per function, the names it declares as its own (found once each).
    let mut locals: std::collections::HashMap<usize, std::collections::HashSet<String>> =
        std::collections::HashMap::new();
    let mut stack = vec![root];
    let mut steps = 0usize;
    while let Some(n) = stack.pop() {
        steps += 1;
        if steps > 2_000_000 {
            return None;
        }
        if excluded.contains(n.start_byte()) {
            continue;
        }
        if n.kind() == "identifier"
            && let Some(name) = n.utf8_text(src.as_bytes()).ok()
            && changes(n, src)
            && !enclosing_function(n)
                .is_some_and(|f| locals.entry(f.id()).or_insert_with(|| own_names(f, src)).contains(name))
        {
            out.insert(name.to_string());
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    Some(out)
}

/// The function (or lambda) around `x`.
fn enclosing_function(x: Node<'_>) -> Option<Node<'_>> {
    let mut f = x.parent();
    while let Some(p) = f {
        if matches!(p.kind(), "function_definition" | "lambda_expression") {
            return Some(p);
        }
        f = p.parent();
    }
    None
}

/// The variables and parameters a function declares as its own (not its `static` locals, which
/// are themselves variables whose changes are tracked by name): where the function assigns one,
/// it is not the file's variable of that name (`float* d_partials = nullptr;` shadowing it).
fn own_names(f: Node<'_>, src: &str) -> std::collections::HashSet<String> {
    let mut out = std::collections::HashSet::new();
    let mut stack = vec![f];
    let mut steps = 0;
    while let Some(n) = stack.pop() {
        steps += 1;
        if steps > 200_000 {
            break;
        }
        let is_static =
            n.kind() == "declaration" && src[n.start_byte()..n.end_byte()].trim_start().starts_with("static");
        if matches!(n.kind(), "declaration" | "parameter_declaration") && !is_static {
            let mut c = n.walk();
            for d in n.children_by_field_name("declarator", &mut c) {
                if let Some(name) = super::declared_name(d, src) {
                    out.insert(name);
                }
            }
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    out
}

/// Whether the identifier `x` is used where it may be given a value.
fn changes(x: Node<'_>, src: &str) -> bool {
    // Through parentheses and casts: `(void**)&x`.
    let mut cur = x;
    let mut parent = x.parent();
    let mut steps = 0;
    while let Some(p) = parent
        && matches!(p.kind(), "parenthesized_expression" | "cast_expression")
        && steps < 8
    {
        cur = p;
        parent = p.parent();
        steps += 1;
    }
    let Some(p) = parent else { return false };
    match p.kind() {
        "assignment_expression" => p.field("left").is_some_and(|l| l.id() == cur.id()),
        "update_expression" => true,
        "pointer_expression" => src[p.start_byte()..p.end_byte()].trim_start().starts_with('&'),
        "argument_list" => {
            let Some(call) = p.parent() else { return true };
            if call.kind() != "call_expression" {
                return true;
            }
            let mut c = call.walk();
            let launch = call.children(&mut c).any(|k| k.kind() == "kernel_call_syntax");
            let name = call
                .field("function")
                .map(|f| super::callee_name(f, src))
                .unwrap_or_default();
            !launch && crate::api::effects(&name).is_none()
        }
        _ => false,
    }
}

impl<'s, 't> FileAnalysis<'s, 't> {
    /// A variable of the file's scope named where no local, parameter or member of that name
    /// is: the object its value is a field of.
    pub(super) fn global_objects(&self, name: &str, flow: &Flow) -> Option<LocSet> {
        if flow.vars.contains_key(name) || flow.objects.contains_key(name) || !self.globals.contains_key(name) {
            return None;
        }
        Some(LocSet::single(self.globals_obj))
    }

    /// At the start of a function analysed on its own: the file's arrays and containers are
    /// memory of their own (the same each time).
    pub(super) fn bind_globals(&mut self, flow: &mut Flow) {
        let arrays: Vec<(String, Node<'t>, MemKind, &'s str)> = self
            .globals
            .iter()
            .filter_map(|(name, g)| {
                let pointer = contains_kind(g.declarator, "pointer_declarator");
                let array = contains_kind(g.declarator, "array_declarator");
                let kind = if pointer {
                    None
                } else if array {
                    Some(MemKind::Pageable)
                } else {
                    self.container_kind_of(g.ty)
                };
                kind.map(|k| (name.clone(), g.declarator, k, g.ty))
            })
            .collect();
        let globals = LocSet::single(self.globals_obj);
        for (name, declarator, kind, ty) in arrays {
            let l = self.container(declarator, kind, &name);
            // A file-scope array holds what its declaration says (`static float3 pos[N]`).
            if contains_kind(declarator, "array_declarator") && self.locs[l.0 as usize].bytes.is_none() {
                self.var_types
                    .entry(name.clone())
                    .or_insert_with(|| (ty, super::array_lengths(declarator, self.src), false));
                self.locs[l.0 as usize].bytes = self.fixed_bytes(&name, ty, true, None);
            }
            self.store_field(&globals, &name, &LocSet::single(l), flow);
        }
        // Pointers nothing gives memory: null wherever they are used.
        let nulls: Vec<String> = self
            .globals
            .iter()
            .filter(|(name, g)| g.null && self.changed_names.as_ref().is_some_and(|c| !c.contains(*name)))
            .map(|(name, _)| name.clone())
            .collect();
        for name in nulls {
            self.store_field(&globals, &name, &LocSet::single(self.null), flow);
        }
    }
}
