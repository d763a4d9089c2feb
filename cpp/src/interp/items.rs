//! Loops over the elements of a collection (`for (auto& w : workers)`, `workers[i]` with `i`
//! the loop's counter): every element is one location to the analysis (the elements made by
//! one site in a loop, or pushed into one container), so each round moves on to another item,
//! and the work started on earlier items in the loop used those items, not this one
//! ([`cuda_lint_machine::Machine::next_item`]), as the Rust front end does for an iterator's
//! items. What an element holds (a worker's buffers, a slot's pinned memory) is apart with it.

use cuda_lint_machine::{Loc, LocSet, OpSet};
use tree_sitter::Node;

use super::{ELEMENTS, FieldExt, FileAnalysis, Flow};

/// How many nodes of a loop's body are looked at for `x[i]`.
const MAX_BODY_NODES: usize = 20_000;

impl<'s, 't> FileAnalysis<'s, 't> {
    /// The items a loop visits one per round: the elements of the range of a range-based `for`,
    /// or of the collections its body indexes with its counter (`v[i]` in `for (..; ..; ++i)`),
    /// with the memory each element holds.
    pub(super) fn loop_items(&self, n: Node<'t>, range: &LocSet, flow: &Flow) -> LocSet {
        let mut collections = range.clone();
        if let Some(counter) = self.loop_counter(n) {
            collections.union_with(&self.indexed_by(n, &counter, flow));
        }
        let mut items = LocSet::new();
        for c in collections.iter() {
            let mut elements = self.field_value(&LocSet::single(c), ELEMENTS, flow);
            // A collection of structs: its fields are its elements' (one object for all).
            if flow.fields.keys().any(|(o, f)| *o == c && f != ELEMENTS) {
                elements.insert(c);
            }
            for e in elements.iter() {
                items.insert(e);
                items.union_with(&self.held_by(e, flow, 0));
            }
        }
        // The collections themselves stay one: only what they hold is apart.
        items.iter().filter(|l| !collections.contains(*l)).collect()
    }

    /// The parts of buffers a loop reaches at offsets that change each round (`d + off` with
    /// `off` declared in the body, `h + i * chunk` with `i` the counter): each round's part is
    /// another item, as the elements of a collection are.
    pub(super) fn loop_offset_views(&self, n: Node<'t>) -> LocSet {
        // Views are only ever added: what was found stays, until there are more.
        if let Some((known, found)) = self.offset_views_of.borrow().get(&n.id())
            && *known == self.views.len()
        {
            return found.clone();
        }
        let names = self.round_names(n);
        let found: LocSet = if names.is_empty() {
            LocSet::new()
        } else {
            self.views
                .iter()
                .filter(|((_, offset), _)| names_in(offset).any(|token| names.iter().any(|name| name == token)))
                .map(|(_, &v)| v)
                .collect()
        };
        self.offset_views_of
            .borrow_mut()
            .insert(n.id(), (self.views.len(), found.clone()));
        found
    }

    /// Whether an offset written at `at` (`off`, `i * chunk`) names a value that changes each
    /// round of a loop around it: the loop's counter, or a name declared in its body.
    pub(super) fn offset_changes_per_round(&self, at: Node<'t>, offset: &str) -> bool {
        if let Some(&changes) = self.per_round_offsets.borrow().get(&at.id()) {
            return changes;
        }
        let changes = self.find_offset_changes_per_round(at, offset);
        self.per_round_offsets.borrow_mut().insert(at.id(), changes);
        changes
    }

    fn find_offset_changes_per_round(&self, at: Node<'t>, offset: &str) -> bool {
        let mut cur = at.parent();
        while let Some(p) = cur {
            match p.kind() {
                "for_statement" | "while_statement" | "do_statement" | "for_range_loop" => {
                    let names = self.round_names(p);
                    if names_in(offset).any(|token| names.iter().any(|name| name == token)) {
                        return true;
                    }
                }
                "function_definition" | "lambda_expression" => return false,
                _ => {}
            }
            cur = p.parent();
        }
        false
    }

    /// The names whose values change each round of loop `n`: its counter and the names its
    /// body declares.
    fn round_names(&self, n: Node<'t>) -> std::rc::Rc<Vec<String>> {
        if let Some(names) = self.round_names_of.borrow().get(&n.id()) {
            return names.clone();
        }
        let names = std::rc::Rc::new(self.find_round_names(n));
        self.round_names_of.borrow_mut().insert(n.id(), names.clone());
        names
    }

    fn find_round_names(&self, n: Node<'t>) -> Vec<String> {
        let mut names: Vec<String> = self.loop_counter(n).into_iter().collect();
        if let Some(body) = n.field("body") {
            let mut stack = vec![body];
            let mut seen = 0;
            while let Some(x) = stack.pop() {
                seen += 1;
                if seen > MAX_BODY_NODES {
                    break;
                }
                if x.kind() == "declaration" {
                    let mut c = x.walk();
                    for d in x.children_by_field_name("declarator", &mut c) {
                        if let Some(name) = super::declared_name(d, self.src) {
                            names.push(name);
                        }
                    }
                }
                let mut c = x.walk();
                stack.extend(x.named_children(&mut c));
            }
        }
        names
    }

    /// The memory an object's fields hold, and that of its member objects.
    pub(super) fn held_memory(&self, o: Loc, flow: &Flow) -> LocSet {
        self.held_by(o, flow, 0)
    }

    /// The memory an object's fields hold, and that of its member objects (bounded).
    fn held_by(&self, o: Loc, flow: &Flow, depth: u32) -> LocSet {
        let mut out = LocSet::new();
        if depth > 2 {
            return out;
        }
        for ((owner, field), v) in &flow.fields {
            if *owner != o || field == ELEMENTS {
                continue;
            }
            for l in v.iter() {
                if field.ends_with('.') {
                    out.insert(l);
                    out.union_with(&self.held_by(l, flow, depth + 1));
                } else if self.locs[l.0 as usize].kind.is_some() {
                    out.insert(l);
                }
            }
        }
        out
    }

    /// The counter of a `for (..; ..; i++)` loop (`i++`, `++i`, `i += k`, `i = i + k`).
    fn loop_counter(&self, n: Node<'t>) -> Option<String> {
        if n.kind() != "for_statement" {
            return None;
        }
        let u = n.field("update")?;
        let target = match u.kind() {
            "update_expression" => u.field("argument")?,
            "assignment_expression" => u.field("left")?,
            _ => return None,
        };
        (target.kind() == "identifier").then(|| self.text(target).to_string())
    }

    /// The collections a loop's body indexes with `counter` (`v[i]`, `this->slots_[i]`): what
    /// each names, looked up without running anything.
    fn indexed_by(&self, n: Node<'t>, counter: &str, flow: &Flow) -> LocSet {
        let mut out = LocSet::new();
        let Some(body) = n.field("body") else { return out };
        let mut stack = vec![body];
        let mut seen = 0;
        while let Some(x) = stack.pop() {
            seen += 1;
            if seen > MAX_BODY_NODES {
                break;
            }
            if x.kind() == "subscript_expression"
                && let Some(i) = x.field("indices").and_then(|l| l.named_child(0))
                && i.kind() == "identifier"
                && self.text(i) == counter
                && let Some(arr) = x.field("argument")
            {
                out.union_with(&self.peek(arr, flow));
            }
            let mut c = x.walk();
            stack.extend(x.named_children(&mut c));
        }
        out
    }

    /// What a name or a member names, without running anything (`v`, `this->v`, `v_`).
    fn peek(&self, x: Node<'t>, flow: &Flow) -> LocSet {
        match x.kind() {
            "identifier" => {
                let name = self.text(x);
                match flow.vars.get(name) {
                    Some(v) => v.clone(),
                    None => match self.named_place(name, flow) {
                        Some(objs) => self.field_value(&objs, name, flow),
                        None => LocSet::new(),
                    },
                }
            }
            "field_expression" => {
                let (Some(a), Some(f)) = (x.field("argument"), x.field("field")) else {
                    return LocSet::new();
                };
                let objs = match a.kind() {
                    "this" => flow.vars.get("this").cloned().unwrap_or_default(),
                    "identifier" => match flow.objects.get(self.text(a)) {
                        Some(&o) => LocSet::single(o),
                        None => self.peek(a, flow),
                    },
                    _ => return LocSet::new(),
                };
                self.field_value(&objs, self.text(f), flow)
            }
            _ => LocSet::new(),
        }
    }

    /// A round of a loop starts: it moves on to the next of `items`; `started` is the work the
    /// loop started in its earlier rounds.
    pub(super) fn next_round(&self, items: &LocSet, started: &OpSet, flow: &mut Flow) {
        for item in items.iter() {
            self.machine.next_item(&mut flow.m, item, started);
        }
    }
}

/// The names in an offset as written (`i * chunk_` names `i` and `chunk_`).
fn names_in(offset: &str) -> impl Iterator<Item = &str> {
    offset
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|t| !t.is_empty())
}
