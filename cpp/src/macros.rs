//! Function-like macros the project defines (`#define POOL_ALLOC(p, n)
//! CUDA_CHECK(cudaMalloc(&(p), (n)))`), expanded where they are used when their body calls a
//! CUDA function the analysis knows the effects of: an allocation, a copy or a wait behind a
//! macro is then seen as written in the body, and a finding in it points at the macro's use
//! ([`crate::unit::Unit::replace`] maps the expansion back to it). Macros whose body only
//! checks a status (`CUDA_CHECK(call)`) are left as written: the call given to them is
//! analysed as an argument.

use std::collections::HashMap;

/// How deep expansions are expanded again.
const MAX_EXPANSION_DEPTH: u32 = 8;
/// How many uses of macros one file may expand.
const MAX_EXPANSIONS: usize = 20_000;

/// A function-like macro: its parameters and body (continuation lines joined).
#[derive(Clone, Debug)]
pub struct Macro {
    pub params: Vec<String>,
    /// `...` ends the parameters: `__VA_ARGS__` is the rest.
    pub variadic: bool,
    pub body: String,
}

/// The function-like macros of a text whose body calls a function `calls_effect` says has
/// effects, by name (the first definition of each).
pub fn effectful_macros(text: &str, calls_effect: &dyn Fn(&str) -> bool) -> HashMap<String, Macro> {
    let mut out = HashMap::new();
    let mut lines = text.split('\n').peekable();
    // The conditional arms around the line (`Some(false)`: an arm the file's own `#define`s
    // leave out, `#if DEBUG_SYNC` under `#define DEBUG_SYNC 0`), and the numbers the file
    // defines: a macro defined in an arm left out is not the one used.
    let mut arms: Vec<Option<bool>> = Vec::new();
    let mut numbers: HashMap<String, i64> = HashMap::new();
    let mut names: std::collections::HashSet<String> = std::collections::HashSet::new();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix('#') else { continue };
        let directive = rest.trim_start();
        let word_end = directive
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(directive.len());
        let (word, operand) = directive.split_at(word_end);
        let operand = operand.split("//").next().unwrap_or("").trim();
        match word {
            "if" => arms.push(condition(operand, &numbers)),
            "ifdef" => arms.push(names.contains(operand).then_some(true)),
            "ifndef" => arms.push(names.contains(operand).then_some(false)),
            "elif" => {
                if let Some(top) = arms.last_mut() {
                    *top = if *top == Some(true) { Some(false) } else { None };
                }
            }
            "else" => {
                if let Some(top) = arms.last_mut() {
                    *top = top.map(|b| !b);
                }
            }
            "endif" => {
                arms.pop();
            }
            _ => {}
        }
        if arms.contains(&Some(false)) {
            continue;
        }
        let Some(rest) = directive.strip_prefix("define") else {
            continue;
        };
        if let Some((name, value)) = rest.trim().split_once(char::is_whitespace) {
            let value = value.split("//").next().unwrap_or("").trim();
            if let Ok(v) = value.parse::<i64>() {
                numbers.insert(name.to_string(), v);
            }
        }
        if let Some(name) = rest
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .find(|w| !w.is_empty())
        {
            names.insert(name.to_string());
        }
        if !rest.starts_with([' ', '\t']) {
            continue;
        }
        let mut full = rest.trim_start().to_string();
        while full.trim_end().ends_with('\\') {
            let cut = full.trim_end().len() - 1;
            full.truncate(cut);
            full.push(' ');
            match lines.next() {
                Some(next) => full.push_str(next),
                None => break,
            }
        }
        let name_end = full
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(full.len());
        let name = &full[..name_end];
        // Function-like: `(` right after the name.
        let Some(after) = full[name_end..].strip_prefix('(') else {
            continue;
        };
        let Some(close) = after.find(')') else { continue };
        let mut params: Vec<String> = after[..close].split(',').map(|p| p.trim().to_string()).collect();
        if params.len() == 1 && params[0].is_empty() {
            params.clear();
        }
        let variadic = params.last().is_some_and(|p| p == "...");
        if variadic {
            params.pop();
        }
        let body = after[close + 1..].trim().to_string();
        if name.is_empty() {
            continue;
        }
        out.entry(name.to_string()).or_insert(Macro { params, variadic, body });
    }
    // Effectful: the body calls a function with effects, or a macro that does (to a fixpoint).
    let mut effectful: std::collections::HashSet<String> = out
        .iter()
        .filter(|(_, m)| body_calls(&m.body, calls_effect))
        .map(|(n, _)| n.clone())
        .collect();
    loop {
        let more: Vec<String> = out
            .iter()
            .filter(|(n, m)| !effectful.contains(*n) && body_calls(&m.body, &|c| effectful.contains(c)))
            .map(|(n, _)| n.clone())
            .collect();
        if more.is_empty() {
            break;
        }
        effectful.extend(more);
    }
    out.retain(|n, _| effectful.contains(n));
    out
}

/// What a `#if` tests, where the file's own numbers decide it: `NAME`, `!NAME`, a number.
fn condition(operand: &str, numbers: &HashMap<String, i64>) -> Option<bool> {
    let (negated, operand) = match operand.strip_prefix('!') {
        Some(rest) => (true, rest.trim()),
        None => (false, operand),
    };
    let value = match operand.parse::<i64>() {
        Ok(v) => v,
        Err(_) => *numbers.get(operand)?,
    };
    Some((value != 0) != negated)
}

/// Whether a macro body calls a function with effects (`name(`).
fn body_calls(body: &str, calls_effect: &dyn Fn(&str) -> bool) -> bool {
    identifiers(body).any(|(s, e)| body[e..].trim_start().starts_with('(') && calls_effect(&body[s..e]))
}

/// The identifiers of a text, as byte ranges (string and character literals skipped).
fn identifiers(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let b = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() {
            let c = b[i];
            if c == b'"' || c == b'\'' {
                i = skip_literal(b, i);
                continue;
            }
            if c.is_ascii_alphabetic() || c == b'_' {
                let s = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                return Some((s, i));
            }
            if c.is_ascii_digit() {
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                    i += 1;
                }
                continue;
            }
            i += 1;
        }
        None
    })
}

/// The end of a string or character literal starting at `i`.
fn skip_literal(b: &[u8], i: usize) -> usize {
    let quote = b[i];
    let mut j = i + 1;
    while j < b.len() && b[j] != quote && b[j] != b'\n' {
        if b[j] == b'\\' {
            j += 1;
        }
        j += 1;
    }
    (j + 1).min(b.len())
}

/// The arguments of a use whose `(` is at `open`: their texts and the byte after `)`.
fn arguments(text: &str, open: usize) -> Option<(Vec<&str>, usize)> {
    let b = text.as_bytes();
    let mut depth = 0i32;
    let mut start = open + 1;
    let mut args = Vec::new();
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'"' | b'\'' => {
                i = skip_literal(b, i);
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    args.push(&text[start..i]);
                    return Some((args, i + 1));
                }
            }
            b',' if depth == 1 => {
                args.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
        if i - open > 64 * 1024 {
            return None;
        }
    }
    None
}

/// A use's expansion: the parameters replaced by the arguments, then the macros in it expanded.
fn expand_use(m: &Macro, args: &[&str], macros: &HashMap<String, Macro>, depth: u32) -> String {
    let args: Vec<&str> = if m.params.is_empty() && args.len() == 1 && args[0].trim().is_empty() {
        Vec::new()
    } else {
        args.to_vec()
    };
    let mut out = String::with_capacity(m.body.len() + 32);
    let mut last = 0;
    for (s, e) in identifiers(&m.body) {
        let name = &m.body[s..e];
        let value = if let Some(k) = m.params.iter().position(|p| p == name) {
            args.get(k).map(|a| a.trim().to_string())
        } else if name == "__VA_ARGS__" && m.variadic {
            Some(args.get(m.params.len()..).map(|r| r.join(",")).unwrap_or_default())
        } else {
            None
        };
        if let Some(v) = value {
            out.push_str(&m.body[last..s]);
            out.push_str(&v);
            last = e;
        }
    }
    out.push_str(&m.body[last..]);
    // `#x` and `a ## b`: left as written, with `##` taken out so the parts still read.
    let out = out.replace("##", "");
    if depth >= MAX_EXPANSION_DEPTH {
        return out;
    }
    let uses = uses(&out, macros);
    if uses.is_empty() {
        return out;
    }
    let mut expanded = String::with_capacity(out.len());
    let mut last = 0;
    for (s, e, text) in uses.into_iter().map(|(s, e, name, args)| {
        let inner = expand_use(&macros[name], &args, macros, depth + 1);
        (s, e, inner)
    }) {
        expanded.push_str(&out[last..s]);
        expanded.push_str(&text);
        last = e;
    }
    expanded.push_str(&out[last..]);
    expanded
}

/// The uses of `macros` in a text outside comments, literals and preprocessor lines: each
/// use's bytes (the name to the `)`), the macro's name and the arguments.
#[allow(clippy::type_complexity)]
fn uses<'a, 'm>(text: &'a str, macros: &'m HashMap<String, Macro>) -> Vec<(usize, usize, &'m str, Vec<&'a str>)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() && out.len() < MAX_EXPANSIONS {
        let c = b[i];
        match c {
            b'\n' => {
                line_start = true;
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            b'#' if line_start => {
                // A directive, with its continuation lines.
                while i < b.len() && b[i] != b'\n' {
                    if b[i] == b'\\' && b.get(i + 1) == Some(&b'\n') {
                        i += 1;
                    }
                    i += 1;
                }
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = text[i + 2..].find("*/").map_or(b.len(), |k| i + 2 + k + 2);
                line_start = false;
                continue;
            }
            b'"' | b'\'' => {
                i = skip_literal(b, i);
                line_start = false;
                continue;
            }
            _ => {}
        }
        line_start = false;
        if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let name = &text[s..i];
            if let Some((key, _)) = macros.get_key_value(name) {
                let open = i + (text[i..].len() - text[i..].trim_start().len());
                if b.get(open) == Some(&b'(')
                    && let Some((args, end)) = arguments(text, open)
                {
                    out.push((s, end, key.as_str(), args));
                    i = end;
                }
            }
            continue;
        }
        i += 1;
    }
    out
}

/// The uses of `macros` in `text` and what each expands to, last first (so that replacing them
/// in that order keeps the earlier offsets).
pub fn expansions(text: &str, macros: &HashMap<String, Macro>) -> Vec<(usize, usize, String)> {
    if macros.is_empty() {
        return Vec::new();
    }
    let mut out: Vec<(usize, usize, String)> = uses(text, macros)
        .into_iter()
        .map(|(s, e, name, args)| (s, e, expand_use(&macros[name], &args, macros, 1)))
        .collect();
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_uses_of_macros_that_call_an_effectful_function() {
        let text = "#define POOL_ALLOC(ptr, bytes) \\\n  CHECK(cudaMalloc((void**)&(ptr), (bytes)))\n\
                    #define CHECK(call) do { if ((call) != 0) abort(); } while (0)\n\
                    void f() { POOL_ALLOC(slab, n * 4); /* POOL_ALLOC(x, 1) */ puts(\"POOL_ALLOC(y, 2)\"); }\n";
        let macros = effectful_macros(text, &|n| n == "cudaMalloc");
        assert!(macros.contains_key("POOL_ALLOC") && !macros.contains_key("CHECK"));
        let ex = expansions(text, &macros);
        assert_eq!(ex.len(), 1, "uses in comments and strings are not expanded: {ex:?}");
        let (s, e, t) = &ex[0];
        assert_eq!(&text[*s..*e], "POOL_ALLOC(slab, n * 4)");
        assert_eq!(t, "CHECK(cudaMalloc((void**)&(slab), (n * 4)))");
    }

    #[test]
    fn variadic_and_nested_uses() {
        let text = "#define SYNC() cudaDeviceSynchronize()\n#define RUN(...) do { __VA_ARGS__; SYNC(); } while (0)\nRUN(a(1), b(2));\n";
        let macros = effectful_macros(text, &|n| n == "cudaDeviceSynchronize");
        assert!(
            macros.contains_key("SYNC") && macros.contains_key("RUN"),
            "RUN calls SYNC"
        );
        let ex = expansions(text, &macros);
        assert_eq!(ex.len(), 1, "the directive's own SYNC() is not a use: {ex:?}");
        assert_eq!(ex[0].2, "do { a(1), b(2); cudaDeviceSynchronize(); } while (0)");
    }
}
