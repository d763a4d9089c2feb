//! `compile_commands.json` (`cuda-lint check -p build/`, as clang-tidy and clangd read it): the
//! files of the build and each one's configuration: `-D`/`-U` (the arms of `#if` it compiles)
//! and `-I` (where its `#include "..."` headers are), from `arguments` or `command`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::config::Defines;

/// What the build says of one file.
#[derive(Clone, Debug, Default)]
pub struct FileFlags {
    pub defines: Defines,
    pub include_dirs: Vec<PathBuf>,
}

/// The files of a compilation database, in its order, and each one's flags (by the file's
/// canonical path).
#[derive(Clone, Debug, Default)]
pub struct Database {
    pub files: Vec<PathBuf>,
    pub flags: HashMap<PathBuf, FileFlags>,
}

impl Database {
    /// Reads `DIR/compile_commands.json` (or the file given). Errors say what is wrong.
    pub fn read(at: &Path) -> Result<Database, String> {
        let path = if at.is_dir() {
            at.join("compile_commands.json")
        } else {
            at.to_path_buf()
        };
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        let json: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| format!("{}: not a compilation database: {e}", path.display()))?;
        let entries = json
            .as_array()
            .ok_or_else(|| format!("{}: not a compilation database: not a JSON array", path.display()))?;
        let mut db = Database::default();
        for (i, e) in entries.iter().enumerate() {
            let bad = |what: &str| format!("{}: entry {i}: {what}", path.display());
            let dir = PathBuf::from(
                e.get("directory")
                    .and_then(|d| d.as_str())
                    .ok_or_else(|| bad("no `directory`"))?,
            );
            let file = e.get("file").and_then(|f| f.as_str()).ok_or_else(|| bad("no `file`"))?;
            let file = dir.join(file);
            let args: Vec<String> = match (e.get("arguments"), e.get("command")) {
                (Some(a), _) => a
                    .as_array()
                    .ok_or_else(|| bad("`arguments` is not an array"))?
                    .iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect(),
                (None, Some(c)) => split_command(c.as_str().ok_or_else(|| bad("`command` is not a string"))?),
                (None, None) => return Err(bad("neither `arguments` nor `command`")),
            };
            let flags = flags_of(&args, &dir);
            let key = file.canonicalize().unwrap_or_else(|_| file.clone());
            if !db.flags.contains_key(&key) {
                db.files.push(file);
            }
            db.flags.insert(key, flags);
        }
        Ok(db)
    }

    /// The flags the database gives `file`, if it lists it.
    pub fn flags_for(&self, file: &Path) -> Option<&FileFlags> {
        let key = file.canonicalize().unwrap_or_else(|_| file.to_path_buf());
        self.flags.get(&key)
    }
}

/// `-DNAME`, `-D NAME=V`, `-UNAME`, `-Idir`, `-I dir`, `-isystem dir`, `--include-path dir`
/// (nvcc), relative folders taken from the entry's directory. Other flags are not read.
fn flags_of(args: &[String], dir: &Path) -> FileFlags {
    let mut out = FileFlags::default();
    let mut it = args.iter().skip(1).peekable();
    while let Some(a) = it.next() {
        let value = |flag: &str, it: &mut std::iter::Peekable<std::iter::Skip<std::slice::Iter<'_, String>>>| match a
            .strip_prefix(flag)
        {
            Some("") => it.next().cloned(),
            Some(v) => Some(v.trim_start_matches('=').to_string()),
            None => None,
        };
        if let Some(v) = value("-D", &mut it).or_else(|| value("--define-macro", &mut it)) {
            let _ = out.defines.define(&v);
        } else if let Some(v) = value("-U", &mut it).or_else(|| value("--undefine-macro", &mut it)) {
            let _ = out.defines.undefine(&v);
        } else if let Some(v) = value("-I", &mut it)
            .or_else(|| value("-isystem", &mut it))
            .or_else(|| value("--include-path", &mut it))
        {
            out.include_dirs.push(dir.join(v));
        }
    }
    out
}

/// A shell command split into words (quotes and backslashes as a POSIX shell reads them).
fn split_command(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => {
                if let Some(n) = chars.next() {
                    word.push(n);
                }
            }
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                in_word = true;
            }
            (None, '\\') => {
                if let Some(n) = chars.next() {
                    word.push(n);
                    in_word = true;
                }
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        out.push(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_defines_and_include_folders_from_arguments_and_commands() {
        let dir = std::env::temp_dir().join(format!("cuda-lint-ccdb-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let json = format!(
            r#"[{{"directory": "{d}", "file": "a.cu", "arguments": ["nvcc", "-DCUSAN_SYNC", "-D", "DEPTH=4", "-Iinc", "-c", "a.cu"]}},
                {{"directory": "{d}", "file": "b.cu", "command": "nvcc -U FOO -I \"my inc\" --include-path=x -c b.cu"}}]"#,
            d = dir.display()
        );
        std::fs::write(dir.join("compile_commands.json"), json).unwrap();
        let db = Database::read(&dir).unwrap();
        assert_eq!(db.files, vec![dir.join("a.cu"), dir.join("b.cu")]);
        let a = db.flags_for(&dir.join("a.cu")).unwrap();
        assert_eq!(
            a.defines.defined,
            vec![("CUSAN_SYNC".to_string(), Some(1)), ("DEPTH".to_string(), Some(4))]
        );
        assert_eq!(a.include_dirs, vec![dir.join("inc")]);
        let b = db.flags_for(&dir.join("b.cu")).unwrap();
        assert_eq!(b.defines.undefined, vec!["FOO".to_string()]);
        assert_eq!(b.include_dirs, vec![dir.join("my inc"), dir.join("x")]);
        assert!(
            Database::read(&dir.join("nothing"))
                .unwrap_err()
                .contains("cannot read")
        );
        std::fs::write(dir.join("bad.json"), "{").unwrap();
        assert!(
            Database::read(&dir.join("bad.json"))
                .unwrap_err()
                .contains("not a compilation database")
        );
    }
}
