//! Byte counts the source fixes: `kClasses * sizeof(float)` with `constexpr int kClasses = 256`,
//! `sizeof(params)` of a local struct, `sizeof(table)` of an array of known length. A copy
//! known to be small is not `pageable_async_copy`'s (see LINTS.md).

use std::collections::HashMap;

use tree_sitter::Node;

use super::{FieldExt, FileAnalysis, const_bytes_with};

/// How deep named constants and nested structs are followed.
const MAX_SIZE_DEPTH: u32 = 6;

/// The named integer constants of a file: `constexpr`/`const` variables with an initializer,
/// object-like `#define`s, enumerators with a value. By name, the value's text.
///
/// Names are read without scopes, so a name the file gives another meaning too is left out: a
/// function's parameter (`allocate(size_t bytes)`, whose value is its argument's), another
/// variable of that name, or a constant of that name with another value (`const size_t bytes`
/// in two functions).
pub(super) fn constants<'s>(
    root: Node<'_>,
    src: &'s str,
    excluded: &crate::config::Excluded,
) -> HashMap<&'s str, &'s str> {
    let text = |n: Node<'_>| -> &'s str { &src[n.start_byte()..n.end_byte()] };
    let mut out = HashMap::new();
    // Names with another meaning somewhere in the file.
    let mut other: std::collections::HashSet<&'s str> = std::collections::HashSet::new();
    let mut stack = vec![root];
    let mut steps = 0usize;
    while let Some(n) = stack.pop() {
        steps += 1;
        if steps > 2_000_000 {
            break;
        }
        // Not in this build: `#ifdef A const int k = 1; #else const int k = 2; #endif`.
        if excluded.contains(n.start_byte()) {
            continue;
        }
        match n.kind() {
            "declaration" | "field_declaration" => {
                let head = text(n).split('=').next().unwrap_or("");
                let constant = head.split_whitespace().any(|w| matches!(w, "const" | "constexpr"));
                let mut c = n.walk();
                for d in n.children_by_field_name("declarator", &mut c) {
                    match (d.field("declarator"), d.field("value")) {
                        (Some(name), Some(value)) if constant && name.kind() == "identifier" => {
                            let value = text(value);
                            if out.get(text(name)).is_some_and(|v| *v != value) {
                                other.insert(text(name));
                            }
                            out.entry(text(name)).or_insert(value);
                        }
                        (Some(name), _) if name.kind() == "identifier" => {
                            other.insert(text(name));
                        }
                        _ if d.kind() == "identifier" => {
                            other.insert(text(d));
                        }
                        _ => {}
                    }
                }
                if constant && let (Some(d), Some(v)) = (n.field("declarator"), n.field("default_value")) {
                    out.entry(text(d)).or_insert(text(v));
                }
                continue;
            }
            "parameter_declaration" | "optional_parameter_declaration" => {
                if let Some(d) = n.field("declarator") {
                    let mut d = d;
                    // `size_t* n`, `const T& n`, `float n[]`: the name under the declarators.
                    for _ in 0..8 {
                        match d.field("declarator") {
                            Some(inner) => d = inner,
                            None => break,
                        }
                    }
                    if d.kind() == "identifier" {
                        other.insert(text(d));
                    }
                }
                continue;
            }
            "preproc_def" => {
                if let (Some(name), Some(value)) = (n.field("name"), n.field("value")) {
                    out.entry(text(name)).or_insert(text(value).trim());
                }
                continue;
            }
            "enumerator" => {
                if let (Some(name), Some(value)) = (n.field("name"), n.field("value")) {
                    out.entry(text(name)).or_insert(text(value));
                }
                continue;
            }
            _ => {}
        }
        // In the order of the source: the first definition of a name wins.
        let mut c = n.walk();
        let children: Vec<Node> = n.named_children(&mut c).collect();
        stack.extend(children.into_iter().rev());
    }
    out.retain(|name, _| !other.contains(name));
    out
}

impl<'s, 't> FileAnalysis<'s, 't> {
    /// The byte count an expression fixes, when the source fixes it.
    pub(super) fn byte_count(&self, text: &str) -> Option<u64> {
        self.byte_count_at(text, 0)
    }

    /// [`Self::byte_count`] where no part of it is an estimate (a struct's size is: its
    /// members are each counted as at least 8 bytes): what a finding about sizes may rest on.
    pub(super) fn exact_byte_count(&self, text: &str) -> Option<u64> {
        self.estimated.set(false);
        let n = self.byte_count_at(text, 0);
        if self.estimated.replace(false) { None } else { n }
    }

    fn byte_count_at(&self, text: &str, depth: u32) -> Option<u64> {
        if depth > MAX_SIZE_DEPTH {
            return None;
        }
        const_bytes_with(text, &|atom: &str| self.size_atom(atom, depth + 1))
    }

    /// A name (`kClasses`) or a `sizeof(..)` of what the file declares.
    fn size_atom(&self, atom: &str, depth: u32) -> Option<u64> {
        if depth > MAX_SIZE_DEPTH {
            return None;
        }
        if let Some(inner) = atom.strip_prefix("sizeof") {
            let inner = inner.trim();
            let inner = inner
                .strip_prefix('(')
                .and_then(|i| i.strip_suffix(')'))
                .unwrap_or(inner)
                .trim();
            return self.size_of(inner, depth);
        }
        // `lut.size()` of a `std::array<float, 1024> lut`: its length, fixed by its type.
        if let Some(var) = atom.trim().strip_suffix(".size()") {
            // A vector declared with a size the file never changes.
            if let Some(&n) = self.vector_lengths.get(var.trim()) {
                return Some(n);
            }
            let (ty, dims, pointer) = self.var_types.get(var.trim())?;
            let resolved = self.classes.resolve(ty);
            if *pointer || !dims.is_empty() || !resolved.trim_start_matches("std::").starts_with("array<") {
                return None;
            }
            let args = super::objects::template_args(resolved);
            return self.byte_count_at(args.get(1)?, depth + 1);
        }
        // `size_t(BATCH)`, `static_cast<size_t>(n)`, `(size_t)n`: an integer conversion.
        let atom = atom.trim();
        for cast in ["size_t(", "int(", "unsigned(", "int64_t(", "uint64_t(", "long("] {
            if let Some(inner) = atom.strip_prefix(cast).and_then(|i| i.strip_suffix(')')) {
                return self.byte_count_at(inner, depth + 1);
            }
        }
        if let Some(rest) = atom.strip_prefix("static_cast<")
            && let Some((_, inner)) = rest.split_once(">(")
            && let Some(inner) = inner.strip_suffix(')')
        {
            return self.byte_count_at(inner, depth + 1);
        }
        let name = atom.trim_start_matches("::");
        let name = name.rsplit("::").next().unwrap_or(name);
        let value = self.constants.get(name)?;
        let value = value.trim().trim_start_matches('{').trim_end_matches('}');
        if let Some(n) = self.byte_count_at(value, depth + 1) {
            return Some(n);
        }
        // `static_cast<size_t>(256)`, `(size_t)256`: a cast, and nothing else, before the value
        // (not `(n + k - 1) / (k)`, whose last parenthesis holds only part of it).
        let cut = value.rfind(['(', '>'])?;
        let (head, tail) = value.split_at(cut + 1);
        if head.contains(['+', '-', '*', '/', '%', '?', '&', '|', '^', '=']) {
            return None;
        }
        self.byte_count_at(tail.trim_end_matches(')'), depth + 1)
    }

    /// The bytes of the one local object a copy's host argument is the address of (`&out` for
    /// `T out;`, not an array): its type's size when known, else that of a scalar, since a
    /// single object copied (a status, a counter, a parameter block) is small.
    pub(super) fn single_object_bytes(&self, arg: Node<'_>) -> Option<u64> {
        let text = arg.utf8_text(self.src.as_bytes()).ok()?.trim();
        let name = text.strip_prefix('&')?.trim();
        let (ty, dims, pointer) = self.var_types.get(name)?;
        if *pointer || !dims.is_empty() || self.container_kind_of(ty).is_some() {
            return None;
        }
        Some(self.size_of(ty, 0).unwrap_or(8))
    }

    /// The exact bytes of the local object or array `&x` (or `x`, an array) names: its declared
    /// type's size times its lengths, where nothing of it is an estimate.
    pub(super) fn exact_object_bytes(&self, arg: Node<'_>) -> Option<u64> {
        let text = arg.utf8_text(self.src.as_bytes()).ok()?.trim();
        let name = text.strip_prefix('&').unwrap_or(text).trim();
        let (ty, dims, pointer) = self.var_types.get(name)?;
        if *pointer || self.container_kind_of(ty).is_some() {
            return None;
        }
        if dims.is_empty() && !text.starts_with('&') {
            return None;
        }
        self.estimated.set(false);
        let n = self.size_of(name, 0);
        if self.estimated.replace(false) { None } else { n }
    }

    /// The bytes a local array or container `name` of type `ty` holds, where they are fixed
    /// and exact: `T a[N]`, `std::array<T, N>`, `std::vector<T> v(N)` (or `(N, x)`) that the
    /// file never resizes (`v.resize`, `v.push_back`, `v.assign`...).
    pub(super) fn fixed_bytes(&self, name: &str, ty: &str, array: bool, value: Option<Node<'_>>) -> Option<u64> {
        self.estimated.set(false);
        let n = if array
            || self
                .classes
                .resolve(ty)
                .trim_start_matches("std::")
                .starts_with("array<")
        {
            self.size_of(name, 0)
        } else if self
            .classes
            .resolve(ty)
            .trim_start_matches("std::")
            .starts_with("vector<")
        {
            let grows = [
                "resize(",
                "push_back(",
                "emplace_back(",
                "assign(",
                "insert(",
                "reserve(",
                "clear(",
                "swap(",
                "pop_back(",
                "erase(",
            ]
            .iter()
            .any(|m| self.src.contains(&format!("{name}.{m}")));
            let moved = self.src.contains(&format!("{name} = ")) || self.src.contains(&format!("{name}="));
            let value = value.filter(|v| v.kind() == "argument_list")?;
            let mut c = value.walk();
            let args: Vec<Node<'_>> = value.named_children(&mut c).collect();
            if grows || moved || !(1..=2).contains(&args.len()) {
                return None;
            }
            let t = super::objects::template_args(self.classes.resolve(ty))
                .first()?
                .to_string();
            let count = self.byte_count(args[0].utf8_text(self.src.as_bytes()).ok()?)?;
            self.size_of(&t, 0)?.checked_mul(count)
        } else {
            None
        };
        if self.estimated.replace(false) { None } else { n }
    }

    /// `sizeof` of a type or a variable the file declares: a scalar, a pointer, an array of
    /// known length, a struct (its members, each counted as at least 8 bytes: an over-estimate,
    /// so that a copy is not taken as small when it may not be).
    fn size_of(&self, what: &str, depth: u32) -> Option<u64> {
        if depth > MAX_SIZE_DEPTH {
            return None;
        }
        // `sizeof(*(p))`, as a macro's expansion writes it.
        let mut what = what.trim();
        while let Some(inner) = what.strip_prefix('(').and_then(|w| w.strip_suffix(')')) {
            what = inner.trim();
        }
        if what.ends_with('*') {
            return Some(8);
        }
        if let Some(b) = const_bytes_with(&format!("sizeof({what})"), &|_| None) {
            return Some(b);
        }
        // `*p`, `p[0]`: what the pointer's declared type points to.
        let deref = what.strip_prefix('*').or_else(|| what.strip_suffix("[0]"));
        if let Some(var) = deref {
            let mut var = var.trim();
            while let Some(inner) = var.strip_prefix('(').and_then(|w| w.strip_suffix(')')) {
                var = inner.trim();
            }
            let (ty, dims, pointer) = self.var_types.get(var)?;
            return match (pointer, dims.as_slice()) {
                (true, []) | (false, [_]) => self.size_of(ty, depth + 1),
                _ => None,
            };
        }
        // A variable: its declared type, times its array lengths.
        if let Some((ty, dims, pointer)) = self.var_types.get(what) {
            if *pointer {
                return dims
                    .iter()
                    .try_fold(8u64, |n, d| n.checked_mul(self.byte_count_at(d, depth + 1)?));
            }
            let mut n = self.size_of(ty, depth + 1)?;
            for d in dims {
                n = n.checked_mul(self.byte_count_at(d, depth + 1)?)?;
            }
            return Some(n);
        }
        // `std::array<T, N>`: N of T.
        let resolved = self.classes.resolve(what);
        // `typedef double real;`, `using real = float;`: the aliased type's size.
        if resolved.trim() != what && !resolved.trim_start_matches("std::").starts_with("array<") {
            return self.size_of(resolved.trim(), depth + 1);
        }
        if resolved.trim_start_matches("std::").starts_with("array<") {
            let args = super::objects::template_args(resolved);
            if let [t, n] = args.as_slice() {
                let one = self.size_of(t, depth + 1)?;
                return one.checked_mul(self.byte_count_at(n, depth + 1)?);
            }
            return None;
        }
        // A struct or class the file defines.
        let class = self.classes.class_of(what)?;
        self.estimated.set(true);
        let info = self.classes.by_name.get(class)?;
        let mut total = 0u64;
        for m in &info.members {
            let mut one = if m.pointer || m.reference {
                8
            } else {
                self.size_of(m.ty, depth + 1)?.max(8)
            };
            for d in &m.dims {
                one = one.checked_mul(self.byte_count_at(d, depth + 1)?)?;
            }
            total = total.checked_add(one)?;
        }
        Some(total.max(1))
    }
}
