//! Kernel signatures: the name, linkage and parameters of every `__global__` function a CUDA C++
//! source defines, with the line and column of each, for typed launches (the macros) and for
//! the lint.
//!
//! The text is read as characters (never sliced by byte), after comments are blanked and the
//! blocks the preprocessor certainly leaves out are dropped, both of which keep lines and
//! columns. Lines and columns are 1-based; a column counts characters.

use std::fmt;

use crate::{is_ident, preprocess, strip_comments};

/// A kernel (`__global__` function with a body) as its source declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelSig {
    /// The function's name.
    pub name: String,
    /// Whether it has C linkage (`extern "C" __global__ ...`, inside an `extern "C" { }` block,
    /// or declared so before), so that NVRTC does not mangle its name.
    pub extern_c: bool,
    /// Its parameters, in order.
    pub params: Vec<KernelParam>,
    /// The text between the braces of its body.
    pub body: String,
    /// Where its name is.
    pub line: usize,
    /// Where its name is.
    pub column: usize,
}

/// A parameter of a kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelParam {
    /// Its name; `None` for an unnamed parameter (`float*`).
    pub name: Option<String>,
    /// The type without its qualifiers (`const`, `volatile`, `__restrict__`), `*`, `&` and
    /// array brackets, words separated by one space: `float`, `unsigned int`, `float4`,
    /// `Pair<int>`. For a type this reader does not take apart (a function pointer), the type
    /// as written.
    pub base: String,
    /// The type as written (without the name), whitespace runs made one space: `const float*`.
    pub ty: String,
    /// `const` on what a pointer points to, or on the value itself for a non-pointer.
    pub is_const: bool,
    /// `volatile` on what a pointer points to, or on the value itself.
    pub is_volatile: bool,
    /// How many `*` (an array parameter `float a[]` counts as one, as in C).
    pub pointers: u32,
    /// A C++ reference (`float&`, `float&&`).
    pub reference: bool,
    /// Its default argument as written (`10000000` in `unsigned long long t = 10000000`).
    pub default: Option<String>,
    /// Where the parameter's first character is.
    pub line: usize,
    /// Where the parameter's first character is.
    pub column: usize,
}

impl KernelParam {
    /// Whether it is a pointer (one `*` or more).
    pub fn is_pointer(&self) -> bool {
        self.pointers > 0
    }
}

/// Why a source could not be read: where, and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for SourceError {}

/// The signatures of the kernels (`__global__` functions with a body) that CUDA C++ `source`
/// defines, in order. Declarations without a body are not listed (but an `extern "C"` one gives
/// the later definition C linkage). A kernel declared by a macro expansion is not seen.
///
/// Errors: a `__global__` with no function after it, a parameter list or body that is not
/// closed, a parameter that cannot be read (a default argument, `...`, stray characters).
/// PTX `.entry`s are not read here.
pub fn kernel_signatures(source: &str) -> Result<Vec<KernelSig>, SourceError> {
    let text: Vec<char> = preprocess(&strip_comments(source)).chars().collect();
    let code = Code::new(text);
    let c_blocks = code.extern_c_blocks();
    let mut declared_c: Vec<String> = Vec::new();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = code.find_word("__global__", from) {
        from = at + "__global__".len();
        if code.on_directive_line(at) {
            continue;
        }
        let extern_c = code.extern_c_before(at) || c_blocks.iter().any(|&(open, close)| open < at && at < close);
        let Some(decl) = code.declaration_after(at, from)? else {
            continue;
        };
        let name_at = decl.name_at;
        let name: String = code.text[name_at..decl.paren]
            .iter()
            .collect::<String>()
            .trim_end()
            .to_string();
        let Some(body) = decl.body else {
            if extern_c {
                declared_c.push(name);
            }
            continue;
        };
        let params = code.params(decl.paren, decl.paren_close, &name)?;
        let (line, column) = code.line_col(name_at);
        out.push(KernelSig {
            extern_c: extern_c || declared_c.contains(&name),
            name,
            params,
            body: code.text[body.0 + 1..body.1].iter().collect(),
            line,
            column,
        });
        from = body.1;
    }
    Ok(out)
}

/// Words that name (part of) a type by themselves, so a parameter ending in one has no name.
const TYPE_WORDS: &[&str] = &[
    "void", "bool", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "__int128", "wchar_t",
    "char16_t", "char32_t",
];

/// Qualifiers left out of [`KernelParam::base`].
const QUALIFIERS: &[&str] = &["const", "volatile", "__restrict__", "__restrict", "restrict"];

/// The source as characters, and a copy with the contents of string and character literals
/// blanked (the quotes stay), so brackets and words inside them do not count.
struct Code {
    text: Vec<char>,
    masked: Vec<char>,
}

/// A function declaration after a `__global__`.
struct Declaration {
    /// The first character of the name.
    name_at: usize,
    /// The `(` and `)` of the parameter list.
    paren: usize,
    paren_close: usize,
    /// The `{` and `}` of the body; `None` for a declaration (`;`).
    body: Option<(usize, usize)>,
}

fn ident_char(c: char) -> bool {
    c.is_ascii() && is_ident(c)
}

impl Code {
    fn new(text: Vec<char>) -> Code {
        let mut masked = text.clone();
        let mut i = 0;
        while i < text.len() {
            match text[i] {
                '"' => {
                    let mut j = i + 1;
                    while j < text.len() && text[j] != '"' && text[j] != '\n' {
                        if text[j] == '\\' && j + 1 < text.len() && text[j + 1] != '\n' {
                            masked[j] = ' ';
                            j += 1;
                        }
                        masked[j] = ' ';
                        j += 1;
                    }
                    i = j + 1;
                }
                // A character literal ('x', '\n', '\x41'), not a digit separator (1'000).
                '\'' if i == 0 || !ident_char(text[i - 1]) => {
                    let close = if text.get(i + 1) == Some(&'\\') {
                        (i + 3..text.len().min(i + 8)).find(|&j| text[j] == '\'')
                    } else {
                        (text.get(i + 2) == Some(&'\'')).then_some(i + 2)
                    };
                    if let Some(close) = close {
                        for m in &mut masked[i + 1..close] {
                            *m = ' ';
                        }
                        i = close + 1;
                    } else {
                        i += 1;
                    }
                }
                _ => i += 1,
            }
        }
        Code { text, masked }
    }

    fn line_col(&self, at: usize) -> (usize, usize) {
        let before = &self.text[..at.min(self.text.len())];
        let line = 1 + before.iter().filter(|&&c| c == '\n').count();
        let column = 1 + before.iter().rev().take_while(|&&c| c != '\n').count();
        (line, column)
    }

    fn error(&self, at: usize, message: String) -> SourceError {
        let (line, column) = self.line_col(at);
        SourceError { line, column, message }
    }

    fn is_word_at(&self, at: usize, word: &str) -> bool {
        let n = word.chars().count();
        at + n <= self.masked.len()
            && self.masked[at..at + n].iter().copied().eq(word.chars())
            && (at == 0 || !ident_char(self.masked[at - 1]))
            && self.masked.get(at + n).is_none_or(|&c| !ident_char(c))
    }

    /// The next occurrence of `word` as a whole word, outside literals, from `from` on.
    fn find_word(&self, word: &str, from: usize) -> Option<usize> {
        (from..self.masked.len()).find(|&i| self.is_word_at(i, word))
    }

    fn skip_ws(&self, mut at: usize) -> usize {
        while at < self.masked.len() && self.masked[at].is_whitespace() {
            at += 1;
        }
        at
    }

    fn on_directive_line(&self, at: usize) -> bool {
        let start = self.masked[..at].iter().rposition(|&c| c == '\n').map_or(0, |i| i + 1);
        self.masked[start..at]
            .iter()
            .find(|c| !c.is_whitespace())
            .is_some_and(|&c| c == '#')
    }

    /// Whether `extern "C"` starts at `at` (then the index after it).
    fn extern_c_at(&self, at: usize) -> Option<usize> {
        if !self.is_word_at(at, "extern") {
            return None;
        }
        let q = self.skip_ws(at + "extern".len());
        (self.text.get(q..q + 3)? == ['"', 'C', '"']).then_some(q + 3)
    }

    /// The `{ }` of every `extern "C" { ... }` block (an unclosed one runs to the end).
    fn extern_c_blocks(&self) -> Vec<(usize, usize)> {
        let mut blocks = Vec::new();
        let mut from = 0;
        while let Some(at) = self.find_word("extern", from) {
            from = at + 1;
            if let Some(after) = self.extern_c_at(at) {
                let open = self.skip_ws(after);
                if self.masked.get(open) == Some(&'{') {
                    blocks.push((open, self.matching(open, '{', '}').unwrap_or(self.masked.len())));
                }
            }
        }
        blocks
    }

    /// Whether the declaration `__global__` at `at` belongs to says `extern "C"` before it.
    fn extern_c_before(&self, at: usize) -> bool {
        let start = self.masked[..at]
            .iter()
            .rposition(|&c| matches!(c, ';' | '{' | '}'))
            .map_or(0, |i| i + 1);
        (start..at).any(|i| self.extern_c_at(i).is_some())
    }

    /// The index of the bracket closing the one at `open`.
    fn matching(&self, open: usize, open_c: char, close_c: char) -> Option<usize> {
        let mut depth = 0usize;
        for (i, &c) in self.masked.iter().enumerate().skip(open) {
            if c == open_c {
                depth += 1;
            } else if c == close_c {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
        }
        None
    }

    /// The function declared after the `__global__` at `marker` (ending at `from`). `None` for
    /// something that is not a function declaration after all.
    fn declaration_after(&self, marker: usize, from: usize) -> Result<Option<Declaration>, SourceError> {
        let mut rest = from;
        // The parameter list is the parenthesized group followed by the body (or `;`): groups
        // followed by more of the declaration are attributes (`__launch_bounds__(256)`).
        loop {
            let Some(paren) = (rest..self.masked.len()).find(|&i| matches!(self.masked[i], '(' | ';' | '{' | '}'))
            else {
                return Err(self.error(marker, "`__global__` with no function after it".into()));
            };
            if self.masked[paren] != '(' {
                return Err(self.error(marker, "`__global__` with no function after it".into()));
            }
            let Some(close) = self.matching(paren, '(', ')') else {
                return Err(self.error(paren, "this parameter list is not closed".into()));
            };
            let after = self.skip_ws(close + 1);
            match self.masked.get(after) {
                Some('{') | Some(';') | None => {
                    let end = self.masked[..paren]
                        .iter()
                        .rposition(|c| !c.is_whitespace())
                        .map_or(0, |i| i + 1);
                    let name_at = self.masked[..end]
                        .iter()
                        .rposition(|&c| !ident_char(c))
                        .map_or(0, |i| i + 1);
                    let word: String = self.masked[name_at..end].iter().collect();
                    if name_at == end
                        || self.masked[name_at].is_ascii_digit()
                        || name_at < from
                        || TYPE_WORDS.contains(&word.as_str())
                    {
                        return Err(self.error(paren, "expected the kernel's name before its parameter list".into()));
                    }
                    let name: String = self.masked[name_at..end].iter().collect();
                    let body = match self.masked.get(after) {
                        Some('{') => match self.matching(after, '{', '}') {
                            Some(end) => Some((after, end)),
                            None => {
                                return Err(self.error(after, format!("the body of kernel `{name}` is not closed")));
                            }
                        },
                        Some(_) => None,
                        None => {
                            return Err(self.error(close, format!("kernel `{name}` has no body")));
                        }
                    };
                    return Ok(Some(Declaration {
                        name_at,
                        paren,
                        paren_close: close,
                        body,
                    }));
                }
                _ => rest = close + 1,
            }
        }
    }

    /// The parameters between the parentheses at `open` and `close`.
    fn params(&self, open: usize, close: usize, kernel: &str) -> Result<Vec<KernelParam>, SourceError> {
        // Split at the commas outside brackets.
        let mut pieces = Vec::new();
        let mut depth = 0i32;
        let mut start = open + 1;
        for i in open + 1..close {
            match self.masked[i] {
                '(' | '[' | '<' => depth += 1,
                ')' | ']' | '>' => depth -= 1,
                ',' if depth == 0 => {
                    pieces.push((start, i));
                    start = i + 1;
                }
                _ => {}
            }
        }
        pieces.push((start, close));
        let blank = |(a, b): (usize, usize)| self.masked[a..b].iter().all(|c| c.is_whitespace());
        if pieces.len() == 1 && blank(pieces[0]) {
            return Ok(Vec::new());
        }
        if pieces.len() == 1 {
            let (a, b) = pieces[0];
            let words: String = self.masked[a..b].iter().collect();
            if words.trim() == "void" {
                return Ok(Vec::new());
            }
        }
        let mut params = Vec::with_capacity(pieces.len());
        for (n, &(a, b)) in pieces.iter().enumerate() {
            if blank((a, b)) {
                return Err(self.error(
                    b,
                    format!("empty parameter {} in the parameter list of kernel `{kernel}`", n + 1),
                ));
            }
            params.push(self.param(a, b, kernel)?);
        }
        Ok(params)
    }

    fn param(&self, a: usize, b: usize, kernel: &str) -> Result<KernelParam, SourceError> {
        let first = self.skip_ws(a);
        // A default argument (`unsigned long long timeout = 10000000`) is not part of the type.
        let end = b;
        let b = (first..b).find(|&i| self.masked[i] == '=').unwrap_or(b);
        let default = (b < end).then(|| {
            let text: String = self.text[b + 1..end].iter().collect();
            text.split_whitespace().collect::<Vec<_>>().join(" ")
        });
        let (line, column) = self.line_col(first);
        let written: String = self.text[first..b].iter().collect();
        let written = written.split_whitespace().collect::<Vec<_>>().join(" ");
        let unreadable = || self.error(first, format!("cannot read parameter `{written}` of kernel `{kernel}`"));
        // Words (identifiers, with `::` and template arguments glued on), `*`, `&`, `[...]`.
        enum Tok {
            Word(String),
            Star,
            Amp,
            Array,
        }
        let mut toks: Vec<Tok> = Vec::new();
        let mut glue = false;
        let mut i = first;
        while i < b {
            let c = self.masked[i];
            if c.is_whitespace() {
                i += 1;
            } else if ident_char(c) {
                let start = i;
                while i < b && ident_char(self.masked[i]) {
                    i += 1;
                }
                let w: String = self.text[start..i].iter().collect();
                if w.starts_with(|c: char| c.is_ascii_digit()) {
                    return Err(unreadable());
                }
                match toks.last_mut() {
                    Some(Tok::Word(prev)) if glue => prev.push_str(&w),
                    _ => toks.push(Tok::Word(w)),
                }
                glue = false;
            } else if c == ':' && self.masked.get(i + 1) == Some(&':') && i + 1 < b {
                match toks.last_mut() {
                    Some(Tok::Word(prev)) => prev.push_str("::"),
                    _ => toks.push(Tok::Word("::".into())),
                }
                glue = true;
                i += 2;
            } else if c == '<' {
                let mut depth = 0;
                let start = i;
                while i < b {
                    match self.masked[i] {
                        '<' => depth += 1,
                        '>' => depth -= 1,
                        _ => {}
                    }
                    i += 1;
                    if depth == 0 {
                        break;
                    }
                }
                if depth != 0 {
                    return Err(unreadable());
                }
                let args: String = self.text[start..i].iter().collect();
                let args = args.split_whitespace().collect::<Vec<_>>().join(" ");
                match toks.last_mut() {
                    Some(Tok::Word(prev)) => prev.push_str(&args),
                    _ => return Err(unreadable()),
                }
            } else if c == '*' {
                toks.push(Tok::Star);
                i += 1;
            } else if c == '&' {
                toks.push(Tok::Amp);
                i += 1;
            } else if c == '[' {
                let mut depth = 0;
                while i < b {
                    match self.masked[i] {
                        '[' => depth += 1,
                        ']' => depth -= 1,
                        _ => {}
                    }
                    i += 1;
                    if depth == 0 {
                        break;
                    }
                }
                if depth != 0 {
                    return Err(unreadable());
                }
                toks.push(Tok::Array);
            } else if c == '(' {
                // A function pointer or similar: kept whole, for the caller to refuse.
                return Ok(KernelParam {
                    name: None,
                    base: written.clone(),
                    ty: written,
                    is_const: false,
                    is_volatile: false,
                    pointers: 0,
                    reference: false,
                    default,
                    line,
                    column,
                });
            } else {
                return Err(unreadable());
            }
        }
        // The name: the last word, followed by nothing but array brackets, after some of the
        // type, and not itself a type word or qualifier.
        let last_word = toks.iter().rposition(|t| matches!(t, Tok::Word(_)));
        let name = last_word.and_then(|k| {
            let Tok::Word(w) = &toks[k] else { return None };
            let after_ok = toks[k + 1..].iter().all(|t| matches!(t, Tok::Array));
            let type_before = toks[..k].iter().any(|t| match t {
                Tok::Word(x) => !QUALIFIERS.contains(&x.as_str()),
                _ => true,
            });
            let plain =
                !TYPE_WORDS.contains(&w.as_str()) && !QUALIFIERS.contains(&w.as_str()) && !w.contains([':', '<']);
            (after_ok && type_before && plain).then(|| w.clone())
        });
        let name_at_end = name.is_some();
        let mut base = Vec::new();
        let (mut pointers, mut reference, mut is_const, mut is_volatile) = (0u32, false, false, false);
        let mut arrays = 0u32;
        for (k, t) in toks.iter().enumerate() {
            match t {
                Tok::Word(_) if name_at_end && Some(k) == last_word => {}
                Tok::Word(w) if w == "const" || w == "volatile" => {
                    // Before any `*`: on the value (or what the pointer points to).
                    if pointers == 0 && !reference {
                        if w == "const" {
                            is_const = true;
                        } else {
                            is_volatile = true;
                        }
                    }
                }
                Tok::Word(w) if QUALIFIERS.contains(&w.as_str()) => {}
                Tok::Word(w) => {
                    if pointers > 0 || reference {
                        return Err(unreadable());
                    }
                    base.push(w.clone());
                }
                Tok::Star => pointers += 1,
                Tok::Amp => reference = true,
                Tok::Array => arrays += 1,
            }
        }
        if base.is_empty() {
            return Err(unreadable());
        }
        let ty = match &name {
            Some(n) => {
                // The text without the name (and with array brackets kept after it).
                let mut t = written.clone();
                if let Some(p) = rfind_word(&t, n) {
                    t.replace_range(p..p + n.len(), "");
                }
                t.split_whitespace().collect::<Vec<_>>().join(" ")
            }
            None => written.clone(),
        };
        Ok(KernelParam {
            name,
            base: base.join(" "),
            ty: ty.replace(" *", "*").replace(" &", "&").replace(" [", "["),
            is_const,
            is_volatile,
            pointers: pointers + arrays,
            reference,
            default,
            line,
            column,
        })
    }
}

/// The byte index of the last occurrence of `word` in `text` as a whole word.
fn rfind_word(text: &str, word: &str) -> Option<usize> {
    text.rmatch_indices(word).map(|(i, _)| i).find(|&i| {
        !text[..i].chars().next_back().is_some_and(ident_char)
            && !text[i + word.len()..].chars().next().is_some_and(ident_char)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(src: &str) -> KernelParam {
        let sigs = kernel_signatures(&format!("extern \"C\" __global__ void k({src}) {{}}")).unwrap();
        assert_eq!(sigs.len(), 1);
        assert_eq!(sigs[0].params.len(), 1, "{src}");
        sigs[0].params[0].clone()
    }

    fn err(src: &str) -> String {
        kernel_signatures(src).unwrap_err().to_string()
    }

    #[test]
    fn reads_signatures() {
        let src = "#include <cstdint>\n\
                   // a comment with __global__ void nope(int* a) {\n\
                   extern \"C\" __global__ void scale(float* x, float a, unsigned n) {\n\
                   \x20   if (threadIdx.x < n) x[threadIdx.x] *= a;\n\
                   }\n\
                   __device__ float twice(float v) { return 2 * v; }\n\
                   extern \"C\" __global__ void __launch_bounds__(256, 2)\n\
                   copy(const float* __restrict__ in, float* __restrict__ out, size_t n) { out[0] = in[0]; }\n\
                   __global__ void mangled(int* p) { }\n";
        let sigs = kernel_signatures(src).unwrap();
        let names: Vec<_> = sigs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["scale", "copy", "mangled"]);
        let scale = &sigs[0];
        assert!(scale.extern_c);
        assert_eq!((scale.line, scale.column), (3, 28));
        assert!(scale.body.contains("x[threadIdx.x] *= a"));
        let p: Vec<_> = scale
            .params
            .iter()
            .map(|p| (p.name.as_deref().unwrap(), p.base.as_str(), p.pointers, p.is_const))
            .collect();
        assert_eq!(
            p,
            [
                ("x", "float", 1, false),
                ("a", "float", 0, false),
                ("n", "unsigned", 0, false)
            ]
        );
        assert_eq!((scale.params[1].line, scale.params[1].column), (3, 44));
        let copy = &sigs[1];
        assert!(copy.extern_c);
        assert_eq!((copy.line, copy.column), (8, 1));
        assert_eq!(copy.params[0].name.as_deref(), Some("in"));
        assert_eq!(copy.params[0].ty, "const float* __restrict__");
        assert!(copy.params[0].is_const && copy.params[0].is_pointer());
        assert!(!copy.params[1].is_const);
        assert_eq!(copy.params[2].base, "size_t");
        assert!(!sigs[2].extern_c);
    }

    #[test]
    fn reads_parameter_forms() {
        let p = param("float const * volatile p");
        assert_eq!((p.base.as_str(), p.is_const, p.pointers), ("float", true, 1));
        assert_eq!(p.name.as_deref(), Some("p"));
        let p = param("float* const p");
        assert!(!p.is_const, "const on the pointer itself is not on the pointee");
        let p = param("volatile int* a");
        assert!(p.is_volatile && !p.is_const);
        let p = param("unsigned long long n");
        assert_eq!((p.base.as_str(), p.name.as_deref()), ("unsigned long long", Some("n")));
        let p = param("unsigned int");
        assert_eq!((p.base.as_str(), p.name), ("unsigned int", None));
        let p = param("const float*");
        assert_eq!((p.base.as_str(), p.name, p.is_const), ("float", None, true));
        let p = param("float a[]");
        assert_eq!(
            (p.base.as_str(), p.pointers, p.name.as_deref()),
            ("float", 1, Some("a"))
        );
        let p = param("float4 v");
        assert_eq!((p.base.as_str(), p.ty.as_str()), ("float4", "float4"));
        let p = param("const Pair<int, 2>& pr");
        assert_eq!(
            (p.base.as_str(), p.reference, p.ty.as_str()),
            ("Pair<int, 2>", true, "const Pair<int, 2>&")
        );
        let p = param("std::uint32_t n");
        assert_eq!((p.base.as_str(), p.name.as_deref()), ("std::uint32_t", Some("n")));
        let p = param("float** pp");
        assert_eq!(p.pointers, 2);
        let p = param("void (*f)(int)");
        assert_eq!((p.base.as_str(), p.name), ("void (*f)(int)", None));
        assert!(
            kernel_signatures("extern \"C\" __global__ void k(void) {}").unwrap()[0]
                .params
                .is_empty()
        );
        assert!(
            kernel_signatures("extern \"C\" __global__ void k( ) {}").unwrap()[0]
                .params
                .is_empty()
        );
    }

    #[test]
    fn finds_c_linkage() {
        let src = "extern \"C\" {\n__global__ void a(int* p) {}\n}\n\
                   extern \"C\" __global__ void b(int* p);\n\
                   __global__ void b(int* p) { p[0] = 1; }\n\
                   __global__ void c(int* p) {}\n\
                   extern \"C\"\n__global__\nvoid d(int* p) {}\n";
        let sigs = kernel_signatures(src).unwrap();
        let linkage: Vec<_> = sigs.iter().map(|s| (s.name.as_str(), s.extern_c)).collect();
        assert_eq!(linkage, [("a", true), ("b", true), ("c", false), ("d", true)]);
    }

    #[test]
    fn ignores_strings_and_left_out_blocks() {
        let src = "#if 0\nextern \"C\" __global__ void gone(int* p) {}\n#endif\n\
                   extern \"C\" __global__ void k(int* p) { printf(\"}{ __global__ void x(\"); char c = '}'; }\n";
        let sigs = kernel_signatures(src).unwrap();
        assert_eq!(sigs.len(), 1);
        assert_eq!((sigs[0].name.as_str(), sigs[0].line), ("k", 4));
    }

    #[test]
    fn columns_survive_comments() {
        let src = "extern \"C\" __global__ void k(/* the output */ float* out, /* n */ int n) {}";
        let sigs = kernel_signatures(src).unwrap();
        assert_eq!(sigs[0].params[0].column, 47);
        assert_eq!(&src[46..52], "float*");
        assert_eq!(sigs[0].params[1].column, 67);
    }

    #[test]
    fn default_arguments_are_not_part_of_the_type() {
        let sigs = kernel_signatures(
            "__global__ void delay(volatile int *flag, unsigned long long timeout_clocks = 10000000) {}",
        )
        .unwrap();
        assert_eq!(sigs[0].params.len(), 2);
        assert!(sigs[0].params[0].is_volatile && sigs[0].params[0].is_pointer());
        assert_eq!(sigs[0].params[1].name.as_deref(), Some("timeout_clocks"));
        assert_eq!(sigs[0].params[1].base, "unsigned long long");
        assert_eq!(sigs[0].params[1].default.as_deref(), Some("10000000"));
    }

    #[test]
    fn reports_malformed_source() {
        assert_eq!(
            err("extern \"C\" __global__ void k(int* p) {\n  p[0] = 1;\n"),
            "1:38: the body of kernel `k` is not closed"
        );
        assert_eq!(
            err("\nextern \"C\" __global__ void k(int* p {}\n"),
            "2:29: this parameter list is not closed"
        );
        assert_eq!(
            err("extern \"C\" __global__ ;"),
            "1:12: `__global__` with no function after it"
        );
        assert_eq!(
            err("extern \"C\" __global__ void k(int* p, , int n) {}"),
            "1:38: empty parameter 2 in the parameter list of kernel `k`"
        );
        assert_eq!(
            err("extern \"C\" __global__ void k(int* p, ...) {}"),
            "1:38: cannot read parameter `...` of kernel `k`"
        );
        assert_eq!(
            err("extern \"C\" __global__ void k(int p)"),
            "1:35: kernel `k` has no body"
        );
        assert_eq!(
            err("__global__ void (int p) {}"),
            "1:17: expected the kernel's name before its parameter list"
        );
    }

    #[test]
    fn non_ascii_text() {
        let src = "// θ é 日本\nextern \"C\" __global__ void rotate(float* θ_out, float a) { /* é */ θ_out[0] = a; }";
        let e = kernel_signatures(src).unwrap_err();
        assert_eq!(
            e.to_string(),
            "2:35: cannot read parameter `float* θ_out` of kernel `rotate`"
        );
        let src = "/* 日本 */ extern \"C\" __global__ void k(float* out) { printf(\"θ\"); }";
        let sigs = kernel_signatures(src).unwrap();
        assert_eq!((sigs[0].line, sigs[0].column, sigs[0].params[0].column), (1, 37, 39));
    }
}
