//! Which parameters a kernel may write through: a pointer (or reference) parameter is read-only
//! when it points to `const`, or when every use of it in the body is a load `p[i]` (not assigned
//! to, not incremented, its address not taken). Anything else (`p[i] = ..`, `*p`, `p + i`, `p`
//! passed to a function or an `asm` block, copied to another pointer) counts as a write: the
//! answer errs towards "written".

use crate::signature::{KernelParam, KernelSig};
use crate::{is_ident, kernel_signatures};

/// For each parameter of kernel `name` in `source`, whether the kernel may write memory through
/// it; `None` when the source has no such kernel (or cannot be read).
pub fn kernel_writes(source: &str, name: &str) -> Option<Vec<bool>> {
    let sigs = kernel_signatures(source).ok()?;
    let sig = sigs.iter().find(|s| s.name == name)?;
    Some(sig.params.iter().map(|p| param_written(sig, p)).collect())
}

/// What a kernel does through the fields of a struct parameter (`Buffers b` by value, or
/// `Buffers* b`): the field paths it uses (`buff1`, `inner.data`, as `b.buff1[i]`,
/// `b->inner.data[i]`), and those it may write through (the same test as [`kernel_writes`]'s,
/// on the field's last name).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldUses {
    pub used: Vec<String>,
    pub written: Vec<String>,
}

/// For each parameter of kernel `name` in `source`, its [`FieldUses`] when every use of it in
/// the body goes through a field (`p.f`, `p->f`); `None` for a parameter used otherwise (whole,
/// passed on, unnamed, or with an `asm` block in the body). `None` in all when the source has
/// no such kernel.
pub fn kernel_field_uses(source: &str, name: &str) -> Option<Vec<Option<FieldUses>>> {
    let sigs = kernel_signatures(source).ok()?;
    let sig = sigs.iter().find(|s| s.name == name)?;
    Some(sig.params.iter().map(|p| field_uses(sig, p)).collect())
}

fn field_uses(sig: &KernelSig, param: &KernelParam) -> Option<FieldUses> {
    let name: Vec<char> = param.name.as_ref()?.chars().collect();
    if sig.body.contains("asm") || param.pointers > 1 {
        return None;
    }
    let body: Vec<char> = sig.body.chars().collect();
    let mut uses = FieldUses::default();
    let mut i = 0;
    let mut steps = 0;
    while i + name.len() <= body.len() {
        steps += 1;
        if steps > 1_000_000 {
            return None;
        }
        let here = body[i..i + name.len()] == name[..]
            && (i == 0 || !is_ident(body[i - 1]))
            && body.get(i + name.len()).is_none_or(|&c| !is_ident(c));
        // `.p`/`->p` is some other name.
        let member = {
            let before = body[..i].iter().rev().find(|c| !c.is_whitespace());
            matches!(before, Some('.')) || body[..i].ends_with(&['-', '>'])
        };
        if !here || member {
            i += 1;
            continue;
        }
        // The path of fields after the name, and where its last name starts.
        let mut path = Vec::new();
        let mut j = i + name.len();
        let mut last = None;
        loop {
            let k = skip_ws(&body, j);
            let after = if body.get(k) == Some(&'.') {
                k + 1
            } else if body.get(k) == Some(&'-') && body.get(k + 1) == Some(&'>') {
                k + 2
            } else {
                break;
            };
            let start = skip_ws(&body, after);
            let mut end = start;
            while body.get(end).is_some_and(|&c| is_ident(c)) {
                end += 1;
            }
            if end == start {
                return None;
            }
            path.push(body[start..end].iter().collect::<String>());
            last = Some((start, end - start));
            j = end;
        }
        let Some((at, len)) = last else {
            // Used whole: not through a field.
            return None;
        };
        let path = path.join(".");
        // `p->f` where `f` is itself the memory: a write is `p->f[i] = ..` (or anything but a
        // load `p->f[i]`).
        let address = body[..i].iter().rev().find(|c| !c.is_whitespace()) == Some(&'&');
        if (address || !is_load_after(&body, at, len)) && !uses.written.contains(&path) {
            uses.written.push(path.clone());
        }
        if !uses.used.contains(&path) {
            uses.used.push(path);
        }
        i = j;
    }
    // Never used: nothing to say beyond what `kernel_writes` says.
    (!uses.used.is_empty()).then_some(uses)
}

/// How a kernel's body uses one pointer parameter (see [`kernel_param_uses`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ParamUse {
    /// It is used at all (named in the body).
    pub used: bool,
    /// Every use is a load `p[i]` (it is used, and nothing else is done with it).
    pub loads_only: bool,
    /// The body tests it against null (`if (p)`, `p != nullptr`, `!p`, `p ? .. : ..`, `p &&`):
    /// an optional argument.
    pub null_tested: bool,
    /// The body surely stores through it: `p[i] = ..`, `p[i] += ..`, `p[i]++`, `*p = ..`,
    /// `atomicAdd(&p[i], ..)`, `atomicAdd(p, ..)` (what [`kernel_writes`] errs towards is not
    /// enough: passed to a function, offset, copied).
    pub stores: bool,
    /// Every use is the address given to a system-scope atomic (`atomicAdd_system(&p[i], ..)`,
    /// `atomicCAS_system((unsigned*)&p[0], ..)`): memory the kernel shares with the host while
    /// it runs, by design.
    pub system_atomics_only: bool,
}

/// For each parameter of kernel `name` in `source`, how the body uses it; `None` when the
/// source has no such kernel. A parameter that is not a pointer (or reference) is unused.
pub fn kernel_param_uses(source: &str, name: &str) -> Option<Vec<ParamUse>> {
    let sigs = kernel_signatures(source).ok()?;
    let sig = sigs.iter().find(|s| s.name == name)?;
    Some(sig.params.iter().map(|p| param_use(sig, p)).collect())
}

fn param_use(sig: &KernelSig, param: &KernelParam) -> ParamUse {
    let mut out = ParamUse::default();
    let Some(name) = &param.name else {
        return out;
    };
    if !(param.is_pointer() || param.reference) {
        return out;
    }
    let body: Vec<char> = sig.body.chars().collect();
    let name: Vec<char> = name.chars().collect();
    let mut all_loads = !sig.body.contains("asm");
    let mut all_system_atomics = true;
    let mut i = 0;
    while i + name.len() <= body.len() {
        let here = body[i..i + name.len()] == name[..]
            && (i == 0 || !is_ident(body[i - 1]))
            && body.get(i + name.len()).is_none_or(|&c| !is_ident(c));
        if !here {
            i += 1;
            continue;
        }
        let before = body[..i].iter().rev().find(|c| !c.is_whitespace()).copied();
        if matches!(before, Some('.')) || body[..i].ends_with(&['-', '>']) {
            // `s.p`, `s->p`: another name.
            i += name.len();
            continue;
        }
        out.used = true;
        all_loads &= is_load(&body, i, name.len());
        out.stores |= is_store(&body, i, name.len());
        all_system_atomics &= is_system_atomic_argument(&body, i);
        let after_at = skip_ws(&body, i + name.len());
        let after: String = body[after_at..(after_at + 2).min(body.len())].iter().collect();
        let tested_after = after.starts_with("==")
            || after.starts_with("!=")
            || after.starts_with("&&")
            || after.starts_with("||")
            || after.starts_with('?')
            || after.starts_with(')') && matches!(before, Some('(')) && {
                // `if (p)`, `while (p)`: the parenthesis follows a keyword.
                let upto: String = body[..i].iter().collect();
                let upto = upto.trim_end().trim_end_matches('(').trim_end();
                upto.ends_with("if") || upto.ends_with("while")
            };
        let tested_before = matches!(before, Some('!'))
            || body[..i].iter().collect::<String>().trim_end().ends_with("&&")
            || body[..i].iter().collect::<String>().trim_end().ends_with("||");
        out.null_tested |= tested_after || tested_before;
        i += name.len();
    }
    out.loads_only = out.used && all_loads;
    out.system_atomics_only = out.used && all_system_atomics;
    out
}

/// Whether the use at `at` is the first argument of a system-scope atomic: `atomicAdd_system(`
/// then, optionally, a pointer cast and `&`.
fn is_system_atomic_argument(body: &[char], at: usize) -> bool {
    let before: String = body[at.saturating_sub(64)..at].iter().collect();
    let mut b = before.trim_end();
    b = b.strip_suffix('&').unwrap_or(b).trim_end();
    // `(unsigned int *)`: a cast.
    if let Some(cast) = b.strip_suffix(')')
        && let Some(open) = cast.rfind('(')
        && cast[open + 1..].trim_end().ends_with('*')
    {
        b = cast[..open].trim_end();
    }
    let Some(b) = b.strip_suffix('(') else { return false };
    let callee: String = b
        .trim_end()
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    callee.starts_with("atomic") && callee.ends_with("_system")
}

/// Whether the use of the name at `at` (`len` characters) surely stores through it:
/// `p[..] = ..` (or a compound assignment, `++`, `--`), `*p = ..`, or the address or the
/// pointer given to an `atomic*` function.
fn is_store(body: &[char], at: usize, len: usize) -> bool {
    let before: String = body[..at]
        .iter()
        .rev()
        .take(48)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let before = before.trim_end();
    // `atomicAdd(&p[i], v)`, `atomicMax(p + i, v)`, `atomicOr(p, v)`.
    let atomic = before
        .strip_suffix('&')
        .unwrap_or(before)
        .trim_end()
        .strip_suffix('(')
        .is_some_and(|b| {
            let word: String = b
                .chars()
                .rev()
                .take_while(|c| is_ident(*c))
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            word.starts_with("atomic")
        });
    if atomic {
        return true;
    }
    let mut j = skip_ws(body, at + len);
    if body.get(j) == Some(&'[') {
        let Some(end) = past_subscript(body, j) else {
            return false;
        };
        j = end;
    } else if !before.ends_with('*') {
        return false;
    }
    let k = skip_ws(body, j);
    let next: String = body[k..(k + 3).min(body.len())].iter().collect();
    (next.starts_with('=') && !next.starts_with("=="))
        || ["+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "++", "--", "<<=", ">>="]
            .iter()
            .any(|op| next.starts_with(op))
}

fn param_written(sig: &KernelSig, param: &KernelParam) -> bool {
    if !(param.is_pointer() || param.reference) || param.is_const {
        return false;
    }
    let Some(name) = &param.name else {
        // Unnamed: never used.
        return false;
    };
    if sig.body.contains("asm") {
        return true;
    }
    let body: Vec<char> = sig.body.chars().collect();
    let name: Vec<char> = name.chars().collect();
    let mut i = 0;
    while i + name.len() <= body.len() {
        let here = body[i..i + name.len()] == name[..]
            && (i == 0 || !is_ident(body[i - 1]))
            && body.get(i + name.len()).is_none_or(|&c| !is_ident(c));
        if !here {
            i += 1;
            continue;
        }
        // `threadIdx.x`, `s->x`: a member of that name, not the parameter.
        let before = body[..i].iter().rev().find(|c| !c.is_whitespace());
        if matches!(before, Some('.')) || body[..i].ends_with(&['-', '>']) {
            i += name.len();
            continue;
        }
        if !is_load(&body, i, name.len()) {
            return true;
        }
        i += name.len();
    }
    false
}

/// Whether the use of the parameter at `at` (`len` characters) is a load `p[..]`.
fn is_load(body: &[char], at: usize, len: usize) -> bool {
    // `&p[i]` takes an address; `.p`/`->p` is some other name.
    let before = body[..at].iter().rev().find(|c| !c.is_whitespace());
    if matches!(before, Some('&' | '.')) || body[..at].ends_with(&['-', '>']) {
        return false;
    }
    is_load_after(body, at, len)
}

/// Whether the name at `at` (`len` characters), whatever precedes it, is subscripted and the
/// element only read: `x[i]` not assigned, incremented or taken a field of.
fn is_load_after(body: &[char], at: usize, len: usize) -> bool {
    let j = skip_ws(body, at + len);
    if body.get(j) != Some(&'[') {
        return false;
    }
    let Some(end) = past_subscript(body, j) else {
        return false;
    };
    let k = skip_ws(body, end);
    let next: String = body[k..(k + 3).min(body.len())].iter().collect();
    let assigns = next.starts_with('=') && !next.starts_with("==")
        || ["+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "++", "--", "<<=", ">>="]
            .iter()
            .any(|op| next.starts_with(op))
        || next.starts_with('.');
    // `++p[i]`, `--p[i]`.
    let pre_increment = body[..at]
        .iter()
        .rev()
        .filter(|c| !c.is_whitespace())
        .take(2)
        .eq(['+', '+'].iter())
        || body[..at]
            .iter()
            .rev()
            .filter(|c| !c.is_whitespace())
            .take(2)
            .eq(['-', '-'].iter());
    !assigns && !pre_increment
}

/// Past the `]` that closes the subscript opening at `open` (subscripts may nest); `None` when
/// it is not closed.
fn past_subscript(body: &[char], open: usize) -> Option<usize> {
    let mut depth = 0;
    for (j, c) in body.iter().enumerate().skip(open) {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(j + 1);
                }
            }
            _ => {}
        }
    }
    None
}

fn skip_ws(body: &[char], mut i: usize) -> usize {
    while body.get(i).is_some_and(|c| c.is_whitespace()) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_uses_say_loads_and_null_tests() {
        let src = r#"
            __global__ void k(const float* a, float* bias, float* out, float* unused, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) out[i] = a[i] + (bias != nullptr ? bias[i] : 0.0f);
            }
            __global__ void g(float* opt, float* x) {
                if (opt) opt[0] = 1.0f;
                x[0] = 2.0f;
            }
        "#;
        let k = kernel_param_uses(src, "k").unwrap();
        assert!(k[0].loads_only && !k[0].null_tested);
        assert!(k[1].null_tested);
        assert!(k[2].used && !k[2].loads_only && !k[2].null_tested);
        assert!(!k[3].used);
        let g = kernel_param_uses(src, "g").unwrap();
        assert!(k[2].stores && !k[0].stores && g[0].stores && g[1].stores);
        let helper = "__global__ void h(float* a, float* b, int* c) { dev_fn(a); b[0] = a[0]; atomicAdd(&c[1], 1); }";
        let h = kernel_param_uses(helper, "h").unwrap();
        assert!(!h[0].stores && h[1].stores && h[2].stores);
        // `threadIdx.x` is not a use of a parameter named `x`.
        let axpy = "__global__ void axpy(float a, float* x, float* y) { y[threadIdx.x] = a * x[threadIdx.x]; }";
        assert_eq!(kernel_writes(axpy, "axpy"), Some(vec![false, false, true]));
        assert!(g[0].null_tested && !g[1].null_tested && !g[1].loads_only);
        // Used only through system-scope atomics: shared with the host by design.
        let sys = "__global__ void s(int* shared, int* mixed, int* plain) { atomicAdd_system(&shared[0], 1); atomicCAS_system((unsigned int *)&shared[1], 0u, 1u); atomicAdd_system(&mixed[0], 1); mixed[1] = 2; atomicAdd(&plain[0], 1); }";
        let s = kernel_param_uses(sys, "s").unwrap();
        assert!(s[0].system_atomics_only && !s[1].system_atomics_only && !s[2].system_atomics_only);
    }

    #[test]
    fn const_and_load_only_parameters_are_read_only() {
        let src = r#"
            extern "C" __global__ void sum(const float* a, float* b, float* out, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) out[i] = a[i] + b[i];
            }
        "#;
        assert_eq!(kernel_writes(src, "sum"), Some(vec![false, false, true, false]));
    }

    #[test]
    fn every_other_use_counts_as_a_write() {
        let src = r#"
            __global__ void k(float* a, float* b, float* c, float* d, float* e, float* f, float* g, int* h) {
                a[0] += 1.0f;
                float* p = b; p[0] = 1.0f;
                atomicAdd(&c[0], 1.0f);
                *d = 2.0f;
                e[1]++;
                helper(f);
                ++g[2];
                h[h[0]] = 1;
            }
        "#;
        assert_eq!(
            kernel_writes(src, "k"),
            Some(vec![true, true, true, true, true, true, true, true])
        );
    }

    #[test]
    fn comparisons_and_nested_subscripts_are_loads() {
        let src = "__global__ void k(int* a, int* idx, int* out) { if (a[idx[0]] == 3) out[0] = a[1]; }";
        assert_eq!(kernel_writes(src, "k"), Some(vec![false, false, true]));
    }

    #[test]
    fn fields_of_struct_parameters_by_value_and_through_pointers() {
        let src = r#"
            struct Inner { int* buff; };
            struct Bufs { int* a; int* b; Inner in; int n; };
            __global__ void k(Bufs s, Bufs* p, Bufs whole, const int n) {
                int i = threadIdx.x;
                if (i < s.n) s.a[i] = s.b[i] + p->a[i];
                p->in.buff[i] = 1;
                helper(whole);
            }
        "#;
        let uses = kernel_field_uses(src, "k").unwrap();
        assert_eq!(
            uses[0],
            Some(FieldUses {
                used: vec!["n".into(), "a".into(), "b".into()],
                // `s.n` is not a load through a subscript: counted as written, and holds no
                // memory.
                written: vec!["n".into(), "a".into()],
            })
        );
        assert_eq!(
            uses[1],
            Some(FieldUses {
                used: vec!["a".into(), "in.buff".into()],
                written: vec!["in.buff".into()],
            })
        );
        assert_eq!(uses[2], None);
        assert_eq!(uses[3], None);
    }

    #[test]
    fn inline_ptx_and_unknown_kernels() {
        let src = "__global__ void k(int* a) { asm volatile(\"st.global.u32 [%0], 1;\" :: \"l\"(a)); }";
        assert_eq!(kernel_writes(src, "k"), Some(vec![true]));
        assert_eq!(kernel_writes(src, "missing"), None);
        assert_eq!(kernel_writes("not C at all {{{", "k"), None);
    }
}
