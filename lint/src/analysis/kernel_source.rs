//! Reads CUDA C++ (or PTX) source text for what `unfenced_vmm_alias` needs to know: whether a
//! kernel executes `fence.proxy.alias`, by itself or through a `__device__` function it calls.

/// What the source says of a kernel's fencing.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fence {
    Fenced,
    Unfenced,
    /// No kernel of that name is defined in the source.
    NotFound,
}

const FENCE_SPELLINGS: &[&str] = &["fence.proxy.alias", "fence_proxy_alias"];

/// Whether kernel `name` in `source` executes `fence.proxy.alias`.
pub fn kernel_fence(source: &str, name: &str) -> Fence {
    let code = strip_comments(source);
    match function_body(&code, name, &["__global__", ".entry"]) {
        None => Fence::NotFound,
        Some(body) if fenced(&code, body, 3) => Fence::Fenced,
        Some(_) => Fence::Unfenced,
    }
}

/// The names of the kernels (`__global__` functions, PTX `.entry`s) a source defines.
pub fn kernel_names(source: &str) -> Vec<String> {
    let code = strip_comments(source);
    let mut names = Vec::new();
    for marker in ["__global__", ".entry"] {
        let mut from = 0;
        while let Some(pos) = code[from..].find(marker) {
            let start = from + pos + marker.len();
            if let Some(paren) = code[start..].find('(') {
                let header = &code[start..start + paren];
                if let Some(name) = header
                    .split(|c: char| !is_ident(c))
                    .rfind(|s| !s.is_empty())
                {
                    names.push(name.to_string());
                }
            }
            from = start;
        }
    }
    names
}

fn fenced(code: &str, body: &str, depth: u32) -> bool {
    if FENCE_SPELLINGS.iter().any(|f| body.contains(f)) {
        return true;
    }
    if depth == 0 {
        return false;
    }
    // One of the `__device__` functions it calls fences.
    called_names(body).any(|callee| {
        function_body(code, callee, &["__device__"])
            .is_some_and(|b| b != body && fenced(code, b, depth - 1))
    })
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Identifiers directly followed by `(`.
fn called_names(body: &str) -> impl Iterator<Item = &str> {
    body.match_indices('(').filter_map(move |(pos, _)| {
        let before = body[..pos].trim_end();
        let start = before.rfind(|c: char| !is_ident(c)).map_or(0, |i| i + 1);
        let name = &before[start..];
        (!name.is_empty() && !name.starts_with(|c: char| c.is_ascii_digit())).then_some(name)
    })
}

/// The body (between its braces) of the function `name` declared with one of `markers` in its
/// declaration (`__global__ void name(...) { body }`).
fn function_body<'a>(code: &'a str, name: &str, markers: &[&str]) -> Option<&'a str> {
    let mut from = 0;
    while let Some(pos) = code[from..].find(name) {
        let at = from + pos;
        from = at + name.len();
        let before_ok = code[..at].chars().next_back().is_none_or(|c| !is_ident(c));
        let after = code[from..].trim_start();
        if !before_ok || !after.starts_with('(') {
            continue;
        }
        // The declaration starts after the previous `;`, `}` or `{` (or at the start).
        let decl_start = code[..at].rfind([';', '}', '{']).map_or(0, |i| i + 1);
        if !markers.iter().any(|m| code[decl_start..at].contains(m)) {
            continue;
        }
        let params_start = code.len() - after.len();
        let params_end = matching(code, params_start, '(', ')')?;
        let rest = &code[params_end + 1..];
        let brace = params_end + 1 + rest.find(['{', ';'])?;
        if code.as_bytes()[brace] == b';' {
            continue; // a declaration without a body
        }
        let end = matching(code, brace, '{', '}')?;
        return Some(&code[brace + 1..end]);
    }
    None
}

/// The index of the bracket closing the one at `open`.
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

/// The source with `//` and `/* */` comments blanked out (string contents are kept: inline PTX
/// lives in strings).
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
                chars.next();
                let mut prev = '\0';
                for n in chars.by_ref() {
                    if prev == '*' && n == '/' {
                        break;
                    }
                    prev = n;
                }
                out.push(' ');
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
                   .visible .entry j(\n.param .u64 a\n)\n{\n\tret;\n}\n";
        assert_eq!(kernel_fence(ptx, "k"), Fence::Fenced);
        assert_eq!(kernel_fence(ptx, "j"), Fence::Unfenced);
    }
}
