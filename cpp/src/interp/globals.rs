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
                        out.entry(name).or_insert(Global { ty, declarator: d });
                    }
                }
            }
            _ => {}
        }
    }
    out
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
        let arrays: Vec<(String, Node<'t>, MemKind)> = self
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
                kind.map(|k| (name.clone(), g.declarator, k))
            })
            .collect();
        let globals = LocSet::single(self.globals_obj);
        for (name, declarator, kind) in arrays {
            let l = self.container(declarator, kind, &name);
            self.store_field(&globals, &name, &LocSet::single(l), flow);
        }
    }
}
