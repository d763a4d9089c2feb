//! Baselines: the findings a project has today, recorded once (`cuda-lint check
//! --write-baseline FILE`) and left out of later reports (`--baseline FILE`), so that a project
//! can turn cuda-lint on in CI before it has fixed every old finding, and still be told of each
//! new one.
//!
//! A finding is recorded by a [`Key`] that survives edits: its lint, its file (relative to the
//! baseline's folder, see [`root_of`]), the function it is in, and the names its message
//! quotes (`h_buf`, `cuMemSetAccess`); never its line or column. A key may stand for several
//! findings (two reads of `h` in one function): the baseline counts them, and a finding beyond
//! the count is new. The file is JSON, one entry a line, sorted, so that it diffs well:
//!
//! ```json
//! {
//!   "version": 1,
//!   "about": "...",
//!   "findings": [
//!     {"file":"src/pipeline.cu","function":"Pipeline::run","lint":"cuda_lint::missing_sync","names":["h_out"],"count":2}
//!   ]
//! }
//! ```
//!
//! Both front ends can use it: the key needs the lint's name, a path, the enclosing function's
//! name as the front end spells it, and the message. rustc's diagnostics do not name the
//! function, so `cuda-lint-driver` writes where each function of a crate it analyses lies
//! ([`FunctionSpan`], a file beside the crate's metadata: [`functions_file_of`]), and `cargo
//! cuda-lint` finds a finding's function there ([`enclosing_function`]).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The version of the file format this code reads and writes.
pub const VERSION: u64 = 1;

/// What identifies a finding across edits. Ordered by file first, so that a baseline reads as
/// the files do.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key {
    /// Relative to the baseline's folder, with `/` (and `..` for a file beside it, not under
    /// it); absolute only when the two have no common ancestor.
    pub file: String,
    /// The function the finding is in, qualified as its front end spells it (`Pipeline::run`);
    /// `None` outside any function.
    pub function: Option<String>,
    /// `cuda_lint::NAME`.
    pub lint: String,
    /// The names the message quotes between backticks, in order (see [`names_in`]).
    pub names: Vec<String>,
}

impl Key {
    /// The key of a finding of `lint` (with or without `cuda_lint::`) in `file` (already
    /// relative: see [`key_path`]), in `function`, with `message`.
    pub fn new(lint: &str, file: &str, function: Option<&str>, message: &str) -> Key {
        Key {
            file: file.to_string(),
            function: function.map(str::to_string),
            lint: format!("cuda_lint::{}", lint.trim_start_matches("cuda_lint::")),
            names: names_in(message),
        }
    }
}

/// What a message quotes between backticks, in order: the variables, kernels and API functions
/// a finding is about (`host read of `h` while ...` gives `h`). The rest of the message is
/// left out, so that rewording it ("on some paths" coming or going as a branch is added
/// elsewhere) keeps the key.
pub fn names_in(message: &str) -> Vec<String> {
    message
        .split('`')
        .skip(1)
        .step_by(2)
        // An unpaired backtick at the end quotes nothing.
        .zip(message.split('`').skip(2).step_by(2))
        .map(|(quoted, _)| quoted.to_string())
        .collect()
}

/// The folder the files of a baseline at `file` (relative to `base`, the working directory,
/// or absolute) are relative to: the folder it is in, its links resolved. Keep the baseline
/// at the project's root, and its keys are the files' paths in the project, whatever
/// directory cuda-lint runs in and wherever the project is checked out.
pub fn root_of(file: &Path, base: &Path) -> PathBuf {
    let file = base.join(file);
    let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
    std::fs::canonicalize(&dir).unwrap_or_else(|_| normalize(&dir))
}

/// The path a key gives `file_name` (relative to `base`, or absolute): relative to `root`
/// (from [`root_of`]) with `/`, going up with `..` where the file is not under it; absolute
/// when they share nothing (two Windows drives). Links are resolved as [`root_of`] resolves
/// them, so that `/tmp` and `/private/tmp` agree.
pub fn key_path(file_name: &str, base: &Path, root: &Path) -> String {
    let path = base.join(file_name);
    let path = std::fs::canonicalize(&path).unwrap_or_else(|_| normalize(&path));
    let root = normalize(root);
    let (mut p, mut r) = (path.components().peekable(), root.components().peekable());
    // The components both start with, and how many of them are folders.
    let mut shared_folders = 0;
    while let (Some(a), Some(b)) = (p.peek(), r.peek()) {
        if a != b {
            break;
        }
        shared_folders += usize::from(matches!(a, Component::Normal(_)));
        p.next();
        r.next();
    }
    let root_folders = root.components().filter(|c| matches!(c, Component::Normal(_))).count();
    if path.is_absolute() && shared_folders == 0 && root_folders > 0 {
        // Nothing in common but the file system's root: a relative path would depend on
        // where both are.
        return path.to_string_lossy().replace('\\', "/");
    }
    let up = r
        .filter(|c| matches!(c, Component::Normal(_)))
        .map(|_| "..".to_string());
    let down = p.map(|c| c.as_os_str().to_string_lossy().into_owned());
    let parts: Vec<String> = up.chain(down).collect();
    if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    }
}

/// Removes `.` and resolves `..` without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// The findings of a baseline: how many there are of each key.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Baseline {
    counts: BTreeMap<Key, usize>,
}

/// What applying a baseline to a run's findings gave.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    /// For each finding, in the order given: whether it is new (to be reported).
    pub new: Vec<bool>,
    /// How many findings the baseline held and were left out.
    pub baselined: usize,
    /// How many findings the baseline holds that the run did not find (fixed, or changed
    /// beyond recognition): `--write-baseline` again drops them.
    pub unmatched: usize,
}

impl Baseline {
    /// The baseline that holds `keys` (a key given twice counts twice).
    pub fn from_keys<'a>(keys: impl IntoIterator<Item = &'a Key>) -> Baseline {
        let mut counts = BTreeMap::new();
        for key in keys {
            *counts.entry(key.clone()).or_insert(0) += 1;
        }
        Baseline { counts }
    }

    /// How many findings it holds.
    pub fn len(&self) -> usize {
        self.counts.values().sum()
    }

    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// How many findings of `key` it holds.
    pub fn count(&self, key: &Key) -> usize {
        self.counts.get(key).copied().unwrap_or(0)
    }

    /// Which of a run's findings (their keys, in the order they are reported) are new: of the
    /// findings with one key, as many as the baseline counts are left out, the first ones; the
    /// rest are new.
    pub fn apply(&self, keys: &[Key]) -> Applied {
        let mut left = self.counts.clone();
        let new: Vec<bool> = keys
            .iter()
            .map(|key| match left.get_mut(key) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    false
                }
                _ => true,
            })
            .collect();
        let baselined = new.iter().filter(|n| !**n).count();
        Applied {
            new,
            baselined,
            unmatched: left.values().sum(),
        }
    }

    /// The file's text: pretty enough to review, one finding a line, sorted.
    pub fn to_json(&self) -> String {
        let mut out = format!(
            "{{\n  \"version\": {VERSION},\n  \"about\": {},\n  \"findings\": [",
            serde_json::Value::from(ABOUT)
        );
        for (i, (key, count)) in self.counts.iter().enumerate() {
            let entry = Entry {
                file: key.file.clone(),
                function: key.function.clone(),
                lint: key.lint.clone(),
                names: key.names.clone(),
                count: *count,
            };
            out.push_str(if i == 0 { "\n    " } else { ",\n    " });
            out.push_str(&serde_json::to_string(&entry).unwrap_or_default());
        }
        out.push_str(if self.counts.is_empty() { "]\n}\n" } else { "\n  ]\n}\n" });
        out
    }

    /// Reads a baseline's text; an error says what is wrong, and where when it can.
    pub fn parse(text: &str) -> Result<Baseline, BaselineError> {
        let file: File = serde_json::from_str(text).map_err(|e| BaselineError {
            file: None,
            line: Some(e.line()).filter(|l| *l > 0),
            column: Some(e.column()).filter(|c| *c > 0),
            message: format!("not a cuda-lint baseline: {e}"),
        })?;
        let error = |message: String| BaselineError {
            file: None,
            line: None,
            column: None,
            message,
        };
        if file.version != VERSION {
            return Err(error(format!(
                "a baseline of version {}, and this cuda-lint reads version {VERSION}: write it again with --write-baseline",
                file.version
            )));
        }
        let mut counts = BTreeMap::new();
        for (i, entry) in file.findings.into_iter().enumerate() {
            if entry.count == 0 {
                return Err(error(format!("finding {} of the baseline has a count of 0", i + 1)));
            }
            if entry.lint.is_empty() || entry.file.is_empty() {
                return Err(error(format!(
                    "finding {} of the baseline has an empty `lint` or `file`",
                    i + 1
                )));
            }
            let key = Key {
                file: entry.file,
                function: entry.function,
                lint: format!("cuda_lint::{}", entry.lint.trim_start_matches("cuda_lint::")),
                names: entry.names,
            };
            *counts.entry(key).or_insert(0) += entry.count;
        }
        Ok(Baseline { counts })
    }

    /// Reads the baseline at `path`: a file that is missing, unreadable or not a baseline is
    /// an error naming it.
    pub fn read(path: &Path) -> Result<Baseline, BaselineError> {
        let text = std::fs::read_to_string(path).map_err(|e| BaselineError {
            file: Some(path.to_path_buf()),
            line: None,
            column: None,
            message: format!("cannot read the baseline: {e}"),
        })?;
        Baseline::parse(&text).map_err(|e| BaselineError {
            file: Some(path.to_path_buf()),
            ..e
        })
    }

    /// Writes the baseline to `path`.
    pub fn write(&self, path: &Path) -> Result<(), BaselineError> {
        std::fs::write(path, self.to_json()).map_err(|e| BaselineError {
            file: Some(path.to_path_buf()),
            line: None,
            column: None,
            message: format!("cannot write the baseline: {e}"),
        })
    }
}

/// Where a function's text lies in a source file: what `cuda-lint-driver` writes, one a line,
/// for each crate it analyses, so that `cargo cuda-lint` can tell the function a finding is in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionSpan {
    /// The file as rustc's diagnostics name it (`file_name` of a span in its JSON).
    pub file: String,
    /// Byte offsets in the file, as rustc's JSON spans count them (`byte_start`); the end is
    /// exclusive.
    pub start: u32,
    pub end: u32,
    /// The function's path in its crate, as rustc prints it (`Pipeline::run`).
    pub function: String,
}

/// The file of [`FunctionSpan`]s the driver writes for a crate whose metadata is `rmeta`
/// (`deps/libNAME-HASH.rmeta`, one of a `compiler-artifact`'s `filenames`): beside it,
/// `deps/NAME-HASH.cuda-lint-functions.jsonl`. It stays there with the metadata, so that a
/// crate cargo does not check again keeps its table.
pub fn functions_file_of(rmeta: &Path) -> Option<PathBuf> {
    let name = rmeta.file_name()?.to_str()?;
    let stem = name.strip_suffix(".rmeta")?;
    let stem = stem.strip_prefix("lib").unwrap_or(stem);
    Some(rmeta.with_file_name(functions_file_name(stem)))
}

/// The environment variable that names a file to which the driver appends the path of each
/// [`FunctionSpan`] file it writes, one a line: a crate that fails has no `compiler-artifact`
/// message to find its table by. Not tracked by cargo (it changes nothing the driver finds).
pub const FUNCTIONS_LOG_VAR: &str = "CUDA_LINT_FUNCTIONS_LOG";

/// The name of the [`FunctionSpan`] file of the crate whose output files are named
/// `STEM.*` (its name and `-C extra-filename`).
pub fn functions_file_name(stem: &str) -> String {
    format!("{stem}.cuda-lint-functions.jsonl")
}

/// The innermost function of `table` whose text holds byte `at` of `file` (named as rustc's
/// JSON names it).
pub fn enclosing_function<'a>(table: &'a [FunctionSpan], file: &str, at: u32) -> Option<&'a str> {
    table
        .iter()
        .filter(|f| f.file == file && f.start <= at && at < f.end)
        .min_by_key(|f| f.end - f.start)
        .map(|f| f.function.as_str())
}

/// Reads a [`FunctionSpan`] file; lines that are not one are skipped (a table is a help for
/// keys, never a reason to fail).
pub fn read_functions(path: &Path) -> Vec<FunctionSpan> {
    std::fs::read_to_string(path)
        .map(|text| text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect())
        .unwrap_or_default()
}

/// A [`FunctionSpan`] file's text.
pub fn functions_to_jsonl(table: &[FunctionSpan]) -> String {
    table
        .iter()
        .filter_map(|f| serde_json::to_string(f).ok())
        .map(|l| l + "\n")
        .collect()
}

/// What the file says of itself.
const ABOUT: &str = "Findings cuda-lint leaves out of its reports (cuda-lint check / cargo cuda-lint --baseline FILE): \
                     written by --write-baseline; a finding whose key is not here, or beyond its count, is reported.";

/// A baseline that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BaselineError {
    pub file: Option<PathBuf>,
    /// 1-based, when the JSON itself is wrong.
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

impl fmt::Display for BaselineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{}", file.display())?;
            if let Some(line) = self.line {
                write!(f, ":{line}")?;
                if let Some(column) = self.column {
                    write!(f, ":{column}")?;
                }
            }
            f.write_str(": ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for BaselineError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    version: u64,
    #[serde(default)]
    #[allow(dead_code)]
    about: Option<String>,
    findings: Vec<Entry>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    file: String,
    function: Option<String>,
    lint: String,
    #[serde(default)]
    names: Vec<String>,
    #[serde(default = "one")]
    count: usize,
}

fn one() -> usize {
    1
}
