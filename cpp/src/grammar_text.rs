//! The source as the grammar reads it: a few CUDA spellings tree-sitter's CUDA grammar does not
//! parse are blanked with spaces, so that every byte keeps its offset (findings, labels and
//! `#if` arms stay where they are written). What is blanked says nothing the analysis uses:
//!
//! - a lambda's execution space (`[=] __host__ __device__ (int i) {..}`);
//! - calling-convention macros, empty outside Windows (`void CUDART_CB done(void* p)`), and
//!   GCC's `__restrict`;
//! - the C linkage guards of a header (`#ifdef __cplusplus` / `extern "C" {` / `#endif` and
//!   the `}` closing it): their braces open in one `#ifdef` and close in another, which the
//!   grammar cannot pair; the linkage says nothing the analysis uses;
//! - block comments inside a directive continued over lines (`#define END \\ } /* ns */ \\`),
//!   which the grammar reads as the end of the directive;
//! - a macro alone on its line that opens or closes a namespace's brace
//!   (`NLOHMANN_JSON_NAMESPACE_BEGIN`: defined so in the file, or named so by convention);
//! - a macro used on a line of its own at file scope to declare things
//!   (`FAISS_DECLARE_CLASS(Index)`, no `;` after it): what it declares is the macro's.

use std::borrow::Cow;

/// Calling-convention macros of the CUDA headers and Windows, and GCC's spellings of qualifiers
/// the grammar does not know (`const float* __restrict p`): nothing the analysis uses.
const CALLING_CONVENTIONS: &[&str] = &[
    "CUDART_CB",
    "CUDA_CB",
    "CUDAAPI",
    "CUDARTAPI",
    "__stdcall",
    "__cdecl",
    "__restrict",
    "__forceinline",
];

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
    blank.extend(comments_in_continued_directives(src));
    blank.extend(extern_c_guards(src));
    blank.extend(declaration_macros(src));
    blank.extend(old_style_parameters(src));
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

/// The `/* .. */` comments inside a preprocessor directive continued over lines with `\`:
/// their byte ranges.
fn comments_in_continued_directives(src: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut in_directive = false;
    for line in src.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let body = line.trim_end_matches(['\n', '\r']);
        let continued = body.trim_end().ends_with('\\');
        if !in_directive && !body.trim_start().starts_with('#') {
            continue;
        }
        // Only a directive that goes on past this line.
        if in_directive || continued {
            let mut from = 0;
            while let Some(open) = body[from..].find("/*").map(|o| from + o) {
                let Some(close) = body[open + 2..].find("*/").map(|c| open + 2 + c + 2) else {
                    break;
                };
                out.push((start + open, start + close));
                from = close;
            }
        }
        in_directive = continued;
    }
    out
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
    let brace_macros = brace_macros(src);
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
        // `NLOHMANN_JSON_NAMESPACE_BEGIN` alone on its line: a macro that opens or closes a
        // namespace's brace (defined so in the file, or named so by convention).
        let name = &text[..name_len];
        let bare = rest.is_empty() || rest.starts_with("//") || rest.starts_with("/*");
        if bare && (brace_macros.contains(name) || namespace_macro(name)) {
            out.push((start, start + name_len));
            continue;
        }
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

/// The object-like macros the file defines with a body whose braces do not balance
/// (`#define NS_BEGIN namespace nlohmann {`).
fn brace_macros(src: &str) -> std::collections::HashSet<&str> {
    let mut out = std::collections::HashSet::new();
    let mut lines = src.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line.trim_start().strip_prefix('#') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix("define") else {
            continue;
        };
        let rest = rest.trim_start();
        let name_len = rest
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
            .count();
        if name_len == 0 || rest.as_bytes().get(name_len) == Some(&b'(') {
            continue;
        }
        let mut body = rest[name_len..].to_string();
        let mut current = line;
        while current.trim_end().ends_with('\\') {
            let Some(next) = lines.next() else { break };
            body.push_str(next);
            current = next;
        }
        // Comments aside.
        let code: String = body.split("//").next().unwrap_or("").to_string();
        if code.matches('{').count() != code.matches('}').count() {
            out.insert(&rest[..name_len]);
        }
    }
    out
}

/// Names that by convention open or close a namespace (`CUB_NAMESPACE_BEGIN`,
/// `TCNN_NAMESPACE_END`, `THRUST_BEGIN_NAMESPACE`).
fn namespace_macro(name: &str) -> bool {
    ["NAMESPACE_BEGIN", "NAMESPACE_END", "BEGIN_NAMESPACE", "END_NAMESPACE"]
        .iter()
        .any(|s| name.ends_with(s))
}

/// The parameter declarations of old-style (K&R) C function definitions, between the
/// declarator's `)` and the body's `{`:
///
/// ```c
/// static char *
/// my_index (str, chr)
///      const char *str;
///      int chr;
/// {
/// ```
///
/// The declarator's parentheses must hold only names, the lines after it only declarations
/// ending in `;` (no `{`, `}`, `=` or `#`), the next line must open the body. Blanked, the
/// definition reads as one whose parameters have no types.
fn old_style_parameters(src: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut lines: Vec<(usize, &str)> = Vec::new();
    let mut at = 0;
    for line in src.split_inclusive('\n') {
        lines.push((at, line.trim_end_matches(['\n', '\r'])));
        at += line.len();
    }
    let names_only = |inside: &str| {
        inside
            .split(',')
            .all(|p| !p.trim().is_empty() && p.trim().bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
    };
    let mut k = 0;
    while k < lines.len() {
        let text = lines[k].1.trim_end();
        // `name (a, b)` closing the line, not a call (`x = f(a, b)`) nor a statement.
        let declarator = text.ends_with(')')
            && !text.contains([';', '=', '{', '}', '#'])
            && text.rfind('(').is_some_and(|open| {
                let before = text[..open].trim_end();
                before.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                    && names_only(&text[open + 1..text.len() - 1])
            });
        if !declarator {
            k += 1;
            continue;
        }
        let mut j = k + 1;
        let mut decls = Vec::new();
        while j < lines.len() {
            let t = lines[j].1.trim();
            if t.is_empty() {
                j += 1;
                continue;
            }
            if t.ends_with(';')
                && !t.contains(['{', '}', '=', '#', '"'])
                && t.contains(|c: char| c.is_ascii_alphabetic())
            {
                decls.push(j);
                j += 1;
                continue;
            }
            break;
        }
        if !decls.is_empty() && j < lines.len() && lines[j].1.trim_start().starts_with('{') {
            for d in decls {
                let (start, text) = lines[d];
                out.push((start, start + text.len()));
            }
        }
        k = j.max(k + 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::grammar_text;

    #[test]
    fn blanks_the_parameter_declarations_of_old_style_c_definitions() {
        let src = "static char *\nmy_index (str, chr)\n     const char *str;\n     int chr;\n{\n  return 0;\n}\nint g(int a) { return f(a, b); }\nint h(a)\nint a;\n{ return a; }\n";
        let out = grammar_text(src);
        assert_eq!(out.len(), src.len());
        assert!(!out.contains("const char *str;") && !out.contains("int chr;") && !out.contains("int a;"));
        assert!(out.contains("my_index (str, chr)") && out.contains("return f(a, b);"));
        // A prototype followed by declarations, not by a body, stays.
        let kept = "int f(a, b);\nint x;\nint y;\n";
        assert_eq!(grammar_text(kept), kept);
        let mut p = tree_sitter::Parser::new();
        p.set_language(&tree_sitter_cuda::LANGUAGE.into()).unwrap();
        assert!(!p.parse(out.as_ref(), None).unwrap().root_node().has_error(), "{out}");
    }

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

    #[test]
    fn blanks_restrict_directive_comments_and_namespace_macros() {
        let src = "#define NS_BEGIN namespace lib {\n#define NS_END \\\n    } /* namespace lib */ \\\n    // end\nNS_BEGIN\nvoid f(const float* __restrict p);\nNS_END\nTCNN_NAMESPACE_BEGIN\nOTHER_MACRO\n";
        let out = grammar_text(src);
        assert_eq!(out.len(), src.len());
        assert!(!out.contains("__restrict") && !out.contains("/* namespace lib */"));
        assert!(!out.contains("\nNS_BEGIN\n") && !out.contains("\nNS_END\n"));
        assert!(!out.contains("TCNN_NAMESPACE_BEGIN"));
        // A bare macro that neither is defined with unbalanced braces nor named so stays.
        assert!(out.contains("OTHER_MACRO"));
        // The definitions themselves stay.
        assert!(out.contains("#define NS_BEGIN namespace lib {"));
    }
}
