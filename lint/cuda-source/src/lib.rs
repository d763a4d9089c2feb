//! Reads CUDA C++ (or PTX) source text, for the lint and for the macros: the signatures of the
//! kernels ([`kernel_signatures`]), and whether a kernel executes `fence.proxy.alias`
//! ([`kernel_fence`]), by itself, through a `__device__` function or PTX `.func` it calls, or
//! through a macro, and which parameters it may write through ([`kernel_writes`]). Blocks the preprocessor leaves out (`#if 0`, `#if FLAG` with
//! `#define FLAG 0`, `#ifdef` of an undefined name) do not count.
//!
//! Nothing here panics, whatever the text (any UTF-8).

use std::collections::{HashMap, HashSet};

mod signature;
mod writes;

pub use signature::{KernelParam, KernelSig, SourceError, kernel_signatures};
pub use writes::{FieldUses, ParamUse, kernel_field_uses, kernel_param_uses, kernel_writes};

/// What the source says of a kernel's fencing.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fence {
    Fenced,
    Unfenced,
    /// No kernel of that name is defined in the source.
    NotFound,
}

const FENCE_SPELLINGS: &[&str] = &["fence.proxy.alias", "fence_proxy_alias"];
/// How deep calls from a kernel into helpers are followed.
const CALL_DEPTH: u32 = 4;

/// Whether kernel `name` in `source` executes `fence.proxy.alias`.
pub fn kernel_fence(source: &str, name: &str) -> Fence {
    let source = Source::parse(source);
    match source.kernels.get(name) {
        None => Fence::NotFound,
        Some(body) if source.fenced(body, CALL_DEPTH) => Fence::Fenced,
        Some(_) => Fence::Unfenced,
    }
}

/// The names of the kernels (`__global__` functions, PTX `.entry`s) a source defines, in order.
pub fn kernel_names(source: &str) -> Vec<String> {
    let code = preprocess(&strip_comments(source));
    functions(&code, &["__global__", ".entry"])
        .into_iter()
        .map(|(name, _)| name)
        .collect()
}

/// A source, read once.
struct Source {
    kernels: HashMap<String, String>,
    /// `__device__` functions and PTX `.func`s.
    helpers: HashMap<String, String>,
    /// Macros whose expansion fences (`#define ALIAS_FENCE() asm volatile("fence.proxy.alias;")`).
    fence_macros: HashSet<String>,
}

impl Source {
    fn parse(text: &str) -> Source {
        let code = preprocess(&strip_comments(text));
        let kernels = functions(&code, &["__global__", ".entry"]).into_iter().collect();
        let helpers = functions(&code, &["__device__", ".func"]).into_iter().collect();
        Source {
            kernels,
            helpers,
            fence_macros: fence_macros(&code),
        }
    }

    fn fenced(&self, body: &str, depth: u32) -> bool {
        if FENCE_SPELLINGS.iter().any(|f| body.contains(f)) {
            return true;
        }
        identifiers(body).any(|id| {
            self.fence_macros.contains(id)
                || (depth > 0
                    && self
                        .helpers
                        .get(id)
                        .is_some_and(|b| b != body && self.fenced(b, depth - 1)))
        })
    }
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The identifiers of a piece of code (words that do not start with a digit).
fn identifiers(code: &str) -> impl Iterator<Item = &str> {
    code.split(|c: char| !is_ident(c))
        .filter(|w| !w.is_empty() && !w.starts_with(|c: char| c.is_ascii_digit()))
}

/// `(name, body)` of every function declared with one of `markers` and defined with a body.
fn functions(code: &str, markers: &[&str]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for marker in markers {
        let mut from = 0;
        while let Some(pos) = code[from..].find(marker) {
            let after_marker = from + pos + marker.len();
            from = after_marker;
            if let Some((name, body)) = definition_after(code, after_marker) {
                out.push((name, body.to_string()));
            }
        }
    }
    out
}

/// The function whose declaration continues at `start`: its name and body.
fn definition_after(code: &str, start: usize) -> Option<(String, &str)> {
    let mut rest = start;
    let header = code[rest..].trim_start();
    rest = code.len() - header.len();
    // A PTX `.func` may declare its return parameters first: `.func (.reg .b32 %r) name(...)`.
    if header.starts_with('(') {
        rest = matching(code, rest, '(', ')')? + 1;
    }
    // The parameter list is the parenthesized group followed by the body (or `;`): groups
    // followed by more of the declaration are attributes (`__launch_bounds__(256)`).
    let (name, params_end) = loop {
        let paren = rest + code[rest..].find('(')?;
        let params_end = matching(code, paren, '(', ')')?;
        let after = code[params_end + 1..].trim_start();
        if after.starts_with(['{', ';']) || after.is_empty() {
            let before = code[rest..paren].trim_end();
            // Just after the last character that is not part of an identifier (which may be
            // several bytes long: sources hold any UTF-8).
            let start = before
                .char_indices()
                .rfind(|&(_, c)| !is_ident(c))
                .map_or(0, |(i, c)| i + c.len_utf8());
            break (&before[start..], params_end);
        }
        rest = params_end + 1;
    };
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let brace = params_end + 1 + code[params_end + 1..].find(['{', ';'])?;
    if code.as_bytes()[brace] == b';' {
        return None; // a declaration without a body
    }
    let end = matching(code, brace, '{', '}')?;
    Some((name.to_string(), &code[brace + 1..end]))
}

/// The index of the bracket closing the one at `open` (brackets inside strings do not count).
fn matching(code: &str, open: usize, open_c: char, close_c: char) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut prev = '\0';
    for (i, c) in code[open..].char_indices() {
        if in_string {
            if c == '"' && prev != '\\' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        } else if c == open_c {
            depth += 1;
        } else if c == close_c {
            depth -= 1;
            if depth == 0 {
                return Some(open + i);
            }
        }
        prev = c;
    }
    None
}

/// The macros whose definition fences, directly or through another such macro.
fn fence_macros(code: &str) -> HashSet<String> {
    let defines: Vec<(String, String)> = code
        .lines()
        .filter_map(|line| line.trim_start().strip_prefix('#'))
        .filter_map(|d| d.trim_start().strip_prefix("define"))
        .filter_map(|d| {
            let d = d.trim_start();
            let end = d.find(|c: char| !is_ident(c)).unwrap_or(d.len());
            (end > 0).then(|| (d[..end].to_string(), d[end..].to_string()))
        })
        .collect();
    let mut fencing: HashSet<String> = HashSet::new();
    loop {
        let before = fencing.len();
        for (name, body) in &defines {
            if FENCE_SPELLINGS.iter().any(|f| body.contains(f)) || identifiers(body).any(|id| fencing.contains(id)) {
                fencing.insert(name.clone());
            }
        }
        if fencing.len() == before {
            return fencing;
        }
    }
}

/// The source without the lines of `#if`/`#ifdef` blocks that are certainly left out. A
/// condition it cannot evaluate keeps every branch (so a fence there counts).
fn preprocess(code: &str) -> String {
    let mut defines: HashMap<String, String> = HashMap::new();
    // Per open `#if`: (this branch active, some branch already taken, condition known).
    let mut stack: Vec<(bool, bool, bool)> = Vec::new();
    let mut out = String::with_capacity(code.len());
    for line in code.lines() {
        let active = stack.iter().all(|&(a, _, _)| a);
        let directive = line.trim_start().strip_prefix('#').map(str::trim_start);
        match directive.map(|d| d.split_at(d.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(d.len()))) {
            Some(("if", cond)) => {
                let v = eval_condition(cond, &defines);
                stack.push((v.unwrap_or(true), v == Some(true), v.is_some()));
            }
            Some(("ifdef", name)) => {
                let v = defines.contains_key(name.trim());
                stack.push((v, v, true));
            }
            Some(("ifndef", name)) => {
                let v = !defines.contains_key(name.trim());
                stack.push((v, v, true));
            }
            Some(("elif", cond)) => {
                if let Some((a, taken, known)) = stack.last_mut() {
                    let v = eval_condition(cond, &defines);
                    let this = if *known && *taken { false } else { v.unwrap_or(true) };
                    *taken |= v == Some(true);
                    *known &= v.is_some();
                    *a = this;
                }
            }
            Some(("else", _)) => {
                if let Some((a, taken, known)) = stack.last_mut() {
                    *a = !*known || !*taken;
                }
            }
            Some(("endif", _)) => {
                stack.pop();
            }
            Some(("define", rest)) if active => {
                let rest = rest.trim_start();
                let end = rest.find(|c: char| !is_ident(c)).unwrap_or(rest.len());
                defines.insert(rest[..end].to_string(), rest[end..].trim().to_string());
            }
            Some(("undef", name)) if active => {
                defines.remove(name.trim());
            }
            _ => {}
        }
        if active || directive.is_some() {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// `#if` conditions of the simple kinds: a number, a macro defined as a number (an undefined
/// name is 0, as in C), `defined(NAME)`, and `!` of those. Anything else is unknown.
fn eval_condition(cond: &str, defines: &HashMap<String, String>) -> Option<bool> {
    let cond = cond.trim();
    if let Some(rest) = cond.strip_prefix('!') {
        return eval_condition(rest, defines).map(|v| !v);
    }
    if let Some(rest) = cond.strip_prefix("defined") {
        let name = rest.trim().trim_start_matches('(').trim_end_matches(')').trim();
        return Some(defines.contains_key(name));
    }
    if let Ok(n) = cond.trim_end_matches(['u', 'U', 'l', 'L']).parse::<i64>() {
        return Some(n != 0);
    }
    if !cond.is_empty() && cond.chars().all(is_ident) {
        return match defines.get(cond) {
            None => Some(false),
            Some(value) if value.is_empty() => None,
            Some(value) => eval_condition(value, defines),
        };
    }
    None
}

/// The source with `//` and `/* */` comments blanked out (string contents are kept: inline PTX
/// lives in strings). Lines, and the columns of what is left, stay where they were.
fn strip_comments(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut chars = source.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if c == '\\' {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                // Blanked character for character, so the text after it keeps its columns.
                chars.next();
                out.push_str("  ");
                let mut prev = '\0';
                for n in chars.by_ref() {
                    out.push(if n == '\n' { '\n' } else { ' ' });
                    if prev == '*' && n == '/' {
                        break;
                    }
                    prev = n;
                }
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = r#"
        __device__ void fence() { asm volatile("fence.proxy.alias;" ::: "memory"); }
        extern "C" __global__ void plain(int* a, const int* b, int* out) {
            int i = threadIdx.x;
            a[i] = i; out[i] = b[i];  // fence.proxy.alias is only in this comment
        }
        extern "C" __global__ void inline_fence(int* a, const int* b, int* out) {
            int i = threadIdx.x;
            a[i] = i;
            asm volatile("fence.proxy.alias;" ::: "memory");
            out[i] = b[i];
        }
        extern "C" __global__ void helper_fence(int* a, const int* b, int* out) {
            a[threadIdx.x] = 1; fence(); out[threadIdx.x] = b[threadIdx.x];
        }
        extern "C" __global__ void cccl_fence(int* a) { cuda::ptx::fence_proxy_alias(); }
        /* __global__ void commented(int* a) { fence.proxy.alias } */
    "#;

    #[test]
    fn finds_fences() {
        assert_eq!(kernel_fence(SRC, "plain"), Fence::Unfenced);
        assert_eq!(kernel_fence(SRC, "inline_fence"), Fence::Fenced);
        assert_eq!(kernel_fence(SRC, "helper_fence"), Fence::Fenced);
        assert_eq!(kernel_fence(SRC, "cccl_fence"), Fence::Fenced);
        assert_eq!(kernel_fence(SRC, "commented"), Fence::NotFound);
        assert_eq!(kernel_fence(SRC, "missing"), Fence::NotFound);
        let bounded = "extern \"C\" __global__ void __launch_bounds__(256, 2) blit(int* a) {\n\
                       asm volatile(\"fence.proxy.alias;\");\n}";
        assert_eq!(kernel_fence(bounded, "blit"), Fence::Fenced);
        assert_eq!(kernel_names(bounded), ["blit"]);
    }

    #[test]
    fn lists_kernels() {
        assert_eq!(
            kernel_names(SRC),
            ["plain", "inline_fence", "helper_fence", "cccl_fence"]
        );
    }

    #[test]
    fn reads_ptx() {
        let ptx = ".visible .entry k(\n.param .u64 a\n)\n{\n\tfence.proxy.alias;\n\tret;\n}\n\
                   .visible .entry j(\n.param .u64 a\n)\n{\n\tret;\n}\n\
                   .func alias_fence()\n{\n\tfence.proxy.alias;\n\tret;\n}\n\
                   .func (.reg .b32 %r) value()\n{\n\tret;\n}\n\
                   .visible .entry calls(\n.param .u64 a\n)\n{\n\tcall.uni alias_fence, ();\n\tret;\n}\n";
        assert_eq!(kernel_fence(ptx, "k"), Fence::Fenced);
        assert_eq!(kernel_fence(ptx, "j"), Fence::Unfenced);
        assert_eq!(kernel_fence(ptx, "calls"), Fence::Fenced);
    }

    #[test]
    fn follows_macros_and_the_preprocessor() {
        let src = r#"
            #define ALIAS_FENCE() asm volatile("fence.proxy.alias;" ::: "memory")
            #define FENCE_BOTH ALIAS_FENCE()
            #define USE_FENCE 0
            extern "C" __global__ void by_macro(int* a) { a[0] = 1; ALIAS_FENCE(); }
            extern "C" __global__ void by_nested_macro(int* a) { a[0] = 1; FENCE_BOTH; }
            extern "C" __global__ void compiled_out(int* a) {
                a[0] = 1;
            #if USE_FENCE
                asm volatile("fence.proxy.alias;" ::: "memory");
            #endif
            }
            extern "C" __global__ void else_branch(int* a) {
            #if 0
                a[0] = 1;
            #else
                asm volatile("fence.proxy.alias;" ::: "memory");
            #endif
            }
            #ifdef NOT_DEFINED
            extern "C" __global__ void hidden(int* a) { }
            #endif
            extern "C" __global__ void unknown_condition(int* a) {
            #if SOME_FLAG > 2
                asm volatile("fence.proxy.alias;" ::: "memory");
            #endif
            }
        "#;
        assert_eq!(kernel_fence(src, "by_macro"), Fence::Fenced);
        assert_eq!(kernel_fence(src, "by_nested_macro"), Fence::Fenced);
        assert_eq!(kernel_fence(src, "compiled_out"), Fence::Unfenced);
        assert_eq!(kernel_fence(src, "else_branch"), Fence::Fenced);
        assert_eq!(kernel_fence(src, "hidden"), Fence::NotFound);
        // A condition it cannot evaluate keeps the fence.
        assert_eq!(kernel_fence(src, "unknown_condition"), Fence::Fenced);
    }

    #[test]
    fn any_utf8_text_is_read_without_panicking() {
        let kernel = "extern \"C\" __global__ void rotate(float* a, const float* b, float* out) {\n\
                      int i = threadIdx.x; a[i] = 0.5f * i; out[i] = b[i];\n\
                      if (i == 0) printf(\"θ(rad) = %f\\n\", out[0]); }";
        assert_eq!(kernel_fence(kernel, "rotate"), Fence::Unfenced);
        // Multi-byte characters at every place, around every bracket and directive.
        let pieces = [
            "θ",
            "(",
            ")",
            "{",
            "}",
            "é(",
            "__global__",
            " k",
            "日本",
            "\"",
            "//",
            "/*",
            "*/",
            ";",
            "\n#if 0\n",
            "\n#endif\n",
            ".func",
        ];
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let text = format!("{a}{b}__global__ void k(){c}{{ f{a}(); }}{b}");
                    let _ = kernel_fence(&text, "k");
                    let _ = kernel_names(&text);
                    let _ = kernel_signatures(&text);
                    let _ = kernel_signatures(&format!(
                        "extern \"C\" {a}{{ __global__ void k(float{b} x, {c}int* p{a}) {{{b}}} }}"
                    ));
                }
            }
        }
    }
}
