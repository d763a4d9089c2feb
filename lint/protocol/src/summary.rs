//! The effect-summary grammar, written once: what users write on their own wrappers (through
//! the `cuda_lint` macros, which emit `#[cuda_lint_summary::effect(..)]` under `cargo cuda-lint`)
//! and in `cuda-lint.toml`. The macros print a [`Summary`] with its `Display`; the driver reads
//! the attribute's text (tool attributes are not parsed by rustc) and the configuration with
//! [`parse`], and turns each into the effects its API tables use.
//!
//! The forms ([`FORMS`]; argument positions count `self` as 0):
//! - `sync(stream = N)`, `sync(all)`
//! - `copy(dst = N, src = N, stream = N, dir = infer|htod|dtoh|dtod)`
//! - `launch(stream = N, reads = [N, ..], writes = [N, ..])`, optionally with
//!   `kernel = "name", fenced = true|false` (typed kernels)
//! - `returns(pinned|device|managed|pageable)`

use std::fmt;

use cuda_lint_machine::MemKind;

/// A parameter position (`self` is 0).
pub type Arg = u8;

/// The forms, as error messages list them.
pub const FORMS: &str = "`sync(stream = N)`, `sync(all)`, `copy(dst = N, src = N, stream = N, dir = \
                         infer|htod|dtoh|dtod)`, `launch(stream = N, reads = [..], writes = [..])`, \
                         `returns(pinned|device|managed|pageable)`";

/// The direction a `copy` summary gives.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CopyDir {
    /// From what the two sides are.
    Infer,
    HostToDevice,
    DeviceToHost,
    DeviceToDevice,
}

impl CopyDir {
    /// As written in a summary: `infer`, `htod`, `dtoh`, `dtod`.
    pub fn keyword(self) -> &'static str {
        match self {
            CopyDir::Infer => "infer",
            CopyDir::HostToDevice => "htod",
            CopyDir::DeviceToHost => "dtoh",
            CopyDir::DeviceToDevice => "dtod",
        }
    }

    pub fn from_keyword(word: &str) -> Option<CopyDir> {
        [
            CopyDir::Infer,
            CopyDir::HostToDevice,
            CopyDir::DeviceToHost,
            CopyDir::DeviceToDevice,
        ]
        .into_iter()
        .find(|d| d.keyword() == word)
    }
}

/// The memory kinds `returns(..)` names, as written.
pub const RETURNS: [(&str, MemKind); 4] = [
    ("pinned", MemKind::Pinned),
    ("device", MemKind::Device),
    ("managed", MemKind::Managed),
    ("pageable", MemKind::Pageable),
];

/// One summarised effect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Summary {
    SyncStream(Arg),
    SyncAll,
    Copy {
        dst: Arg,
        src: Arg,
        stream: Arg,
        dir: CopyDir,
    },
    Launch {
        stream: Arg,
        reads: Vec<Arg>,
        writes: Vec<Arg>,
        kernel: Option<String>,
        fenced: Option<bool>,
    },
    Returns(MemKind),
}

/// The text inside `effect(..)`, as [`parse`] reads it back.
impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |args: &[Arg]| args.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(", ");
        match self {
            Summary::SyncStream(a) => write!(f, "sync(stream = {a})"),
            Summary::SyncAll => write!(f, "sync(all)"),
            Summary::Copy { dst, src, stream, dir } => write!(
                f,
                "copy(dst = {dst}, src = {src}, stream = {stream}, dir = {})",
                dir.keyword()
            ),
            Summary::Launch {
                stream,
                reads,
                writes,
                kernel,
                fenced,
            } => {
                write!(
                    f,
                    "launch(stream = {stream}, reads = [{}], writes = [{}]",
                    list(reads),
                    list(writes)
                )?;
                if let Some(kernel) = kernel {
                    write!(f, ", kernel = {kernel:?}")?;
                }
                if let Some(fenced) = fenced {
                    write!(f, ", fenced = {fenced}")?;
                }
                write!(f, ")")
            }
            Summary::Returns(kind) => {
                let word = RETURNS.iter().find(|(_, k)| k == kind).map_or("pageable", |(w, _)| w);
                write!(f, "returns({word})")
            }
        }
    }
}

/// Parses the text inside `effect(..)`: `sync(stream = 0)`, `launch(..)`...
pub fn parse(text: &str) -> Result<Summary, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
    };
    let kind = p.ident()?;
    p.expect(b'(')?;
    let summary = match kind.as_str() {
        "sync" => {
            let first = p.ident()?;
            match first.as_str() {
                "all" => Summary::SyncAll,
                "stream" => {
                    p.expect(b'=')?;
                    Summary::SyncStream(p.arg()?)
                }
                other => return Err(format!("`sync` takes `stream = N` or `all`, not `{other}`")),
            }
        }
        "copy" => {
            let (mut dst, mut src, mut stream, mut dir) = (None, None, None, CopyDir::Infer);
            p.pairs(|key, p| {
                match key {
                    "dst" => dst = Some(p.arg()?),
                    "src" => src = Some(p.arg()?),
                    "stream" => stream = Some(p.arg()?),
                    "dir" => {
                        let word = p.ident()?;
                        dir = CopyDir::from_keyword(&word).ok_or_else(|| format!("unknown copy direction `{word}`"))?;
                    }
                    other => return Err(format!("unknown `copy` key `{other}`")),
                }
                Ok(())
            })?;
            Summary::Copy {
                dst: dst.ok_or("`copy` needs `dst`")?,
                src: src.ok_or("`copy` needs `src`")?,
                stream: stream.ok_or("`copy` needs `stream`")?,
                dir,
            }
        }
        "launch" => {
            let (mut stream, mut reads, mut writes, mut kernel, mut fenced) =
                (None, Vec::new(), Vec::new(), None, None);
            p.pairs(|key, p| {
                match key {
                    "stream" => stream = Some(p.arg()?),
                    "reads" => reads = p.list()?,
                    "writes" => writes = p.list()?,
                    "kernel" => kernel = Some(p.string()?),
                    "fenced" => {
                        fenced = Some(match p.ident()?.as_str() {
                            "true" => true,
                            "false" => false,
                            other => return Err(format!("`fenced` is `true` or `false`, not `{other}`")),
                        })
                    }
                    other => return Err(format!("unknown `launch` key `{other}`")),
                }
                Ok(())
            })?;
            Summary::Launch {
                stream: stream.ok_or("`launch` needs `stream`")?,
                reads,
                writes,
                kernel,
                fenced,
            }
        }
        "returns" => {
            let word = p.ident()?;
            match RETURNS.iter().find(|(w, _)| *w == word) {
                Some((_, kind)) => Summary::Returns(*kind),
                None => return Err(format!("unknown memory kind `{word}`")),
            }
        }
        other => return Err(format!("unknown effect `{other}`")),
    };
    p.expect(b')')?;
    p.skip_ws();
    if p.i != p.s.len() {
        return Err(format!("unexpected text after the effect: `{}`", &text[p.i..]));
    }
    Ok(summary)
}

struct Parser<'s> {
    s: &'s [u8],
    i: usize,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while self.s.get(self.i).is_some_and(u8::is_ascii_whitespace) {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.s.get(self.i).copied()
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("expected `{}` at byte {}", c as char, self.i))
        }
    }

    fn ident(&mut self) -> Result<String, String> {
        self.skip_ws();
        let start = self.i;
        while self
            .s
            .get(self.i)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            self.i += 1;
        }
        if start == self.i {
            return Err(format!("expected a name at byte {start}"));
        }
        Ok(String::from_utf8_lossy(&self.s[start..self.i]).into_owned())
    }

    fn arg(&mut self) -> Result<Arg, String> {
        let digits = self.ident()?;
        let digits = digits.trim_end_matches("usize").trim_end_matches("u8");
        digits
            .parse::<Arg>()
            .ok()
            .filter(|&a| a != Arg::MAX)
            .ok_or_else(|| format!("`{digits}` is not a parameter position"))
    }

    fn list(&mut self) -> Result<Vec<Arg>, String> {
        self.expect(b'[')?;
        let mut out = Vec::new();
        if self.peek() == Some(b']') {
            self.i += 1;
            return Ok(out);
        }
        loop {
            out.push(self.arg()?);
            match self.peek() {
                Some(b',') => {
                    self.i += 1;
                    if self.peek() == Some(b']') {
                        self.i += 1;
                        return Ok(out);
                    }
                }
                Some(b']') => {
                    self.i += 1;
                    return Ok(out);
                }
                _ => return Err(format!("expected `,` or `]` at byte {}", self.i)),
            }
        }
    }

    fn string(&mut self) -> Result<String, String> {
        self.expect(b'"')?;
        let start = self.i;
        while self.s.get(self.i).is_some_and(|&c| c != b'"') {
            self.i += 1;
        }
        let text = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
        self.expect(b'"')?;
        Ok(text)
    }

    /// `key = value, ...` up to the closing parenthesis (not consumed); `value` reads each
    /// value, given its key.
    fn pairs(&mut self, mut value: impl FnMut(&str, &mut Self) -> Result<(), String>) -> Result<(), String> {
        let mut first = true;
        loop {
            if !first {
                match self.peek() {
                    Some(b',') => self.i += 1,
                    Some(b')') => return Ok(()),
                    _ => return Err(format!("expected `,` or `)` at byte {}", self.i)),
                }
            }
            first = false;
            if self.peek() == Some(b')') {
                return Ok(());
            }
            let key = self.ident()?;
            self.expect(b'=')?;
            value(&key, self)?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_form_the_macros_emit() {
        assert_eq!(parse("sync(stream = 0)"), Ok(Summary::SyncStream(0)));
        assert_eq!(parse("sync(all)"), Ok(Summary::SyncAll));
        assert_eq!(
            parse("copy(dst = 1, src = 2, stream = 0, dir = htod)"),
            Ok(Summary::Copy {
                dst: 1,
                src: 2,
                stream: 0,
                dir: CopyDir::HostToDevice
            })
        );
        assert_eq!(
            parse("launch(stream = 1, reads = [3, 4], writes = [3], kernel = \"scale\", fenced = false)"),
            Ok(Summary::Launch {
                stream: 1,
                reads: vec![3, 4],
                writes: vec![3],
                kernel: Some("scale".into()),
                fenced: Some(false)
            })
        );
        assert_eq!(
            parse("launch(stream = 0, reads = [], writes = [])"),
            Ok(Summary::Launch {
                stream: 0,
                reads: vec![],
                writes: vec![],
                kernel: None,
                fenced: None
            })
        );
        assert_eq!(parse("returns(pinned)"), Ok(Summary::Returns(MemKind::Pinned)));
    }

    #[test]
    fn display_is_read_back_as_the_same_summary() {
        let all = [
            Summary::SyncStream(2),
            Summary::SyncAll,
            Summary::Copy {
                dst: 1,
                src: 2,
                stream: 0,
                dir: CopyDir::DeviceToHost,
            },
            Summary::Copy {
                dst: 0,
                src: 3,
                stream: 1,
                dir: CopyDir::Infer,
            },
            Summary::Launch {
                stream: 1,
                reads: vec![2, 3],
                writes: vec![3],
                kernel: Some("scale".into()),
                fenced: Some(true),
            },
            Summary::Launch {
                stream: 0,
                reads: vec![],
                writes: vec![],
                kernel: None,
                fenced: None,
            },
            Summary::Returns(MemKind::Pinned),
            Summary::Returns(MemKind::Device),
            Summary::Returns(MemKind::Managed),
            Summary::Returns(MemKind::Pageable),
        ];
        for summary in all {
            let text = summary.to_string();
            assert_eq!(parse(&text), Ok(summary), "{text}");
            // As rustc prints the attribute's tokens back: spaces around every token.
            let spaced = text.replace('(', " ( ").replace(',', " , ").replace('[', " [ ");
            assert!(parse(&spaced).is_ok(), "{spaced}");
        }
    }

    #[test]
    fn rejects_what_it_does_not_know() {
        for bad in [
            "",
            "sync",
            "sync(stream)",
            "sync(stream = x)",
            "copy(dst = 1, src = 2)",
            "copy(dst = 1, src = 2, stream = 0, dir = up)",
            "launch(reads = [1])",
            "launch(stream = 1, reads = [1,, 2])",
            "launch(stream = 1, fenced = maybe)",
            "returns(shared)",
            "teleport(stream = 0)",
            "sync(all) trailing",
            "launch(stream = 1, kernel = \"unterminated)",
            "sync(stream = 255)",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} parsed");
        }
    }
}
