//! cuda-lint for CUDA C++: finds the same misuses as the Rust driver, in `.cu`/`.cpp` host code,
//! through the same machine and lints (`cuda_lint_machine`). This crate is the second front end:
//! it parses with tree-sitter (no CUDA toolkit, no headers needed), walks each host function
//! ([`interp`]), reports each call of the C APIs ([`api`]) as the machine's transitions and
//! events, and renders the lints' diagnostics in rustc's style with codespan-reporting.
//!
//! Suppression in source: `// cuda-lint: allow-file(missing_sync)` anywhere in a file turns a
//! lint off in all of it.
//! Suppression in source: `// cuda-lint: allow(missing_sync)` (or `allow(all)`) on the line of
//! the finding or the line before, like clang-tidy's `NOLINT`.

pub mod api;
pub mod compile_commands;
pub mod config;
pub mod grammar_text;
pub mod interp;
pub mod macros;
pub mod unit;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use codespan_reporting::diagnostic::{Diagnostic, Label, Severity};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term;
use cuda_lint_machine::{Child, Finding, Level};
use interp::{FileAnalysis, Site};

/// The file extensions checked.
pub const EXTENSIONS: &[&str] = &["cu", "cuh", "cpp", "cc", "cxx", "c", "h", "hpp"];
/// Folders never entered.
const SKIP_DIRS: &[&str] = &[".git", ".hg", ".svn", "target", "build", "node_modules", "CMakeFiles"];

/// The source files under `paths` (files given directly are taken whatever their extension).
pub fn source_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_file() {
            files.push(p.clone());
            continue;
        }
        if !p.exists() {
            return Err(format!("{}: no such file or directory", p.display()));
        }
        let walker = walkdir::WalkDir::new(p)
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|e| {
                !(e.file_type().is_dir()
                    && e.depth() > 0
                    && e.file_name().to_str().is_some_and(|n| SKIP_DIRS.contains(&n)))
            });
        for e in walker {
            let e = e.map_err(|e| e.to_string())?;
            let ext = e.path().extension().and_then(|x| x.to_str()).unwrap_or("");
            if e.file_type().is_file() && EXTENSIONS.contains(&ext) {
                files.push(e.into_path());
            }
        }
    }
    Ok(files)
}

/// One finding, ready to print.
pub struct Reported {
    pub finding: Finding<Site>,
    pub level: Level,
    /// The function its primary span is in, qualified by the classes and namespaces around
    /// it (`Pipeline::run`, `ns::helper`), as a baseline's key takes it; `None` outside any.
    pub function: Option<String>,
}

/// How bad a [`Problem`] is for the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ProblemKind {
    /// Something asked for was not analysed (a file that could not be read, a `cuda-lint.toml`
    /// with a mistake, no source at all): the run failed, whatever it found.
    NotAnalysed,
    /// Part of a file was not analysed (what tree-sitter could not parse, code nested too
    /// deep, calls past the work budget); the rest was.
    Partly,
    /// Said for information: a file skipped on purpose (binary), a setting of `cuda-lint.toml`
    /// C++ does not use.
    Note,
}

/// Something of a run other than a finding: what was not analysed, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub kind: ProblemKind,
    /// The file (or folder, or `cuda-lint.toml`) it is about, as it was given.
    pub path: Option<PathBuf>,
    /// The 1-based line in `path`, when known.
    pub line: Option<usize>,
    /// The 1-based column, when known: then `path:line:column: ` starts the message shown.
    pub column: Option<usize>,
    pub message: String,
}

impl Problem {
    pub fn new(kind: ProblemKind, path: Option<&Path>, message: impl Into<String>) -> Problem {
        Problem {
            kind,
            path: path.map(Path::to_path_buf),
            line: None,
            column: None,
            message: message.into(),
        }
    }

    pub fn at_line(mut self, line: usize) -> Problem {
        self.line = Some(line);
        self
    }

    /// `error`, `warning` or `note`, as the problem is shown on stderr.
    pub fn severity(&self) -> &'static str {
        match self.kind {
            ProblemKind::NotAnalysed => "error",
            ProblemKind::Partly => "warning",
            ProblemKind::Note => "note",
        }
    }
}

/// `path: message` (`path:line:column: message` when the column is known), as it is shown on
/// stderr after `error: `, `warning: ` or `note: `.
impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.path, self.line, self.column) {
            (Some(path), Some(line), Some(column)) => {
                write!(f, "{}:{line}:{column}: {}", path.display(), self.message)
            }
            (Some(path), ..) => write!(f, "{}: {}", path.display(), self.message),
            (None, ..) => f.write_str(&self.message),
        }
    }
}

/// What checking files found.
pub struct Report {
    pub files: SimpleFiles<String, String>,
    pub findings: Vec<Reported>,
    /// Files that could not be read, parts that could not be parsed, files skipped.
    pub problems: Vec<Problem>,
    /// How many files were analysed (skipped and unreadable ones not counted).
    pub analysed: usize,
}

impl Report {
    /// Whether something asked for was not analysed ([`ProblemKind::NotAnalysed`]): the run
    /// failed, whatever it found.
    pub fn not_analysed(&self) -> bool {
        self.problems.iter().any(|p| p.kind == ProblemKind::NotAnalysed)
    }

    /// Whether a finding is an error (deny level): the exit status is then 1.
    /// (errors, warnings) among the findings.
    pub fn counts(&self) -> (usize, usize) {
        let errors = self.findings.iter().filter(|r| r.level == Level::Deny).count();
        (errors, self.findings.len() - errors)
    }

    pub fn has_errors(&self) -> bool {
        self.findings.iter().any(|r| r.level == Level::Deny)
    }
}

/// Each lint's level: its default, then what `cuda-lint.toml` says (`[lints]`).
#[derive(Clone, Debug, Default)]
pub struct Levels {
    set: HashMap<&'static str, Level>,
}

impl Levels {
    pub fn of(&self, lint: &cuda_lint_machine::LintMeta) -> Level {
        self.set.get(lint.name).copied().unwrap_or(lint.default_level)
    }

    /// The levels that lint flags give, in order: `-A`/`-W`/`-D`/`-F` followed by
    /// `cuda_lint::NAME` (or `cuda_lint::all`) as the next argument or in the same one
    /// (`-Dcuda_lint::missing_sync`), as a `cuda-lint.toml` and `cargo cuda-lint -- FLAGS` give
    /// them. Flags about other lints are left to rustc.
    pub fn from_flags(flags: &[String]) -> Levels {
        Levels::default().with_flags(flags)
    }

    /// These levels, then `flags` over them (see [`Levels::from_flags`]).
    pub fn with_flags(self, flags: &[String]) -> Levels {
        let mut set = self.set;
        let mut args = flags.iter();
        while let Some(flag) = args.next() {
            let (Some(letter), Some(attached)) = (flag.get(..2), flag.get(2..)) else {
                continue;
            };
            let level = match letter {
                "-A" => Level::Allow,
                "-W" => Level::Warn,
                "-D" | "-F" => Level::Deny,
                _ => continue,
            };
            let name = if attached.is_empty() {
                match args.next() {
                    Some(n) => n.as_str(),
                    None => break,
                }
            } else {
                attached
            };
            let Some(name) = name.trim().strip_prefix("cuda_lint::") else {
                continue;
            };
            // A lint, or a group of them (`perf`, `correctness`, `pedantic`, `all`).
            for lint in cuda_lint_machine::lints::lints_named(name).unwrap_or_default() {
                set.insert(lint.name, level);
            }
        }
        Levels { set }
    }
}

/// The `cuda-lint.toml` for a run over `paths`: in the current directory, or in the folder of
/// the first path or one of its parents. `Ok(None)`: there is none.
pub fn find_config(paths: &[PathBuf]) -> Option<PathBuf> {
    let name = cuda_lint_protocol::config::FILE_NAME;
    let here = std::env::current_dir().ok();
    let mut starts: Vec<PathBuf> = here.iter().cloned().collect();
    if let Some(p) = paths.first() {
        let p = if p.is_absolute() {
            p.clone()
        } else {
            here.clone().unwrap_or_default().join(p)
        };
        starts.push(if p.is_dir() {
            p
        } else {
            p.parent().map(Path::to_path_buf).unwrap_or_default()
        });
    }
    for start in starts {
        for dir in start.ancestors().take(32) {
            let f = dir.join(name);
            if f.is_file() {
                return Some(f);
            }
        }
    }
    None
}

/// What a `cuda-lint.toml` says: the lints' levels and the functions it describes.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    pub levels: Levels,
    pub functions: api::Functions,
    /// What the lints are told (`[perf]`).
    pub options: cuda_lint_machine::Options,
    /// What of the file C++ does not use, said once per run.
    pub notes: Vec<String>,
    /// The file the settings come from, for the notes.
    pub path: Option<PathBuf>,
    /// The build's configuration: `cuda-lint.toml`'s `[cpp]` table, then the command line
    /// (`--define NAME[=VALUE]`, `--undefine NAME`), as `crate::config` reads it.
    pub defines: config::Defines,
    /// Folders of the project's headers (`[cpp] include-dirs`, then `-I DIR`), searched after
    /// the including file's.
    pub include_dirs: Vec<PathBuf>,
    /// The build's compilation database (`-p DIR`): each file's own `-D`/`-U`/`-I`, before
    /// those of the command line.
    pub database: Option<compile_commands::Database>,
}

impl Settings {
    pub fn from_config(config: &cuda_lint_protocol::config::Config) -> Settings {
        let (functions, notes) = api::Functions::from_config(&config.functions);
        Settings {
            levels: Levels::from_flags(&config.lint_flags),
            functions,
            options: config.options.clone(),
            notes,
            path: None,
            defines: Self::config_defines(&config.cpp),
            include_dirs: config.cpp.include_dirs.clone(),
            database: None,
        }
    }

    /// The `[cpp]` table's build: its undefines, then its defines (checked by the protocol).
    fn config_defines(cpp: &cuda_lint_protocol::config::CppBuild) -> config::Defines {
        let mut defines = config::Defines::default();
        for u in &cpp.undefines {
            let _ = defines.undefine(u);
        }
        for d in &cpp.defines {
            let _ = defines.define(d);
        }
        defines
    }
}

/// Reads a `cuda-lint.toml`; errors name the file, line and column (the
/// [`ProblemKind::NotAnalysed`] problem of a run that cannot go on).
pub fn load_settings(path: &Path) -> Result<Settings, Problem> {
    match cuda_lint_protocol::config::load(path) {
        Ok(c) => Ok(Settings {
            path: Some(path.to_path_buf()),
            ..Settings::from_config(&c)
        }),
        Err(e) => Err(Problem {
            kind: ProblemKind::NotAnalysed,
            path: Some(e.file.clone()),
            line: Some(e.line),
            column: Some(e.column),
            message: e.message,
        }),
    }
}

/// The bytes a file is judged binary by: a NUL byte among them means binary, as git and grep
/// judge.
pub const BINARY_PROBE: usize = 8 * 1024;

/// Whether `bytes` look like a binary file rather than source text: a NUL byte in the first
/// [`BINARY_PROBE`] bytes.
pub fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(BINARY_PROBE)].contains(&0)
}

/// Checks the files with the default levels.
pub fn check_files(files: &[PathBuf]) -> Report {
    check_files_with(files, &Settings::default())
}

/// Checks the files.
pub fn check_files_with(files: &[PathBuf], settings: &Settings) -> Report {
    let levels = &settings.levels;
    let mut report = Report {
        files: SimpleFiles::new(),
        findings: Vec::new(),
        problems: settings
            .notes
            .iter()
            .map(|n| Problem::new(ProblemKind::Note, settings.path.as_deref(), n.clone()))
            .collect(),
        analysed: 0,
    };
    // Each file read once, by its canonical path: its id in `report.files` and its text.
    let mut known: HashMap<PathBuf, (u32, Rc<str>)> = HashMap::new();
    // Whether each header parses whole (see `parses_whole`).
    let mut splicable: HashMap<PathBuf, bool> = HashMap::new();
    for path in files {
        let text = match std::fs::read(path) {
            // Object files, archives, images named like sources: parsing them finds nothing and
            // can take seconds a megabyte.
            Ok(bytes) if is_binary(&bytes) => {
                report.problems.push(Problem::new(
                    ProblemKind::Note,
                    Some(path),
                    format!(
                        "skipped: a binary file (a NUL byte in its first {} KiB)",
                        BINARY_PROBE / 1024
                    ),
                ));
                continue;
            }
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => {
                report.problems.push(Problem::new(
                    ProblemKind::NotAnalysed,
                    Some(path),
                    format!("cannot read: {e}"),
                ));
                continue;
            }
        };
        // The file's own configuration from the compilation database, then the command line's.
        let own_settings;
        let settings = match settings.database.as_ref().and_then(|db| db.flags_for(path)) {
            Some(flags) => {
                let mut s = settings.clone();
                let mut defines = flags.defines.clone();
                for (name, value) in &settings.defines.defined {
                    let arg = value.map_or(name.clone(), |v| format!("{name}={v}"));
                    let _ = defines.define(&arg);
                }
                for name in &settings.defines.undefined {
                    let _ = defines.undefine(name);
                }
                s.defines = defines;
                s.include_dirs = flags
                    .include_dirs
                    .iter()
                    .chain(&settings.include_dirs)
                    .cloned()
                    .collect();
                own_settings = s;
                &own_settings
            }
            None => settings,
        };
        let key = path.canonicalize().unwrap_or_else(|_| path.clone());
        let (id, src) = match known.get(&key) {
            Some((id, text)) => (*id, text.clone()),
            None => {
                let id = report.files.add(path.display().to_string(), text.clone()) as u32;
                let text: Rc<str> = text.into();
                known.insert(key, (id, text.clone()));
                (id, text)
            }
        };
        // The file with the headers it includes spliced in, each registered once.
        let unit = {
            let files = &mut report.files;
            let known = &mut known;
            let splicable = &mut splicable;
            let mut load = |p: &Path| -> Option<(u32, Rc<str>)> {
                let key = p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
                let (id, text) = match known.get(&key) {
                    Some(x) => x.clone(),
                    None => {
                        let bytes = std::fs::read(p).ok().filter(|b| !is_binary(b))?;
                        let text = String::from_utf8_lossy(&bytes).into_owned();
                        let id = files.add(p.display().to_string(), text.clone()) as u32;
                        let text: Rc<str> = text.into();
                        known.insert(key.clone(), (id, text.clone()));
                        (id, text)
                    }
                };
                // A header the grammar cannot read whole is not spliced in: its broken parts
                // would take the including file's code with them.
                let ok = *splicable.entry(key).or_insert_with(|| parses_whole(&text));
                ok.then_some((id, text))
            };
            let mut unit = unit::Unit::build(id, &src, path.parent(), &settings.include_dirs, &mut load);
            unit.expand_macros(&has_effects);
            unit
        };
        let (found, functions, problems) = analyse_source(&unit, settings, path.parent());
        report.analysed += 1;
        report.problems.extend(problems.into_iter().map(|p| Problem {
            path: Some(path.clone()),
            ..p
        }));
        for (f, function) in found.into_iter().zip(functions) {
            let Some(written) = known.values().find(|(i, _)| *i == f.span.file).map(|(_, t)| t.clone()) else {
                continue;
            };
            if suppressed(&written, f.span.start as usize, f.lint.name) {
                continue;
            }
            // Found again through another file that includes the same header.
            if report
                .findings
                .iter()
                .any(|r| r.finding.span == f.span && r.finding.lint.name == f.lint.name && r.finding.kind == f.kind)
            {
                continue;
            }
            let level = levels.of(f.lint);
            if level != Level::Allow {
                report.findings.push(Reported {
                    finding: f,
                    level,
                    function,
                });
            }
        }
    }
    // In the order of the files and of the source, as a compiler reports.
    report
        .findings
        .sort_by_key(|r| (r.finding.span.file, r.finding.span.start));
    report
}

/// Checks one source text; also says which lines it could not parse.
pub fn check_source(src: &str, file: u32) -> (Vec<Finding<Site>>, Option<String>) {
    check_source_with(src, file, &Settings::default())
}

/// Checks one source text with the functions a `cuda-lint.toml` describes.
pub fn check_source_with(src: &str, file: u32, settings: &Settings) -> (Vec<Finding<Site>>, Option<String>) {
    let mut unit = unit::Unit::build(file, src, None, &[], &mut |_| None);
    unit.expand_macros(&has_effects);
    let (found, _, problems) = analyse_source(&unit, settings, None);
    let texts: Vec<String> = problems.into_iter().map(|p| p.message).collect();
    (found, (!texts.is_empty()).then(|| texts.join("; ")))
}

/// Checks one source text; gives each finding's enclosing function (see
/// [`Reported::function`]) and says what of it was not analysed, how badly, from which line
/// (the problems' paths are left to the caller).
fn analyse_source(
    unit: &unit::Unit,
    settings: &Settings,
    dir: Option<&Path>,
) -> (Vec<Finding<Site>>, Vec<Option<String>>, Vec<Problem>) {
    let src = unit.text.as_str();
    let file = unit.file;
    let mut parser = tree_sitter::Parser::new();
    if parser.set_language(&tree_sitter_cuda::LANGUAGE.into()).is_err() {
        let problem = Problem::new(ProblemKind::NotAnalysed, None, "the CUDA grammar could not be loaded");
        return (Vec::new(), Vec::new(), vec![problem]);
    }
    // The same bytes, what the grammar cannot read blanked: offsets are the file's.
    let Some((text, tree)) = parse_configured(&mut parser, src, &settings.defines, dir) else {
        return (
            Vec::new(),
            Vec::new(),
            vec![Problem::new(ProblemKind::NotAnalysed, None, "could not be parsed")],
        );
    };
    let src: &str = &text;
    let root = tree.root_node();
    let mut problems = Vec::new();
    if root.has_error() {
        let mut ranges = Vec::new();
        collect_errors(root, &mut ranges);
        // Parts of the file itself (a header's are said where the header is checked).
        let own_text = unit.own_text();
        let mut lines: Vec<usize> = ranges
            .into_iter()
            .filter(|&(a, b)| unit.in_own_file(a) && unit.in_own_file(b.saturating_sub(1).max(a)))
            .map(|(a, _)| line_of(own_text, unit.position(a).1) - 1)
            .collect();
        lines.sort_unstable();
        lines.dedup();
        let shown: Vec<String> = lines.iter().take(10).map(|l| (l + 1).to_string()).collect();
        let mut problem = Problem::new(
            ProblemKind::Partly,
            None,
            format!(
                "could not parse all of it (line {}{}): those parts are skipped",
                shown.join(", "),
                if lines.len() > 10 { ", ..." } else { "" }
            ),
        );
        problem.line = lines.first().map(|l| l + 1);
        if !lines.is_empty() {
            problems.push(problem);
        }
    }
    // The default build's configuration: the arms of `#if`/`#ifdef` it leaves out.
    let excluded = configuration(root, src, &settings.defines, dir);
    let (found, too_deep, over_budget) = FileAnalysis::new(src, file)
        .with_excluded(excluded)
        .with_roots(unit.own_ranges())
        .with_functions(settings.functions.clone())
        .with_options(settings.options.clone())
        .run(root);
    let own_line = |at: usize| line_of(unit.own_text(), unit.position(at).1);
    if let Some(at) = too_deep {
        let line = own_line(at);
        problems.push(
            Problem::new(
                ProblemKind::Partly,
                None,
                format!(
                    "code nested more than {} deep (from line {line}) is not checked",
                    interp::MAX_DEPTH
                ),
            )
            .at_line(line),
        );
    }
    if let Some(at) = over_budget {
        let line = own_line(at);
        problems.push(
            Problem::new(
                ProblemKind::Partly,
                None,
                format!(
                    "a function ran {} statements (its loops and the calls it runs inline): calls from line {line} on are not followed into",
                    interp::WORK_FOR_INLINING
                ),
            )
            .at_line(line),
        );
    }
    let functions = found
        .iter()
        .map(|f| enclosing_function(root, f.span.start as usize, src))
        .collect();
    // Sites where they were written: the file, or a header it includes.
    let found = found.into_iter().map(|f| map_sites(f, unit)).collect();
    (found, functions, problems)
}

/// The arms of `#if`/`#ifdef` the build (`defines`, and what the file and the headers it
/// includes define) leaves out.
fn configuration(
    root: tree_sitter::Node<'_>,
    src: &str,
    defines: &config::Defines,
    dir: Option<&Path>,
) -> config::Excluded {
    config::excluded(root, src, &build_macros(root, src, defines, dir))
}

/// What the file, the headers it includes and the command line define.
fn build_macros(
    root: tree_sitter::Node<'_>,
    src: &str,
    defines: &config::Defines,
    dir: Option<&Path>,
) -> config::Macros {
    let macros = config::Macros {
        defined_at: config::defines(root, src),
        undefined_at: config::undefines(root, src),
        from_headers: HashSet::new(),
        unread_header: false,
        given: defines.clone(),
    };
    with_header_macros(macros, src, dir)
}

/// `src` parsed as the analysis reads it: what the grammar cannot read blanked
/// ([`grammar_text::grammar_text`]), and, where that leaves parts unparsed, the arms of
/// `#if`/`#ifdef` the build leaves out blanked too (arms that each hold half a construct: a
/// K&R and a prototype header of one function under `#ifndef ANSI_C`, braces opened in one arm
/// and closed after `#endif`), when that parses more. The same bytes as `src`: offsets are the
/// file's.
pub fn parse_configured(
    parser: &mut tree_sitter::Parser,
    src: &str,
    defines: &config::Defines,
    dir: Option<&Path>,
) -> Option<(String, tree_sitter::Tree)> {
    let text = grammar_text::grammar_text(src).into_owned();
    let tree = parser.parse(&text, None)?;
    if !tree.root_node().has_error() {
        return Some((text, tree));
    }
    let macros = build_macros(tree.root_node(), &text, defines, dir);
    let mut best = (skipped_lines(&tree, &text).len(), text, tree);
    for directives in [false, true] {
        let Some(configured) = config::excluded_by_lines(&best.1, &macros, directives).blanked(&best.1) else {
            break;
        };
        let Some(again) = parser.parse(&configured, None) else {
            break;
        };
        let skipped = skipped_lines(&again, &configured).len();
        if skipped < best.0 {
            best = (skipped, configured, again);
        }
        if skipped == 0 {
            break;
        }
    }
    Some((best.1, best.2))
}

/// The non-blank lines of `src` (0-based) the parse skipped: those holding a token an `ERROR`
/// node holds itself (the whole constructs tree-sitter recovered inside it are parsed) or a
/// missing node.
pub fn skipped_lines(tree: &tree_sitter::Tree, src: &str) -> Vec<usize> {
    let mut rows: Vec<(usize, usize)> = Vec::new();
    let mut stack = vec![(tree.root_node(), 0u32)];
    while let Some((n, depth)) = stack.pop() {
        if n.is_missing() {
            rows.push((n.start_position().row, n.start_position().row));
            continue;
        }
        if depth > 400 {
            rows.push((n.start_position().row, n.end_position().row));
            continue;
        }
        if !n.is_error() && !n.has_error() {
            continue;
        }
        let mut c = n.walk();
        for child in n.children(&mut c) {
            if n.is_error() && child.child_count() == 0 {
                rows.push((child.start_position().row, child.end_position().row));
            } else {
                stack.push((child, depth + 1));
            }
        }
    }
    let code: Vec<bool> = src.lines().map(|l| !l.trim().is_empty()).collect();
    let mut hit = vec![false; code.len()];
    for (a, b) in rows {
        let end = b.min(code.len().saturating_sub(1));
        if a <= end {
            hit[a..=end].fill(true);
        }
    }
    hit.iter()
        .zip(&code)
        .enumerate()
        .filter(|(_, (h, c))| **h && **c)
        .map(|(i, _)| i)
        .collect()
}

/// Whether tree-sitter parses a text with no error.
fn parses_whole(text: &str) -> bool {
    let mut parser = tree_sitter::Parser::new();
    if parser.set_language(&tree_sitter_cuda::LANGUAGE.into()).is_err() {
        return false;
    }
    let text = grammar_text::grammar_text(text);
    parser
        .parse(text.as_ref(), None)
        .is_some_and(|t| !t.root_node().has_error())
}

/// Whether a function of the C APIs does something the analysis follows (a macro calling it is
/// expanded where it is used).
fn has_effects(name: &str) -> bool {
    api::effects(name).is_some_and(|e| e.iter().any(|e| *e != api::Effect::NoAccess))
}

/// A finding's sites, from the unit's offsets to the files' (see [`unit::Unit::site`]).
fn map_sites(mut f: Finding<Site>, unit: &unit::Unit) -> Finding<Site> {
    f.span = unit.site(f.span);
    for (s, _) in &mut f.diagnostic.labels {
        *s = unit.site(*s);
    }
    f
}

/// The function definition that holds byte `at`, qualified by the classes, structs and
/// namespaces around it (`ns::Pipeline::run`, whether `run` is defined in the class or as
/// `void Pipeline::run()` outside it); the innermost one when definitions nest (a method of a
/// local class). `None` outside any function.
pub fn enclosing_function(root: tree_sitter::Node<'_>, at: usize, src: &str) -> Option<String> {
    let text = |n: tree_sitter::Node<'_>| -> Option<String> {
        let t = n.utf8_text(src.as_bytes()).ok()?;
        Some(t.split_whitespace().collect())
    };
    let mut scopes: Vec<String> = Vec::new();
    let mut function = None;
    let mut cursor = root.walk();
    // Down from the root through the nodes that hold `at`: as deep as the tree, no deeper.
    while cursor.goto_first_child_for_byte(at).is_some() {
        let n = cursor.node();
        if n.start_byte() > at {
            break;
        }
        match n.kind() {
            "namespace_definition" | "class_specifier" | "struct_specifier" | "union_specifier" => {
                if let Some(name) = n.child_by_field_name("name").and_then(text) {
                    scopes.push(name);
                }
            }
            "function_definition" => {
                if let Some(name) = declared_function(n).and_then(text) {
                    function = Some(scopes.iter().cloned().chain([name]).collect::<Vec<_>>().join("::"));
                }
            }
            _ => {}
        }
    }
    function
}

/// The name a function definition declares (`run`, `Pipeline::run`, `operator()`), through
/// the pointer and reference declarators of its return type.
fn declared_function(def: tree_sitter::Node<'_>) -> Option<tree_sitter::Node<'_>> {
    let mut d = def.child_by_field_name("declarator")?;
    for _ in 0..64 {
        if d.kind() == "function_declarator" {
            return d.child_by_field_name("declarator");
        }
        d = d.child_by_field_name("declarator")?;
    }
    None
}

/// The baseline key of each finding (see [`cuda_lint_protocol::baseline`]), in the report's
/// order: its file (as given, relative to `base`) relative to `root` (the baseline's folder,
/// [`cuda_lint_protocol::baseline::root_of`]), its enclosing function and its message's names.
pub fn baseline_keys(report: &Report, base: &Path, root: &Path) -> Vec<cuda_lint_protocol::baseline::Key> {
    use cuda_lint_protocol::baseline::{Key, key_path};
    report
        .findings
        .iter()
        .map(|r| {
            let (name, ..) = position(report, r.finding.span);
            Key::new(
                r.finding.lint.name,
                &key_path(&name, base, root),
                r.function.as_deref(),
                &r.finding.diagnostic.message,
            )
        })
        .collect()
}

/// Whether a finding is part of a change (`--changed-since`): its primary site or a site its
/// labels name (the allocation, the copy, the launch, the free) lies on a changed line. Paths
/// are the report's, relative to `base` when not absolute.
pub fn touches_changed_lines(
    report: &Report,
    reported: &Reported,
    changed: &cuda_lint_protocol::changed::ChangedLines,
    base: &Path,
) -> bool {
    use codespan_reporting::files::Files;
    let sites =
        std::iter::once(reported.finding.span).chain(reported.finding.diagnostic.labels.iter().map(|(s, _)| *s));
    sites.into_iter().any(|site| {
        let (name, first, _) = position(report, site);
        let last = report
            .files
            .line_index(site.file as usize, site.end as usize)
            .map_or(first, |l| l + 1);
        let path = Path::new(&name);
        let path = if path.is_absolute() {
            path.to_path_buf()
        } else {
            base.join(path)
        };
        changed.touches(&path, first as u64, last.max(first) as u64)
    })
}

/// The macros the headers `src` includes with `#include "..."` define (read as text, from
/// `dir`, four levels deep); a header that cannot be read leaves macros the file does not define
/// undecided.
fn with_header_macros(mut macros: config::Macros, src: &str, dir: Option<&Path>) -> config::Macros {
    let mut pending: Vec<(PathBuf, String, u32)> = config::local_includes(src)
        .map(|name| (dir.map(Path::to_path_buf).unwrap_or_default(), name.to_string(), 0))
        .collect();
    let mut seen = HashSet::new();
    while let Some((base, name, depth)) = pending.pop() {
        if dir.is_none() {
            macros.unread_header = true;
            break;
        }
        let path = base.join(&name);
        if !seen.insert(path.clone()) {
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                macros.from_headers.extend(config::header_defines(&text));
                if depth < 4 {
                    let next = path.parent().map(Path::to_path_buf).unwrap_or_default();
                    pending.extend(config::local_includes(&text).map(|n| (next.clone(), n.to_string(), depth + 1)));
                }
            }
            Err(_) => macros.unread_header = true,
        }
    }
    macros
}

/// The 1-based line of a byte offset.
fn line_of(src: &str, at: usize) -> usize {
    src.get(..at).map_or(0, |s| s.matches('\n').count()) + 1
}

/// The byte ranges of the parts tree-sitter could not parse.
fn collect_errors(n: tree_sitter::Node<'_>, ranges: &mut Vec<(usize, usize)>) {
    let mut stack = vec![n];
    while let Some(n) = stack.pop() {
        if n.is_error() || n.is_missing() {
            ranges.push((n.start_byte(), n.end_byte()));
            continue;
        }
        if n.has_error() {
            let mut c = n.walk();
            stack.extend(n.children(&mut c));
        }
    }
}

/// `// cuda-lint: allow(name)` on the finding's line or the one before.
fn suppressed(src: &str, at: usize, lint: &str) -> bool {
    let at = at.min(src.len());
    let line_start = src[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = src[at..].find('\n').map_or(src.len(), |i| at + i);
    let prev_start = if line_start == 0 {
        0
    } else {
        src[..line_start - 1].rfind('\n').map_or(0, |i| i + 1)
    };
    let allows = |text: &str| {
        text.split("cuda-lint:").skip(1).any(|rest| {
            let rest = rest.trim_start();
            rest.strip_prefix("allow(")
                .and_then(|r| r.split(')').next())
                .is_some_and(|names| {
                    names.split(',').map(str::trim).any(|n| {
                        cuda_lint_machine::lints::lints_named(n).is_some_and(|ls| ls.iter().any(|l| l.name == lint))
                    })
                })
        })
    };
    allows(&src[line_start..line_end])
        || (line_start > 0 && allows(&src[prev_start..line_start]))
        || allowed_in_file(src, lint)
}

/// `// cuda-lint: allow-file(name, ..)` anywhere in the file: the lints are off in all of it
/// (as `#![allow(..)]` at a crate's top).
fn allowed_in_file(src: &str, lint: &str) -> bool {
    src.split("cuda-lint: allow-file(").skip(1).any(|rest| {
        rest.split(')').next().is_some_and(|names| {
            names
                .split(',')
                .map(str::trim)
                .any(|n| cuda_lint_machine::lints::lints_named(n).is_some_and(|ls| ls.iter().any(|l| l.name == lint)))
        })
    })
}

fn severity(level: Level) -> Severity {
    match level {
        Level::Deny => Severity::Error,
        _ => Severity::Warning,
    }
}

/// The findings in rustc's style.
pub fn render_human(report: &Report, color: bool) -> String {
    report.findings.iter().map(|r| render_one(report, r, color)).collect()
}

/// One finding in rustc's style.
fn render_one(report: &Report, r: &Reported, color: bool) -> String {
    let mut out = term::termcolor::Buffer::no_color();
    let mut colored = term::termcolor::Buffer::ansi();
    let config = term::Config::default();
    let d = to_codespan(r);
    let buf = if color { &mut colored } else { &mut out };
    let _ = term::emit(buf, &config, &report.files, &d);
    let bytes = if color { colored.into_inner() } else { out.into_inner() };
    String::from_utf8_lossy(&bytes).into_owned()
}

/// What a diagnostic's `rendered` text is in cargo's JSON, as `--message-format` picks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rendered {
    /// `json`: rustc's human output, without color.
    Human,
    /// `json-diagnostic-rendered-ansi`: the same, in color.
    Ansi,
    /// `json-diagnostic-short`: `path:line:column: level: message [code]`.
    Short,
}

/// The findings as rustc writes diagnostics in JSON (`--error-format=json`: what cargo puts in
/// a `compiler-message`'s `message`), so that what reads cargo's JSON (rust-analyzer, IDEs, CI
/// tools) shows the C++ findings as it shows rustc's. Each comes with its file as the checker
/// was given it; its spans' `file_name` is that file relative to `root` (with `/`, absolute
/// outside it), `base` being the folder the given names are relative to. Columns count
/// characters from 1, as rustc's do.
pub fn rustc_diagnostics(
    report: &Report,
    rendered: Rendered,
    base: &Path,
    root: &Path,
) -> Vec<(PathBuf, serde_json::Value)> {
    use codespan_reporting::files::Files;
    use serde_json::json;
    let span = |s: Site, is_primary: bool, label: Option<&str>| {
        let file = s.file as usize;
        let (name, line_start, column_start) = position(report, s);
        let (_, line_end, column_end) = position(report, Site { start: s.end, ..s });
        let src = report.files.source(file).map(|s| s.to_string()).unwrap_or_default();
        // The lines the span covers, with the part it highlights.
        let text: Vec<serde_json::Value> = (line_start..=line_end.max(line_start))
            .filter_map(|line| {
                let range = report.files.line_range(file, line - 1).ok()?;
                let text = src.get(range)?.trim_end_matches(['\n', '\r']);
                let len = text.chars().count() + 1;
                let start = if line == line_start { column_start } else { 1 };
                let end = if line == line_end { column_end } else { len };
                Some(json!({"text": text, "highlight_start": start, "highlight_end": end.max(start)}))
            })
            .collect();
        json!({
            "file_name": report_path(&name, base, root),
            "byte_start": s.start,
            "byte_end": s.end.max(s.start),
            "line_start": line_start,
            "line_end": line_end.max(line_start),
            "column_start": column_start,
            "column_end": if line_end > line_start { column_end } else { column_end.max(column_start) },
            "is_primary": is_primary,
            "text": text,
            "label": label,
            "suggested_replacement": null,
            "suggestion_applicability": null,
            "expansion": null,
        })
    };
    let child = |level: &str, message: &str| {
        json!({
            "$message_type": "diagnostic",
            "message": message,
            "code": null,
            "level": level,
            "spans": [],
            "children": [],
            "rendered": null,
        })
    };
    report
        .findings
        .iter()
        .map(|r| {
            let f = &r.finding;
            let mut spans = vec![span(f.span, true, None)];
            spans.extend(f.diagnostic.labels.iter().map(|(s, text)| span(*s, false, Some(text))));
            let children: Vec<serde_json::Value> = f
                .diagnostic
                .children
                .iter()
                .filter_map(|c| match c {
                    Child::Note(n) => Some(child("note", n)),
                    Child::Help(h) => Some(child("help", h)),
                    Child::WaitBefore(w) => Some(child("help", &w.help)),
                    Child::Wrap { help, .. } => Some(child("help", help)),
                    Child::Via { .. } => None,
                })
                .collect();
            let level = if r.level == Level::Deny { "error" } else { "warning" };
            let text = match rendered {
                Rendered::Human => render_one(report, r, false),
                Rendered::Ansi => render_one(report, r, true),
                Rendered::Short => {
                    let (path, line, col) = position(report, f.span);
                    format!(
                        "{path}:{line}:{col}: {level}: {} [{}]\n",
                        f.diagnostic.message,
                        f.lint.full_name()
                    )
                }
            };
            let (file, ..) = position(report, f.span);
            let message = json!({
                "$message_type": "diagnostic",
                "message": f.diagnostic.message,
                "code": {"code": f.lint.full_name(), "explanation": null},
                "level": level,
                "spans": spans,
                "children": children,
                "rendered": text,
            });
            (PathBuf::from(file), message)
        })
        .collect()
}

fn to_codespan(r: &Reported) -> Diagnostic<usize> {
    let f = &r.finding;
    let file = f.span.file as usize;
    let mut labels = vec![Label::primary(file, f.span.start as usize..f.span.end as usize)];
    for (s, text) in &f.diagnostic.labels {
        labels.push(Label::secondary(s.file as usize, s.start as usize..s.end as usize).with_message(text.clone()));
    }
    let notes = f
        .diagnostic
        .children
        .iter()
        .filter_map(|c| match c {
            Child::Note(n) => Some(format!("note: {n}")),
            Child::Help(h) => Some(format!("help: {h}")),
            Child::WaitBefore(w) => Some(format!("help: {}", w.help)),
            Child::Wrap { help, .. } => Some(format!("help: {help}")),
            Child::Via { .. } => None,
        })
        .collect();
    Diagnostic::new(severity(r.level))
        .with_message(f.diagnostic.message.clone())
        .with_code(f.lint.full_name())
        .with_labels(labels)
        .with_notes(notes)
}

/// `path:line:column: level: message [code]`, one a line.
pub fn render_short(report: &Report) -> String {
    let mut out = String::new();
    for r in &report.findings {
        let (path, line, col) = position(report, r.finding.span);
        let level = if r.level == Level::Deny { "error" } else { "warning" };
        out.push_str(&format!(
            "{path}:{line}:{col}: {level}: {} [{}]\n",
            r.finding.diagnostic.message,
            r.finding.lint.full_name()
        ));
    }
    out
}

/// One JSON object a line: path, line, column, lint, level, message.
pub fn render_json(report: &Report) -> String {
    let mut out = String::new();
    for r in &report.findings {
        let (path, line, col) = position(report, r.finding.span);
        let v = serde_json::json!({
            "path": path,
            "line": line,
            "column": col,
            "lint": r.finding.lint.full_name(),
            "level": if r.level == Level::Deny { "error" } else { "warning" },
            "message": r.finding.diagnostic.message,
            "some_paths": r.finding.some_paths,
        });
        out.push_str(&v.to_string());
        out.push('\n');
    }
    out
}

/// A report for CI (`sarif`, `github`, `gitlab`) of the findings and of how the run went
/// (`execution`'s notifications are added to the report's problems). File names relative to
/// `base` (the working directory) are written relative to `root` (see
/// [`cuda_lint_protocol::output::report_root`]).
pub fn render_ci(
    report: &Report,
    format: cuda_lint_protocol::output::Format,
    execution: &cuda_lint_protocol::output::Execution,
    base: &Path,
    root: &Path,
) -> String {
    let mut execution = execution.clone();
    execution.notifications.extend(ci_notifications(report, base, root));
    format.emit_run(&ci_findings(report, base, root), &execution, root)
}

/// A problem in the form the CI reports take it (its path relative to `root`).
pub fn ci_notification(problem: &Problem, base: &Path, root: &Path) -> cuda_lint_protocol::output::Notification {
    use cuda_lint_protocol::output::{Level as OutLevel, Notification};
    Notification {
        level: match problem.kind {
            ProblemKind::NotAnalysed => OutLevel::Error,
            ProblemKind::Partly => OutLevel::Warning,
            ProblemKind::Note => OutLevel::Note,
        },
        message: problem.message.clone(),
        file: problem
            .path
            .as_ref()
            .map(|p| report_path(&p.to_string_lossy(), base, root)),
        line: problem.line,
    }
}

/// The report's problems in the form the CI reports take them.
pub fn ci_notifications(report: &Report, base: &Path, root: &Path) -> Vec<cuda_lint_protocol::output::Notification> {
    report.problems.iter().map(|p| ci_notification(p, base, root)).collect()
}

/// A file name as the checker was given it (relative to `base`, or absolute) as reports write
/// it: relative to `root` with `/`, absolute when outside it.
fn report_path(name: &str, base: &Path, root: &Path) -> String {
    cuda_lint_protocol::output::relative_path(name, base, root)
}

/// The findings in the form the CI reports take them (file names, relative to `base` or
/// absolute, written relative to `root`), so that `cargo cuda-lint --cuda-sources` puts the C++
/// ones in the same report as the Rust ones.
pub fn ci_findings(report: &Report, base: &Path, root: &Path) -> Vec<cuda_lint_protocol::output::Finding> {
    use cuda_lint_protocol::output::{Finding as Out, Label as OutLabel, Level as OutLevel, Span as OutSpan};
    let span_of = |s: Site| {
        let (path, line, col) = position(report, s);
        let (_, line_end, col_end) = position(report, Site { start: s.end, ..s });
        OutSpan {
            file: report_path(&path, base, root),
            line_start: line,
            column_start: col,
            line_end: line_end.max(line),
            column_end: if line_end > line { col_end } else { col_end.max(col) },
        }
    };
    report
        .findings
        .iter()
        .map(|r| {
            let f = &r.finding;
            let src = {
                use codespan_reporting::files::Files;
                report
                    .files
                    .source(f.span.file as usize)
                    .map(|s| s.to_string())
                    .unwrap_or_default()
            };
            let start = (f.span.start as usize).min(src.len());
            let line_start = src[..start].rfind('\n').map_or(0, |i| i + 1);
            let line_end = src[start..].find('\n').map_or(src.len(), |i| start + i);
            Out {
                span: span_of(f.span),
                code: f.lint.full_name(),
                level: if r.level == Level::Deny {
                    OutLevel::Error
                } else {
                    OutLevel::Warning
                },
                message: f.diagnostic.message.clone(),
                primary_label: None,
                notes: f
                    .diagnostic
                    .children
                    .iter()
                    .filter_map(|c| match c {
                        Child::Note(n) => Some(format!("note: {n}")),
                        Child::Help(h) => Some(format!("help: {h}")),
                        Child::WaitBefore(w) => Some(format!("help: {}", w.help)),
                        Child::Wrap { help, .. } => Some(format!("help: {help}")),
                        Child::Via { .. } => None,
                    })
                    .collect(),
                labels: f
                    .diagnostic
                    .labels
                    .iter()
                    .map(|(s, text)| OutLabel {
                        span: span_of(*s),
                        text: text.clone(),
                    })
                    .collect(),
                source_line: src[line_start..line_end].to_string(),
            }
        })
        .collect()
}

/// `--fix`: wraps each call a finding offers to wrap (`Child::Wrap`: `cudaMemcpy(..)` becomes
/// `CUDA_CHECK(cudaMemcpy(..))`) in the files it was read from. A file whose text changed since
/// it was read, or a call that does not start with its function's name there, is left as it is.
/// Returns, per finding, whether it was fixed, and the problems met (a file not written).
pub fn apply_wraps(report: &Report) -> (Vec<bool>, Vec<Problem>) {
    use codespan_reporting::files::Files;
    let mut fixed = vec![false; report.findings.len()];
    let mut problems = Vec::new();
    // Per file: (start, end, macro, finding index).
    let mut per_file: HashMap<usize, Vec<(usize, usize, String, usize)>> = HashMap::new();
    for (i, r) in report.findings.iter().enumerate() {
        let Some(with) = r.finding.diagnostic.children.iter().find_map(|c| match c {
            Child::Wrap { with, .. } => Some(with.clone()),
            _ => None,
        }) else {
            continue;
        };
        let s = r.finding.span;
        per_file
            .entry(s.file as usize)
            .or_default()
            .push((s.start as usize, s.end as usize, with, i));
    }
    for (file, mut edits) in per_file {
        let (Ok(name), Ok(read)) = (report.files.name(file), report.files.source(file)) else {
            continue;
        };
        let path = PathBuf::from(name.to_string());
        let Ok(now) = std::fs::read_to_string(&path) else {
            problems.push(Problem::new(
                ProblemKind::Note,
                Some(&path),
                "could not be read again to fix it",
            ));
            continue;
        };
        if now != read {
            problems.push(Problem::new(
                ProblemKind::Note,
                Some(&path),
                "changed since it was read: not fixed",
            ));
            continue;
        }
        // From the end, so earlier offsets stay right; one edit per call, none inside another.
        edits.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
        edits.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
        let mut text = now.clone();
        let mut next_start = usize::MAX;
        for (start, end, with, i) in edits {
            let call_ok = end <= text.len()
                && end <= next_start
                && text.is_char_boundary(start)
                && text.is_char_boundary(end)
                && text[start..end].trim_end().ends_with(')')
                && text[start..end].starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == ':');
            if !call_ok {
                continue;
            }
            text.insert(end, ')');
            text.insert_str(start, &format!("{with}("));
            next_start = start;
            fixed[i] = true;
        }
        if text != now
            && let Err(e) = std::fs::write(&path, &text)
        {
            problems.push(Problem::new(
                ProblemKind::Note,
                Some(&path),
                format!("could not be written: {e}"),
            ));
            for (i, r) in report.findings.iter().enumerate() {
                if r.finding.span.file as usize == file {
                    fixed[i] = false;
                }
            }
        }
    }
    (fixed, problems)
}

/// (path, 1-based line, 1-based column) of a site.
pub fn position(report: &Report, s: Site) -> (String, usize, usize) {
    use codespan_reporting::files::Files;
    let file = s.file as usize;
    let name = report.files.name(file).map(|n| n.to_string()).unwrap_or_default();
    let line = report.files.line_index(file, s.start as usize).unwrap_or(0);
    let col = report.files.column_number(file, line, s.start as usize).unwrap_or(1);
    (name, line + 1, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(src: &str) -> (String, usize) {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&tree_sitter_cuda::LANGUAGE.into()).unwrap();
        let (text, tree) = parse_configured(&mut parser, src, &config::Defines::default(), None).unwrap();
        let skipped = skipped_lines(&tree, &text).len();
        (text, skipped)
    }

    /// Two headers of one function, one per arm: the build reads one, and so does the parse.
    #[test]
    fn split_headers_parse_as_the_build_reads_them() {
        let src = "#define ANSI_C 1\n#ifndef ANSI_C\nvoid dump(fp, r)\nFILE *fp; int r;\n#else\nvoid dump(FILE *fp, int r)\n#endif\n{\n    fprintf(fp, \"%d\", r);\n}\n";
        let (text, skipped) = parse(src);
        assert_eq!(skipped, 0, "{text}");
        assert_eq!(text.len(), src.len());
        assert!(!text.contains("dump(fp, r)") && text.contains("void dump(FILE *fp, int r)"));
    }

    /// A test the analysis cannot decide (a macro of the platform's) keeps every arm.
    #[test]
    fn undecided_blocks_stay() {
        let src = "#ifdef _WIN32\nvoid dump(int r)\n#else\nvoid dump(long r)\n#endif\n{\n}\n";
        let (text, _) = parse(src);
        assert_eq!(text, grammar_text::grammar_text(src));
    }
}
