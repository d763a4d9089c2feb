//! The source as the grammar reads it: a few CUDA spellings tree-sitter's CUDA grammar does not
//! parse are blanked with spaces, so that every byte keeps its offset (findings, labels and
//! `#if` arms stay where they are written). What is blanked says nothing the analysis uses:
//!
//! - a lambda's execution space (`[=] __host__ __device__ (int i) {..}`);
//! - calling-convention macros, empty outside Windows (`void CUDART_CB done(void* p)`);
//! - the C linkage guards of a header (`#ifdef __cplusplus` / `extern "C" {` / `#endif` and
//!   the `}` closing it): their braces open in one `#ifdef` and close in another, which the
//!   grammar cannot pair; the linkage says nothing the analysis uses;
//! - a macro used on a line of its own at file scope to declare things
//!   (`FAISS_DECLARE_CLASS(Index)`, no `;` after it): what it declares is the macro's.

use std::borrow::Cow;

/// Calling-convention macros of the CUDA headers and Windows.
const CALLING_CONVENTIONS: &[&str] = &["CUDART_CB", "CUDA_CB", "CUDAAPI", "CUDARTAPI", "__stdcall", "__cdecl"];

/// `src` with what the grammar cannot read blanked (the same length, byte for byte).
pub fn grammar_text(src: &str) -> Cow<'_, str> {
    let bytes = src.as_bytes();
    let mut blank: Vec<(usize, usize)> = Vec::new();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b']' {
            // `] __host__ __device__ (`: the execution spaces of a lambda.
            let mut j = i + 1;
            let mut spaces = Vec::new();
            loop {
                while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                    j += 1;
                }
                let rest = &src[j..];
                let word = ["__host__", "__device__"]
                    .into_iter()
                    .find(|w| rest.starts_with(w) && !rest.as_bytes().get(w.len()).is_some_and(|&c| is_ident(c)));
                match word {
                    Some(w) => {
                        spaces.push((j, j + w.len()));
                        j += w.len();
                    }
                    None => break,
                }
            }
            if !spaces.is_empty() && matches!(bytes.get(j), Some(b'(' | b'{')) {
                blank.extend(spaces);
            }
            i = j.max(i + 1);
            continue;
        }
        if is_ident(b) && (i == 0 || !is_ident(bytes[i - 1])) {
            let end = (i..bytes.len()).find(|&k| !is_ident(bytes[k])).unwrap_or(bytes.len());
            if CALLING_CONVENTIONS.contains(&&src[i..end]) {
                blank.push((i, end));
            }
            i = end;
            continue;
        }
        i += 1;
    }
    blank.extend(extern_c_guards(src));
    blank.extend(declaration_macros(src));
    if blank.is_empty() {
        return Cow::Borrowed(src);
    }
    let mut out = bytes.to_vec();
    for (a, b) in blank {
        out[a..b].fill(b' ');
    }
    // Only ASCII identifiers were replaced by ASCII spaces.
    Cow::Owned(String::from_utf8(out).unwrap_or_else(|_| src.to_string()))
}

/// The `#ifdef __cplusplus` blocks whose only content is `extern "C" {` or `}` (comments
/// aside): their byte ranges, directives included.
fn extern_c_guards(src: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let lines: Vec<(usize, &str)> = {
        let mut at = 0;
        src.split_inclusive('\n')
            .map(|l| {
                let start = at;
                at += l.len();
                (start, l)
            })
            .collect()
    };
    let code = |l: &str| -> String {
        let l = l.split("//").next().unwrap_or("");
        let mut out = String::new();
        let mut rest = l;
        while let Some(i) = rest.find("/*") {
            out.push_str(&rest[..i]);
            rest = rest[i..].find("*/").map_or("", |j| &rest[i + j + 2..]);
        }
        out.push_str(rest);
        out.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    for w in lines.windows(3) {
        let [(a, open), (_, body), (c, close)] = w else {
            continue;
        };
        let open = code(open);
        let opens = matches!(
            open.as_str(),
            "#ifdef __cplusplus" | "# ifdef __cplusplus" | "#if defined(__cplusplus)" | "#if defined __cplusplus"
        );
        let body = code(body);
        if opens
            && matches!(body.as_str(), "extern \"C\" {" | "extern \"C\"{" | "}")
            && code(close).starts_with("#endif")
        {
            out.push((*a, c + close.trim_end_matches(['\n', '\r']).len()));
        }
    }
    out
}

/// Lines that are only a use of an upper-case macro at the start of the line, with no `;`
/// (`DECLARE_CLASS(Index)`), outside a macro's definition.
fn declaration_macros(src: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut continued = false;
    for line in src.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let text = line.trim_end_matches(['\n', '\r']);
        let was_continued = continued;
        continued = text.ends_with('\\');
        if was_continued || text.starts_with('#') {
            continue;
        }
        let name_len = text
            .bytes()
            .take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b'_')
            .count();
        if name_len < 3 || !text.as_bytes()[0].is_ascii_uppercase() {
            continue;
        }
        let rest = text[name_len..].trim_end();
        let balanced = rest.starts_with('(')
            && rest.ends_with(')')
            && rest.matches('(').count() == rest.matches(')').count()
            && !rest.contains([';', '{', '}', '"']);
        if balanced {
            out.push((start, start + text.len()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::grammar_text;

    #[test]
    fn blanks_lambda_execution_spaces_and_calling_conventions_keeping_offsets() {
        let src = "auto l = [=] __host__ __device__ (int i) { d[i] = i; };\nvoid CUDART_CB done(void* p) {}\n";
        let out = grammar_text(src);
        assert_eq!(out.len(), src.len());
        assert!(!out.contains("__device__") && !out.contains("CUDART_CB"));
        assert_eq!(out.find("(int i)"), src.find("(int i)"));
        // Elsewhere they stay: a kernel's `__device__`, an array's `]`.
        let kept = "__device__ int f(int* a) { return a[0]; }\nint x = a[1] + CUDART_CBX;\n";
        assert_eq!(grammar_text(kept), kept);
    }

    #[test]
    fn blanks_declaration_macros_on_lines_of_their_own() {
        let src = "FAISS_DECLARE_CLASS(Index)\nFAISS_DECLARE_CLASS_INHERITED(IndexFlat, Index)\nint f();\nCHECK(x);\n#define M(a) \\\n  DECL(a)\n";
        let out = grammar_text(src);
        assert_eq!(out.len(), src.len());
        assert!(!out.contains("FAISS_DECLARE"));
        assert!(out.contains("CHECK(x);") && out.contains("DECL(a)"), "{out}");
    }

    #[test]
    fn blanks_c_linkage_guards() {
        let src =
            "#ifdef __cplusplus\nextern \"C\" {\n#endif\nint f(void);\n#ifdef __cplusplus\n} /* extern C */\n#endif\n";
        let out = grammar_text(src);
        assert_eq!(out.len(), src.len());
        assert_eq!(out.trim(), "int f(void);");
    }
}
