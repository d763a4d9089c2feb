//! The translation unit a file is checked as: the file with the headers the project includes
//! (`#include "x.h"`, found beside the including file or under `-I` folders) spliced in where
//! they are included, each once (as include guards and `#pragma once` make it), so that the
//! classes, helpers, globals and macros of a header are those of the file. Offsets in the
//! unit map back to the file and byte they were written at ([`Unit::site`]): findings and labels
//! point into the header where that is where the code is.
//!
//! `#include <...>` (the system's and the toolkit's headers) is not followed: the analysis
//! knows the CUDA APIs from its own table ([`crate::api`]).

use std::path::{Path, PathBuf};

use crate::interp::Site;

/// How deep includes are followed.
const MAX_INCLUDE_DEPTH: u32 = 16;
/// How much text a unit may gather from headers (bytes): past it, further headers are not
/// spliced in (the file is still checked).
const MAX_UNIT_BYTES: usize = 16 << 20;

/// A piece of a unit's text and where it was written.
#[derive(Clone, Copy, Debug)]
struct Piece {
    /// Where it starts in the unit.
    at: usize,
    len: usize,
    /// The file (its id in the report) and where the piece starts in it.
    file: u32,
    from: usize,
    /// An expansion of a macro: every byte of it maps to the use it replaced (`from` and this
    /// many bytes).
    replaced: Option<usize>,
}

/// A file with the headers it includes spliced in.
pub struct Unit {
    pub text: String,
    pieces: Vec<Piece>,
    /// The file checked.
    pub file: u32,
    /// Headers named by `#include "..."` that were not found.
    pub missing: Vec<String>,
    /// The file's own text.
    own: String,
}

/// Reads a header: its id in the report and its text (`None`: it cannot be read).
pub type Loader<'a> = dyn FnMut(&Path) -> Option<(u32, std::rc::Rc<str>)> + 'a;

impl Unit {
    /// The unit of `file` (id `file`, text `src`, in folder `dir`), headers searched beside
    /// each including file, then in `include_dirs`.
    pub fn build(file: u32, src: &str, dir: Option<&Path>, include_dirs: &[PathBuf], load: &mut Loader<'_>) -> Unit {
        let mut unit = Unit {
            text: String::with_capacity(src.len()),
            pieces: Vec::new(),
            file,
            missing: Vec::new(),
            own: src.to_string(),
        };
        let mut seen: Vec<PathBuf> = Vec::new();
        unit.splice(file, src, dir, include_dirs, load, &mut seen, 0);
        unit
    }

    #[allow(clippy::too_many_arguments)]
    fn splice(
        &mut self,
        file: u32,
        src: &str,
        dir: Option<&Path>,
        include_dirs: &[PathBuf],
        load: &mut Loader<'_>,
        seen: &mut Vec<PathBuf>,
        depth: u32,
    ) {
        let mut copied = 0;
        for (start, end, name) in local_includes(src) {
            let found = (depth < MAX_INCLUDE_DEPTH && self.text.len() < MAX_UNIT_BYTES)
                .then(|| {
                    dir.into_iter()
                        .map(Path::to_path_buf)
                        .chain(include_dirs.iter().cloned())
                        .map(|d| d.join(name))
                        .find(|p| p.is_file())
                })
                .flatten();
            let Some(path) = found else {
                if depth < MAX_INCLUDE_DEPTH && !self.missing.iter().any(|m| m == name) {
                    self.missing.push(name.to_string());
                }
                continue;
            };
            let key = path.canonicalize().unwrap_or_else(|_| path.clone());
            self.push(file, src, copied, start);
            copied = end;
            // Each header once per unit, as its guard makes it.
            if seen.contains(&key) {
                continue;
            }
            seen.push(key);
            let Some((id, text)) = load(&path) else {
                self.missing.push(name.to_string());
                continue;
            };
            let parent = path.parent().map(Path::to_path_buf);
            self.splice(id, &text, parent.as_deref(), include_dirs, load, seen, depth + 1);
            // The header's last line ends before the including file goes on.
            if !text.ends_with('\n') {
                self.push_synthetic("\n", file, start);
            }
        }
        self.push(file, src, copied, src.len());
    }

    fn push(&mut self, file: u32, src: &str, from: usize, to: usize) {
        if to <= from {
            return;
        }
        self.pieces.push(Piece {
            at: self.text.len(),
            len: to - from,
            file,
            from,
            replaced: None,
        });
        self.text.push_str(&src[from..to]);
    }

    /// Text that was not written anywhere, mapped to `at` in `file`.
    fn push_synthetic(&mut self, text: &str, file: u32, at: usize) {
        self.pieces.push(Piece {
            at: self.text.len(),
            len: text.len(),
            file,
            from: at,
            replaced: None,
        });
        self.text.push_str(text);
    }

    fn piece(&self, at: usize) -> Option<&Piece> {
        let i = self.pieces.partition_point(|p| p.at + p.len <= at);
        self.pieces.get(i).or(self.pieces.last())
    }

    /// Where a site of the unit was written: its file and bytes there (a site that runs past
    /// its piece ends with the piece).
    pub fn site(&self, s: Site) -> Site {
        let Some(p) = self.piece(s.start as usize) else {
            return s;
        };
        if let Some(len) = p.replaced {
            return Site {
                file: p.file,
                start: p.from as u32,
                end: (p.from + len) as u32,
            };
        }
        let start = p.from + (s.start as usize).saturating_sub(p.at).min(p.len);
        let end = p.from + (s.end as usize).saturating_sub(p.at).min(p.len);
        Site {
            file: p.file,
            start: start as u32,
            end: end.max(start) as u32,
        }
    }

    /// Replaces bytes `start..end` of the text (inside one piece) with `text`, which maps back
    /// to what it replaced: a macro's use by its expansion.
    pub fn replace(&mut self, start: usize, end: usize, text: &str) {
        let Some(i) = self.pieces.iter().position(|p| p.at <= start && end <= p.at + p.len) else {
            return;
        };
        let p = self.pieces[i];
        if p.replaced.is_some() {
            return;
        }
        let before = Piece { len: start - p.at, ..p };
        let expansion = Piece {
            at: start,
            len: text.len(),
            file: p.file,
            from: p.from + (start - p.at),
            replaced: Some(end - start),
        };
        let after = Piece {
            at: start + text.len(),
            len: p.at + p.len - end,
            file: p.file,
            from: p.from + (end - p.at),
            replaced: None,
        };
        let delta = text.len() as isize - (end - start) as isize;
        for q in &mut self.pieces[i + 1..] {
            q.at = (q.at as isize + delta) as usize;
        }
        let new: Vec<Piece> = [before, expansion, after].into_iter().filter(|q| q.len > 0).collect();
        self.pieces.splice(i..=i, new);
        self.text.replace_range(start..end, text);
    }

    /// Expands the uses of the function-like macros the text defines whose body calls a
    /// function `calls_effect` says has effects ([`crate::macros`]).
    pub fn expand_macros(&mut self, calls_effect: &dyn Fn(&str) -> bool) {
        let macros = crate::macros::effectful_macros(&self.text, calls_effect);
        for (start, end, text) in crate::macros::expansions(&self.text, &macros) {
            if self.text.len() > MAX_UNIT_BYTES * 2 {
                break;
            }
            self.replace(start, end, &text);
        }
    }

    /// The unit's ranges that are the file checked itself.
    pub fn own_ranges(&self) -> Vec<(usize, usize)> {
        self.pieces
            .iter()
            .filter(|p| p.file == self.file)
            .map(|p| (p.at, p.at + p.len))
            .collect()
    }

    /// The text of the file checked, as written (without the headers spliced in).
    pub fn own_text(&self) -> &str {
        &self.own
    }

    /// Whether a unit offset lies in the file checked itself (not in a header it includes).
    pub fn in_own_file(&self, at: usize) -> bool {
        self.piece(at).is_some_and(|p| p.file == self.file)
    }

    /// The file and byte a unit offset was written at.
    pub fn position(&self, at: usize) -> (u32, usize) {
        let s = self.site(Site {
            file: self.file,
            start: at as u32,
            end: at as u32,
        });
        (s.file, s.start as usize)
    }
}

/// The `#include "name"` directives of a text: the directive's bytes (to the end of its line,
/// not the newline) and the name.
fn local_includes(src: &str) -> Vec<(usize, usize, &str)> {
    let mut out = Vec::new();
    let mut line_start = 0;
    for line in src.split_inclusive('\n') {
        let start = line_start;
        line_start += line.len();
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix('#') else { continue };
        let Some(rest) = rest.trim_start().strip_prefix("include") else {
            continue;
        };
        let rest = rest.trim_start();
        let Some(rest) = rest.strip_prefix('"') else { continue };
        let Some(close) = rest.find('"') else { continue };
        let name = &rest[..close];
        let directive_start = start + (line.len() - t.len());
        let end = start + line.trim_end_matches(['\n', '\r']).len();
        out.push((directive_start, end, name));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    #[test]
    fn splices_headers_once_and_maps_sites_back() {
        let dir = std::env::temp_dir().join(format!("cuda-lint-unit-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("inc")).unwrap();
        std::fs::write(dir.join("a.h"), "#include \"inc/b.h\"\nint a;\n").unwrap();
        std::fs::write(dir.join("inc/b.h"), "int b;").unwrap();
        let main = "#include \"a.h\"\n#include \"a.h\"\n#include <cuda.h>\nint m;\n";
        let mut loaded = Vec::new();
        let mut load = |p: &Path| -> Option<(u32, Rc<str>)> {
            let text: Rc<str> = std::fs::read_to_string(p).ok()?.into();
            loaded.push(p.to_path_buf());
            Some((loaded.len() as u32, text))
        };
        let unit = Unit::build(0, main, Some(&dir), &[], &mut load);
        assert_eq!(unit.text, "int b;\n\nint a;\n\n\n#include <cuda.h>\nint m;\n");
        assert_eq!(loaded.len(), 2, "each header once");
        // `int a;` is in a.h (file 1) at byte 19; `int m;` in the file itself.
        let a = unit.text.find("int a").unwrap();
        let s = unit.site(Site {
            file: 0,
            start: a as u32,
            end: a as u32 + 5,
        });
        assert_eq!((s.file, s.start, s.end), (1, 19, 24));
        let b = unit.site(Site {
            file: 0,
            start: 0,
            end: 5,
        });
        assert_eq!((b.file, b.start, b.end), (2, 0, 5));
        let m = unit.text.find("int m").unwrap();
        assert!(unit.in_own_file(m) && !unit.in_own_file(a));
        assert_eq!(
            unit.site(Site {
                file: 0,
                start: m as u32,
                end: m as u32 + 5
            })
            .start as usize,
            main.find("int m").unwrap()
        );
        assert!(unit.missing.is_empty());
    }
}
