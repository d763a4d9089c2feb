//! cuda-lint for CUDA C++: finds the same misuses as the Rust driver, in `.cu`/`.cpp` host code,
//! through the same machine and lints (`cuda_lint_machine`). This crate is the second front end:
//! it parses with tree-sitter (no CUDA toolkit, no headers needed), walks each host function
//! ([`interp`]), reports each call of the C APIs ([`api`]) as the machine's transitions and
//! events, and renders the lints' diagnostics in rustc's style with codespan-reporting.
//!
//! Suppression in source: `// cuda-lint: allow(missing_sync)` (or `allow(all)`) on the line of
//! the finding or the line before, like clang-tidy's `NOLINT`.

pub mod api;
pub mod interp;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

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
}

/// What checking files found.
pub struct Report {
    pub files: SimpleFiles<String, String>,
    pub findings: Vec<Reported>,
    /// Files that could not be read, or parts that could not be parsed.
    pub problems: Vec<String>,
}

impl Report {
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
}

impl Settings {
    pub fn from_config(config: &cuda_lint_protocol::config::Config) -> Settings {
        let (functions, notes) = api::Functions::from_config(&config.functions);
        Settings {
            levels: Levels::from_flags(&config.lint_flags),
            functions,
            options: config.options.clone(),
            notes,
        }
    }
}

/// Reads a `cuda-lint.toml`; errors name the file, line and column.
pub fn load_settings(path: &Path) -> Result<Settings, String> {
    cuda_lint_protocol::config::load(path)
        .map(|c| Settings::from_config(&c))
        .map_err(|e| e.to_string())
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
        problems: settings.notes.clone(),
    };
    for path in files {
        let text = match std::fs::read(path) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => {
                report.problems.push(format!("{}: cannot read: {e}", path.display()));
                continue;
            }
        };
        let id = report.files.add(path.display().to_string(), text);
        let src = report.files.get(id).map(|f| f.source().clone()).unwrap_or_default();
        let (found, problem) = check_source_with(&src, id as u32, settings);
        if let Some(p) = problem {
            report.problems.push(format!("{}: {p}", path.display()));
        }
        for f in found {
            if suppressed(&src, f.span.start as usize, f.lint.name) {
                continue;
            }
            let level = levels.of(f.lint);
            if level != Level::Allow {
                report.findings.push(Reported { finding: f, level });
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
    let mut parser = tree_sitter::Parser::new();
    if parser.set_language(&tree_sitter_cuda::LANGUAGE.into()).is_err() {
        return (Vec::new(), Some("the CUDA grammar could not be loaded".into()));
    }
    let Some(tree) = parser.parse(src, None) else {
        return (Vec::new(), Some("could not be parsed".into()));
    };
    let root = tree.root_node();
    let mut problems: Vec<String> = Vec::new();
    if root.has_error() {
        let mut lines = Vec::new();
        collect_errors(root, &mut lines);
        lines.sort_unstable();
        lines.dedup();
        let shown: Vec<String> = lines.iter().take(10).map(|l| (l + 1).to_string()).collect();
        problems.push(format!(
            "could not parse all of it (line {}{}): those parts are skipped",
            shown.join(", "),
            if lines.len() > 10 { ", ..." } else { "" }
        ));
    }
    let (found, too_deep, over_budget) = FileAnalysis::new(src, file)
        .with_functions(settings.functions.clone())
        .with_options(settings.options.clone())
        .run(root);
    if let Some(at) = too_deep {
        let line = line_of(src, at);
        problems.push(format!(
            "code nested more than {} deep (from line {line}) is not checked",
            interp::MAX_DEPTH
        ));
    }
    if let Some(at) = over_budget {
        let line = line_of(src, at);
        problems.push(format!(
            "a function ran {} statements (its loops and the calls it runs inline): calls from line {line} on are not followed into",
            interp::WORK_FOR_INLINING
        ));
    }
    (found, (!problems.is_empty()).then(|| problems.join("; ")))
}

/// The 1-based line of a byte offset.
fn line_of(src: &str, at: usize) -> usize {
    src.get(..at).map_or(0, |s| s.matches('\n').count()) + 1
}

fn collect_errors(n: tree_sitter::Node<'_>, lines: &mut Vec<usize>) {
    let mut stack = vec![n];
    while let Some(n) = stack.pop() {
        if n.is_error() || n.is_missing() {
            lines.push(n.start_position().row);
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
    allows(&src[line_start..line_end]) || (line_start > 0 && allows(&src[prev_start..line_start]))
}

fn severity(level: Level) -> Severity {
    match level {
        Level::Deny => Severity::Error,
        _ => Severity::Warning,
    }
}

/// The findings in rustc's style.
pub fn render_human(report: &Report, color: bool) -> String {
    let mut out = term::termcolor::Buffer::no_color();
    let mut colored = term::termcolor::Buffer::ansi();
    let config = term::Config::default();
    for r in &report.findings {
        let d = to_codespan(r);
        let buf = if color { &mut colored } else { &mut out };
        let _ = term::emit(buf, &config, &report.files, &d);
    }
    let bytes = if color { colored.into_inner() } else { out.into_inner() };
    String::from_utf8_lossy(&bytes).into_owned()
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

/// A report for CI (`sarif`, `github`, `gitlab`), as `cargo cuda-lint` writes it. File names
/// relative to `base` (the working directory) are written relative to `root` (see
/// [`cuda_lint_protocol::output::report_root`]).
pub fn render_ci(report: &Report, format: cuda_lint_protocol::output::Format, base: &Path, root: &Path) -> String {
    format.emit(&ci_findings(report, base, root), root)
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

/// (path, 1-based line, 1-based column) of a site.
pub fn position(report: &Report, s: Site) -> (String, usize, usize) {
    use codespan_reporting::files::Files;
    let file = s.file as usize;
    let name = report.files.name(file).map(|n| n.to_string()).unwrap_or_default();
    let line = report.files.line_index(file, s.start as usize).unwrap_or(0);
    let col = report.files.column_number(file, line, s.start as usize).unwrap_or(1);
    (name, line + 1, col)
}
