//! The build configuration: `#if`/`#ifdef`/`#ifndef`/`#elif`/`#else` arms are alternative
//! builds, not runtime branches. A file is analysed as the default build compiles it: a macro
//! is defined where the code (the file, before the test, or a header it includes with
//! `#include "..."`) defines it, or where the host pass of nvcc does (`__CUDACC__`, `__NVCC__`,
//! `__cplusplus`; `__CUDA_ARCH__` is not: that is the device pass). The arms that build leaves
//! out are skipped. A test the analysis cannot decide (a macro's value it does not know,
//! `CUDA_VERSION >= 11000`) leaves every arm in, as before.

use std::collections::HashSet;

use tree_sitter::Node;

/// The macros nvcc's host pass defines.
const PREDEFINED: &[&str] = &["__CUDACC__", "__NVCC__", "__cplusplus"];

/// Byte ranges of the file the default build leaves out.
#[derive(Debug, Default, Clone)]
pub struct Excluded {
    ranges: Vec<(usize, usize)>,
}

impl Excluded {
    /// Whether the byte at `at` lies in an arm the build leaves out.
    pub fn contains(&self, at: usize) -> bool {
        self.ranges.iter().any(|&(lo, hi)| lo <= at && at < hi)
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// `text` with the arms the build leaves out blanked (newlines kept, so offsets and lines
    /// stay the file's): what the compiler reads of it. `None`: nothing left out.
    pub fn blanked(&self, text: &str) -> Option<String> {
        if self.ranges.is_empty() {
            return None;
        }
        let mut bytes = text.as_bytes().to_vec();
        for &(lo, hi) in &self.ranges {
            for b in bytes.iter_mut().take(hi.min(text.len())).skip(lo) {
                if *b != b'\n' {
                    *b = b' ';
                }
            }
        }
        // Multi-byte characters blanked whole: the arms start and end at token boundaries.
        String::from_utf8(bytes).ok()
    }
}

/// The macros the command line defines (`--define NAME[=VALUE]`) and undefines
/// (`--undefine NAME`), as `-D`/`-U` do a compiler's: the file's own `#define`s still win after
/// them.
#[derive(Clone, Debug, Default)]
pub struct Defines {
    pub defined: Vec<(String, Option<i64>)>,
    pub undefined: Vec<String>,
}

impl Defines {
    /// `NAME` or `NAME=VALUE`; an error for a name that is not an identifier.
    pub fn define(&mut self, arg: &str) -> Result<(), String> {
        let (name, value) = match arg.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (arg, None),
        };
        if !is_identifier(name) {
            return Err(format!("`{arg}` is not a macro (`NAME` or `NAME=VALUE`)"));
        }
        self.undefined.retain(|u| u != name);
        self.defined.retain(|(d, _)| d != name);
        // `-DNAME` defines it as 1, as compilers do.
        let value = match value {
            None => Some(1),
            Some(v) => parse_int(v.trim()),
        };
        self.defined.push((name.to_string(), value));
        Ok(())
    }

    /// Applies a later configuration over this one (the command line's over the file's): what
    /// it defines or undefines wins.
    pub fn then(&mut self, later: &Defines) {
        for u in &later.undefined {
            self.defined.retain(|(d, _)| d != u);
            if !self.undefined.contains(u) {
                self.undefined.push(u.clone());
            }
        }
        for (name, value) in &later.defined {
            self.undefined.retain(|u| u != name);
            self.defined.retain(|(d, _)| d != name);
            self.defined.push((name.clone(), *value));
        }
    }

    pub fn undefine(&mut self, name: &str) -> Result<(), String> {
        if !is_identifier(name) {
            return Err(format!("`{name}` is not a macro name"));
        }
        self.defined.retain(|(d, _)| d != name);
        self.undefined.push(name.to_string());
        Ok(())
    }
}

fn is_identifier(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// What the file knows of macros: `#define`s (with the byte where each is), and those of the
/// headers it includes; whether some included header could not be read (then a macro the file
/// does not define may come from it: not decided).
pub struct Macros {
    pub defined_at: Vec<(String, usize, Option<i64>)>,
    /// `#undef`s, with the byte where each is.
    pub undefined_at: Vec<(String, usize)>,
    pub from_headers: HashSet<String>,
    pub unread_header: bool,
    /// From the command line.
    pub given: Defines,
}

impl Macros {
    /// Whether `name` is defined at byte `at`: `Some(true)`/`Some(false)`, or `None` when a
    /// header the file includes could not be read.
    fn defined(&self, name: &str, at: usize) -> Option<bool> {
        // The last `#define` or `#undef` of it before `at` decides.
        let last_define = self
            .defined_at
            .iter()
            .filter(|(n, pos, _)| n == name && *pos < at)
            .map(|d| d.1)
            .max();
        let last_undef = self
            .undefined_at
            .iter()
            .filter(|(n, pos)| n == name && *pos < at)
            .map(|u| u.1)
            .max();
        match (last_define, last_undef) {
            (Some(d), Some(u)) => return Some(d > u),
            (None, Some(_)) => return Some(false),
            (Some(_), None) => return Some(true),
            (None, None) => {}
        }
        if self.from_headers.contains(name) {
            return Some(true);
        }
        if self.given.undefined.iter().any(|u| u == name) {
            return Some(false);
        }
        if PREDEFINED.contains(&name) || self.given.defined.iter().any(|(d, _)| d == name) {
            return Some(true);
        }
        if name == "__CUDA_ARCH__" {
            return Some(false);
        }
        // A reserved name (`__linux__`, `_WIN32`, `__GNUC__`) is the compiler's and the
        // platform's to define: not decided.
        let reserved = name.starts_with("__")
            || (name.starts_with('_') && name[1..].starts_with(|c: char| c.is_ascii_uppercase()));
        (!self.unread_header && !reserved).then_some(false)
    }

    /// The value of object-like macro `name` at `at`, when it is a number the file defines.
    fn value(&self, name: &str, at: usize) -> Option<i64> {
        match self.defined_at.iter().rfind(|(n, pos, _)| n == name && *pos < at) {
            Some((_, _, v)) => *v,
            None => self
                .given
                .defined
                .iter()
                .rfind(|(d, _)| d == name)
                .and_then(|(_, v)| *v),
        }
    }
}

/// The `#define`s of a parsed file.
pub fn defines(root: Node<'_>, src: &str) -> Vec<(String, usize, Option<i64>)> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    let mut steps = 0;
    while let Some(n) = stack.pop() {
        steps += 1;
        if steps > 2_000_000 {
            break;
        }
        if matches!(n.kind(), "preproc_def" | "preproc_function_def")
            && let Some(name) = n.child_by_field_name("name")
        {
            let value = n
                .child_by_field_name("value")
                .and_then(|v| src.get(v.byte_range()))
                // `#define N 1   // why`: the value without its comment.
                .map(|v| v.split("//").next().unwrap_or(v).split("/*").next().unwrap_or(v))
                .and_then(|v| parse_int(v.trim()));
            out.push((src[name.byte_range()].to_string(), n.start_byte(), value));
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    // In the order of the source: the last one before a test is the one it sees.
    out.sort_by_key(|d| d.1);
    out
}

/// The `#undef`s of a parsed file, in the order of the source.
pub fn undefines(root: Node<'_>, src: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    let mut steps = 0;
    while let Some(n) = stack.pop() {
        steps += 1;
        if steps > 2_000_000 {
            break;
        }
        if n.kind() == "preproc_call"
            && n.child_by_field_name("directive")
                .is_some_and(|d| src[d.byte_range()].trim() == "#undef")
            && let Some(arg) = n.child_by_field_name("argument")
        {
            // `#undef NAME // why`: the first word.
            let name = src[arg.byte_range()].split_whitespace().next().unwrap_or("");
            if is_identifier(name) {
                out.push((name.to_string(), n.start_byte()));
            }
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    out.sort_by_key(|u| u.1);
    out
}

/// The names `#define`d in header text (read as text: the header is not parsed).
pub fn header_defines(text: &str) -> impl Iterator<Item = String> + '_ {
    text.lines().filter_map(|l| {
        let l = l.trim_start().strip_prefix('#')?.trim_start().strip_prefix("define")?;
        let name: String = l
            .trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        (!name.is_empty()).then_some(name)
    })
}

/// The `#include "..."` names of a file's text.
pub fn local_includes(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter_map(|l| {
        let l = l
            .trim_start()
            .strip_prefix('#')?
            .trim_start()
            .strip_prefix("include")?
            .trim();
        l.strip_prefix('"')?.split('"').next()
    })
}

fn parse_int(text: &str) -> Option<i64> {
    let t = text.trim_end_matches(['u', 'U', 'l', 'L']);
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return i64::from_str_radix(hex, 16).ok();
    }
    t.parse().ok()
}

/// The arms of the file's conditional blocks the default build leaves out.
pub fn excluded(root: Node<'_>, src: &str, macros: &Macros) -> Excluded {
    let mut out = Excluded::default();
    let mut stack = vec![root];
    let mut steps = 0;
    while let Some(n) = stack.pop() {
        steps += 1;
        if steps > 2_000_000 {
            break;
        }
        if matches!(n.kind(), "preproc_ifdef" | "preproc_if") {
            chain(n, src, macros, &mut out);
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    out
}

/// The arms of the file's conditional blocks the default build leaves out, read from the text's
/// directive lines rather than from the tree: where arms hold halves of one construct (two
/// headers of one function, a brace opened in one arm and closed after `#endif`), the grammar
/// does not see the blocks as such. The same decisions as [`excluded`]: a test not decided
/// keeps its arm and every later one of the block.
///
/// With `directives`, the directive lines of blocks whose every test was decided go too (the
/// compiler reads only the arm taken; the grammar then sees no block where arms split a
/// construct).
pub fn excluded_by_lines(src: &str, macros: &Macros, directives: bool) -> Excluded {
    struct Group {
        /// An arm of the block was taken.
        taken: bool,
        /// A test of the block was not decided: this arm and the rest stay.
        undecided: bool,
        /// Where the current arm's excluded part starts, if it is excluded.
        from: Option<usize>,
        /// The block's directive lines: blanked too where every test was decided (the compiler
        /// reads only the arm taken).
        directives: Vec<(usize, usize)>,
    }
    let mut out = Excluded::default();
    let mut stack: Vec<Group> = Vec::new();
    let mut parser = tree_sitter::Parser::new();
    if parser.set_language(&tree_sitter_cuda::LANGUAGE.into()).is_err() {
        return out;
    }
    // A `#if` test's value, read by the grammar from the directive alone.
    let mut test = |directive: &str, at: usize| -> Option<bool> {
        let text = format!("{directive}\n#endif\n");
        let tree = parser.parse(&text, None)?;
        let n = tree.root_node().named_child(0)?;
        let cond = n.child_by_field_name("condition")?;
        eval(cond, &text, macros, at, 0).map(|v| v != 0)
    };
    let mut at = 0;
    let mut lines = src.split_inclusive('\n').peekable();
    while let Some(first) = lines.next() {
        let start = at;
        at += first.len();
        let mut line = first.to_string();
        // A directive continued over lines (`\` at the end).
        while line.trim_end().ends_with('\\') && !line.trim_start().starts_with("//") {
            let Some(next) = lines.next() else { break };
            at += next.len();
            line = format!("{}{}", line.trim_end().trim_end_matches('\\'), next);
        }
        let t = line.trim_start();
        let Some(d) = t.strip_prefix('#') else { continue };
        let d = d.trim_start();
        let word: String = d.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
        let rest = d[word.len()..]
            .split("//")
            .next()
            .unwrap_or("")
            .split("/*")
            .next()
            .unwrap_or("")
            .trim();
        let verdict = |this: &mut dyn FnMut(&str, usize) -> Option<bool>, word: &str| -> Option<bool> {
            match word {
                "ifdef" | "elifdef" => macros.defined(rest.split_whitespace().next()?, start),
                "ifndef" | "elifndef" => macros.defined(rest.split_whitespace().next()?, start).map(|d| !d),
                "if" | "elif" => this(&format!("#if {rest}"), start),
                _ => Some(true),
            }
        };
        match word.as_str() {
            "if" | "ifdef" | "ifndef" => {
                let v = verdict(&mut test, &word);
                stack.push(Group {
                    taken: v == Some(true),
                    undecided: v.is_none(),
                    from: (v == Some(false)).then_some(at),
                    directives: vec![(start, at)],
                });
            }
            "elif" | "elifdef" | "elifndef" | "else" => {
                let Some(g) = stack.last_mut() else { continue };
                g.directives.push((start, at));
                if let Some(from) = g.from.take() {
                    out.ranges.push((from, start));
                }
                if g.undecided {
                    continue;
                }
                let v = if g.taken {
                    Some(false)
                } else {
                    verdict(&mut test, &word)
                };
                match v {
                    None => g.undecided = true,
                    Some(true) => g.taken = true,
                    Some(false) => g.from = Some(at),
                }
            }
            "endif" => {
                if let Some(g) = stack.pop() {
                    if let Some(from) = g.from {
                        out.ranges.push((from, start));
                    }
                    if directives && !g.undecided {
                        out.ranges.extend(g.directives);
                        out.ranges.push((start, at));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// One `#if`/`#ifdef` (or `#elif`) with its alternatives: decided, the arms not taken go in
/// `out`; at the first test not decided, every arm from there on stays.
fn chain(n: Node<'_>, src: &str, macros: &Macros, out: &mut Excluded) {
    let mut at = n;
    let mut taken = false;
    for _ in 0..256 {
        let alternative = at.child_by_field_name("alternative");
        // The arm's own part: from its test to its alternative (or its end).
        let test_end = at
            .child_by_field_name("name")
            .or_else(|| at.child_by_field_name("condition"))
            .map_or(at.start_byte(), |t| t.end_byte());
        let arm = (test_end, alternative.map_or(at.end_byte(), |a| a.start_byte()));
        let verdict = if taken {
            Some(false)
        } else {
            match at.kind() {
                "preproc_else" => Some(true),
                "preproc_ifdef" | "preproc_elifdef" => {
                    let name = at.child_by_field_name("name").map(|t| &src[t.byte_range()]);
                    let negated = src[at.byte_range()].trim_start().starts_with("#ifndef")
                        || src[at.byte_range()].trim_start().starts_with("#elifndef");
                    name.and_then(|name| macros.defined(name, at.start_byte()))
                        .map(|d| d != negated)
                }
                _ => at
                    .child_by_field_name("condition")
                    .and_then(|c| eval(c, src, macros, at.start_byte(), 0))
                    .map(|v| v != 0),
            }
        };
        match verdict {
            // Not decided: this arm and the rest stay (read as before).
            None => return,
            Some(true) => taken = true,
            Some(false) => out.ranges.push(arm),
        }
        match alternative {
            Some(a) if at.kind() != "preproc_else" => at = a,
            _ => return,
        }
    }
}

/// The value of a `#if` expression, when every part of it is known.
fn eval(n: Node<'_>, src: &str, macros: &Macros, at: usize, depth: u32) -> Option<i64> {
    if depth > 64 {
        return None;
    }
    let text = &src[n.byte_range()];
    match n.kind() {
        "number_literal" => parse_int(text),
        "true" => Some(1),
        "false" => Some(0),
        "preproc_defined" => {
            let name = text
                .trim_start_matches("defined")
                .trim()
                .trim_start_matches('(')
                .trim_end_matches(')')
                .trim();
            macros.defined(name, at).map(i64::from)
        }
        // A value the code defines as a number; one it does not define may come from the
        // toolkit's or the system's headers (`CUDA_VERSION`): not decided.
        "identifier" => match macros.defined(text, at)? {
            false => None,
            true => macros.value(text, at),
        },
        "parenthesized_expression" => eval(n.named_child(0)?, src, macros, at, depth + 1),
        "unary_expression" => {
            let v = eval(n.child_by_field_name("argument")?, src, macros, at, depth + 1)?;
            match n.child_by_field_name("operator").map(|o| &src[o.byte_range()]) {
                Some("!") => Some(i64::from(v == 0)),
                Some("-") => Some(-v),
                Some("+") => Some(v),
                _ => None,
            }
        }
        "binary_expression" => {
            let op = &src[n.child_by_field_name("operator")?.byte_range()];
            let l = eval(n.child_by_field_name("left")?, src, macros, at, depth + 1);
            let r = eval(n.child_by_field_name("right")?, src, macros, at, depth + 1);
            // `a && b` with one side known false, `a || b` with one known true: decided.
            match (op, l, r) {
                ("&&", Some(0), _) | ("&&", _, Some(0)) => return Some(0),
                ("||", Some(l), _) if l != 0 => return Some(1),
                ("||", _, Some(r)) if r != 0 => return Some(1),
                _ => {}
            }
            let (l, r) = (l?, r?);
            Some(match op {
                "&&" => i64::from(l != 0 && r != 0),
                "||" => i64::from(l != 0 || r != 0),
                "==" => i64::from(l == r),
                "!=" => i64::from(l != r),
                "<" => i64::from(l < r),
                "<=" => i64::from(l <= r),
                ">" => i64::from(l > r),
                ">=" => i64::from(l >= r),
                "+" => l.checked_add(r)?,
                "-" => l.checked_sub(r)?,
                "*" => l.checked_mul(r)?,
                _ => return None,
            })
        }
        _ => None,
    }
}
