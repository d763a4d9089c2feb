//! Reports of cuda-lint's findings for CI, code review and editors, one emitter per file:
//! - [`sarif`]: SARIF 2.1.0, for GitHub code scanning and other SARIF viewers;
//! - [`github`]: GitHub Actions workflow commands, which become annotations on the diff;
//! - [`gitlab`]: a GitLab Code Quality report, shown in merge requests.
//!
//! `cargo cuda-lint --message-format=sarif|github|gitlab` runs cargo with JSON diagnostics, turns
//! each `cuda_lint::*` diagnostic into a [`Finding`] ([`classify`]) and hands them all to
//! [`Format::emit`]. Emitters return the report as a string: only `cargo-cuda-lint` prints.
//! cargo's own formats (`human`, `short`, `json`, ...) are passed to cargo untouched.

pub mod github;
pub mod gitlab;
pub mod sarif;

use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

use cargo_metadata::Message;
use cargo_metadata::diagnostic::{Diagnostic, DiagnosticLevel, DiagnosticSpan};
use sha2::{Digest, Sha256};

use cuda_lint_machine::LintMeta;

/// `--message-format` values cargo understands itself: passed to it as they are.
pub const CARGO_FORMATS: &[&str] = &[
    "human",
    "short",
    "json",
    "json-diagnostic-short",
    "json-diagnostic-rendered-ansi",
    "json-render-diagnostics",
];

/// A report that `cargo cuda-lint` writes itself from cargo's JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Sarif,
    Github,
    Gitlab,
}

impl Format {
    pub const ALL: [Format; 3] = [Format::Sarif, Format::Github, Format::Gitlab];

    pub fn name(self) -> &'static str {
        match self {
            Format::Sarif => "sarif",
            Format::Github => "github",
            Format::Gitlab => "gitlab",
        }
    }

    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The report of `findings` (in any order, duplicates allowed). `root` is the directory the
    /// findings' relative paths are relative to (SARIF's `%SRCROOT%`). Says nothing of how the
    /// run went: see [`Format::emit_run`].
    pub fn emit(self, findings: &[Finding], root: &Path) -> String {
        let findings = normalized(findings);
        match self {
            Format::Sarif => sarif::emit(&findings, root),
            Format::Github => github::emit(&findings),
            Format::Gitlab => gitlab::emit(&findings),
        }
    }

    /// The report of `findings` and of how the run went: what could not be analysed is in
    /// every format, so that a run that analysed nothing, or only part, does not look clean.
    /// SARIF: one `invocation` (`executionSuccessful`, the notifications as
    /// `toolExecutionNotifications`, the exit code); GitHub: a workflow command a notification
    /// after the findings' (`::error` for what was not analysed, `::notice` for the rest);
    /// GitLab: an entry a notification (check `cuda_lint::not_analysed`, `major`, or
    /// `cuda_lint::analysis_note`, `info`). None of them is ever empty when the run failed.
    pub fn emit_run(self, findings: &[Finding], execution: &Execution, root: &Path) -> String {
        let findings = normalized(findings);
        match self {
            Format::Sarif => sarif::emit_run(&findings, Some(execution), root),
            Format::Github => github::emit(&findings) + &github::emit_notifications(&execution.notifications),
            Format::Gitlab => gitlab::emit_run(&findings, &execution.notifications),
        }
    }
}

/// Something about the run rather than the code: a file or a configuration that could not be
/// read, a part of a file that was not analysed, a file skipped.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Notification {
    /// [`Level::Error`]: something asked for was not analysed, and the run failed;
    /// [`Level::Warning`]: part of a file was not analysed; [`Level::Note`]: for information
    /// (a file skipped on purpose, a setting that does not apply).
    pub level: Level,
    pub message: String,
    /// The file it is about, relative to the report's root as [`Span::file`] is.
    pub file: Option<String>,
    /// The 1-based line in `file`, when known.
    pub line: Option<usize>,
}

/// How a run went, beside its findings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Execution {
    pub notifications: Vec<Notification>,
    /// The process's exit status, when the report is written by the process that exits with it.
    pub exit_code: Option<i32>,
}

impl Execution {
    /// Whether everything asked for was analysed: no notification is an error.
    pub fn successful(&self) -> bool {
        self.notifications.iter().all(|n| n.level != Level::Error)
    }
}

/// The environment variables that name the CI checkout, in the order they are tried: GitHub
/// Actions' and GitLab CI's.
pub const CI_WORKSPACE_VARS: [&str; 2] = ["GITHUB_WORKSPACE", "CI_PROJECT_DIR"];

/// The directory the paths of a report are relative to (SARIF's `%SRCROOT%`): the CI checkout
/// (see [`CI_WORKSPACE_VARS`]; an absolute path) when `base` or one of `files` lies inside it,
/// else `base`. Relative `files` are relative to `base`. CI services place annotations and
/// Code Quality entries by paths relative to the checkout, whatever directory the tool ran in
/// and however its paths were given. `cargo cuda-lint` passes the workspace root (and no
/// files), `cuda-lint check` the working directory and the files it checks. Reads the
/// environment; [`report_root_with`] takes the variables as an argument.
pub fn report_root(base: &Path, files: &[PathBuf]) -> PathBuf {
    report_root_with(base, files, |name| std::env::var_os(name))
}

/// [`report_root`] with the variables read through `var`.
pub fn report_root_with(base: &Path, files: &[PathBuf], var: impl Fn(&str) -> Option<std::ffi::OsString>) -> PathBuf {
    let base = normalize(base);
    let files: Vec<PathBuf> = files.iter().map(|f| normalize(&base.join(f))).collect();
    let holds = |dir: &Path| base.starts_with(dir) || files.iter().any(|f| f.starts_with(dir));
    CI_WORKSPACE_VARS
        .into_iter()
        .filter_map(var)
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .find_map(|dir| {
            // The variable as written, else the directory it names with its links resolved
            // (the working directory is reported that way).
            let written = normalize(&dir);
            if holds(&written) {
                return Some(written);
            }
            std::fs::canonicalize(&dir).ok().filter(|real| holds(real))
        })
        .unwrap_or(base)
}

/// Every `--message-format` value `cargo cuda-lint` accepts, for error messages.
pub fn valid_formats() -> String {
    CARGO_FORMATS
        .iter()
        .copied()
        .chain(Format::ALL.iter().map(|f| f.name()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Takes the report format out of cargo's arguments: `Ok((Some(format), rest))` when
/// `--message-format` asks for one of ours (the flag is removed from `rest`), `Ok((None, args))`
/// when it names only cargo's formats (or is absent), and an error for an unknown format, a
/// missing value or one of ours combined with another format. Like cargo, the flag may be given
/// as `--message-format=F` or `--message-format F`, several times, with comma-separated values.
pub fn split_message_format(args: &[String]) -> Result<(Option<Format>, Vec<String>), String> {
    let mut rest = Vec::with_capacity(args.len());
    let mut values = Vec::new();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let value = if let Some(value) = arg.strip_prefix("--message-format=") {
            value.to_string()
        } else if arg == "--message-format" {
            match iter.next() {
                Some(value) => value.clone(),
                None => return Err(format!("`--message-format` needs a value: {}", valid_formats())),
            }
        } else {
            rest.push(arg.clone());
            continue;
        };
        values.extend(value.split(',').map(|v| v.trim().to_string()));
    }
    let mut ours = None;
    for value in &values {
        if let Some(format) = Format::from_name(value) {
            ours = Some(format);
        } else if !CARGO_FORMATS.contains(&value.as_str()) {
            return Err(format!(
                "unknown message format `{value}`; the valid formats are: {}",
                valid_formats()
            ));
        }
    }
    match ours {
        None => Ok((None, args.to_vec())),
        Some(format) if values.len() == 1 => Ok((Some(format), rest)),
        Some(format) => Err(format!(
            "`--message-format={}` cannot be combined with other message formats (given: {})",
            format.name(),
            values.join(",")
        )),
    }
}

/// The severity of a finding, as the diagnostic had it (lint levels set by flags included).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Error,
    Warning,
    Note,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Note => "note",
        }
    }
}

/// A source range; lines and columns are 1-based, columns count characters, the end column is
/// exclusive (as in rustc's JSON).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    /// Relative to the report's root with `/` separators, or absolute when outside the root.
    pub file: String,
    pub line_start: usize,
    pub column_start: usize,
    pub line_end: usize,
    pub column_end: usize,
}

/// A secondary span with the text rustc shows at it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Label {
    pub span: Span,
    pub text: String,
}

/// One cuda-lint diagnostic, at its primary span.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Finding {
    pub span: Span,
    /// `cuda_lint::NAME`.
    pub code: String,
    pub level: Level,
    /// The diagnostic's message.
    pub message: String,
    /// The label of the primary span, if any.
    pub primary_label: Option<String>,
    /// The notes and helps, as `note: ...` / `help: ...`.
    pub notes: Vec<String>,
    /// Labeled secondary spans and spans of notes.
    pub labels: Vec<Label>,
    /// The source text of the primary span's first line (for fingerprints).
    pub source_line: String,
}

impl Finding {
    /// The message followed by its notes and helps, one a line.
    pub fn full_message(&self) -> String {
        let mut text = self.message.clone();
        for note in &self.notes {
            text.push('\n');
            text.push_str(note);
        }
        text
    }
}

/// Where a lint's documentation is published.
pub fn help_uri(info: &LintMeta) -> String {
    format!(
        "https://github.com/cuda-lint/cuda-lint/blob/main/LINTS.md#{}",
        info.name
    )
}

/// What a message of cargo's JSON stream is to a report.
#[derive(Debug)]
pub enum Classified {
    /// A cuda-lint diagnostic.
    Finding(Finding),
    /// Anything else the user must see (other diagnostics, stray output): the text to show.
    Other(String),
    /// Artifacts, build-script runs, the end of the build.
    Ignored,
}

/// Sorts one message of `cargo check --message-format=json*` (`cargo_metadata`'s parse). rustc
/// runs in the workspace root, so relative file names are relative to `workspace_root`; the
/// finding's paths are made relative to `root` (the workspace root, or a directory above it).
pub fn classify(message: Message, workspace_root: &Path, root: &Path) -> Classified {
    match message {
        Message::CompilerMessage(msg) => match finding(&msg.message, workspace_root, root) {
            Some(finding) => Classified::Finding(finding),
            None => {
                let diag = &msg.message;
                let mut text = diag
                    .rendered
                    .clone()
                    .unwrap_or_else(|| format!("{}: {}", level_name(diag.level), diag.message));
                if !text.ends_with('\n') {
                    text.push('\n');
                }
                Classified::Other(text)
            }
        },
        Message::TextLine(line) if line.trim().is_empty() => Classified::Ignored,
        Message::TextLine(line) => Classified::Other(line + "\n"),
        _ => Classified::Ignored,
    }
}

/// The finding of a `cuda_lint::*` diagnostic; `None` for other diagnostics.
pub fn finding(diag: &Diagnostic, workspace_root: &Path, root: &Path) -> Option<Finding> {
    let code = diag.code.as_ref()?.code.clone();
    if !code.starts_with("cuda_lint::") {
        return None;
    }
    let level = match diag.level {
        DiagnosticLevel::Error | DiagnosticLevel::Ice => Level::Error,
        DiagnosticLevel::Warning => Level::Warning,
        _ => Level::Note,
    };
    let primary = diag.spans.iter().find(|s| s.is_primary)?;
    let shown = user_span(primary, workspace_root, root);
    let mut labels: Vec<Label> = diag
        .spans
        .iter()
        .filter(|s| !s.is_primary)
        .filter_map(|s| {
            let text = s.label.clone()?;
            Some(Label {
                span: span(user_span(s, workspace_root, root), workspace_root, root),
                text,
            })
        })
        .collect();
    let mut notes = Vec::new();
    for child in diag.children.iter().filter(|c| !is_level_note(c)) {
        notes.push(format!("{}: {}", level_name(child.level), child.message));
        for s in child.spans.iter().filter(|s| s.is_primary) {
            let text = match &s.suggested_replacement {
                Some(replacement) => format!("{} `{replacement}`", child.message),
                None => child.message.clone(),
            };
            labels.push(Label {
                span: span(user_span(s, workspace_root, root), workspace_root, root),
                text,
            });
        }
    }
    Some(Finding {
        span: span(shown, workspace_root, root),
        code,
        level,
        message: diag.message.clone(),
        primary_label: primary.label.clone(),
        notes,
        labels,
        source_line: shown.text.first().map(|l| l.text.clone()).unwrap_or_default(),
    })
}

/// Where a `cuda_lint::*` diagnostic's finding is, as rustc names it: the file name of its
/// primary span (relative to the workspace root, or absolute) and its byte offset, at the same
/// span [`finding`] reports (a macro's call site for a macro defined outside `root`). Baseline
/// keys need the function there (`baseline::enclosing_function`).
pub fn primary_site(diag: &Diagnostic, workspace_root: &Path, root: &Path) -> Option<(String, u32)> {
    let primary = diag.spans.iter().find(|s| s.is_primary)?;
    let shown = user_span(primary, workspace_root, root);
    Some((shown.file_name.clone(), shown.byte_start))
}

/// rustc's note on where the lint's level comes from ("`#[deny(..)]` on by default", "implied
/// by", "requested on the command line", "the lint level is defined here" at an attribute or
/// at the line of `cuda-lint.toml` that sets it): given once per lint and crate, it says
/// nothing about the finding.
fn is_level_note(child: &Diagnostic) -> bool {
    let m = &child.message;
    (child.level == DiagnosticLevel::Note && m == "the lint level is defined here")
        || (child.spans.is_empty()
            && ((m.starts_with("`#[") && (m.ends_with("` on by default") || m.contains("` implied by `")))
                || m.starts_with("requested on the command line with")))
}

fn level_name(level: DiagnosticLevel) -> &'static str {
    match level {
        DiagnosticLevel::Ice => "error: internal compiler error",
        DiagnosticLevel::Error => "error",
        DiagnosticLevel::Warning => "warning",
        DiagnosticLevel::FailureNote => "failure-note",
        DiagnosticLevel::Help => "help",
        _ => "note",
    }
}

/// A span inside a macro defined outside the report's root is shown at the macro's call site
/// in the user's code.
fn user_span<'a>(mut s: &'a DiagnosticSpan, workspace_root: &Path, root: &Path) -> &'a DiagnosticSpan {
    while !is_under(&s.file_name, workspace_root, root)
        && let Some(expansion) = &s.expansion
    {
        s = &expansion.span;
    }
    s
}

fn is_under(file_name: &str, workspace_root: &Path, root: &Path) -> bool {
    !file_name.starts_with('<') && normalize(&workspace_root.join(file_name)).starts_with(normalize(root))
}

fn span(s: &DiagnosticSpan, workspace_root: &Path, root: &Path) -> Span {
    Span {
        file: relative_path(&s.file_name, workspace_root, root),
        line_start: s.line_start,
        column_start: s.column_start,
        line_end: s.line_end,
        column_end: s.column_end,
    }
}

/// `file_name` (relative to `workspace_root`, or absolute) relative to `root` with `/`
/// separators; absolute when it lies outside `root`. Both front ends write their reports'
/// paths with it, `root` coming from [`report_root`].
pub fn relative_path(file_name: &str, workspace_root: &Path, root: &Path) -> String {
    let path = normalize(&workspace_root.join(file_name));
    match path.strip_prefix(normalize(root)) {
        // The root itself (a folder a notification is about).
        Ok(relative) if relative.as_os_str().is_empty() => ".".to_string(),
        Ok(relative) => relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/"),
        Err(_) => path.to_string_lossy().into_owned(),
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

/// Sorted by place, duplicates (the same diagnostic from two targets of one crate) removed:
/// reports do not depend on the order in which cargo compiled the crates.
fn normalized(findings: &[Finding]) -> Vec<Finding> {
    let mut findings = findings.to_vec();
    findings.sort();
    findings.dedup();
    findings
}

/// A fingerprint for each finding that survives edits elsewhere in the file: the SHA-256 of the
/// lint, the file, the trimmed text of the finding's line and the finding's index among the
/// findings with those three (in order of position), never the line number.
pub fn fingerprints(findings: &[Finding]) -> Vec<String> {
    let mut seen: Vec<(&str, &str, &str)> = Vec::new();
    findings
        .iter()
        .map(|f| {
            let key = (f.code.as_str(), f.span.file.as_str(), f.source_line.trim());
            let occurrence = seen.iter().filter(|k| **k == key).count();
            seen.push(key);
            hash(&[key.0, key.1, key.2, &occurrence.to_string()])
        })
        .collect()
}

/// The SHA-256 of `parts` (each followed by a NUL byte), in hexadecimal.
pub(crate) fn hash(parts: &[&str]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part.as_bytes());
        hasher.update([0u8]);
    }
    let mut hex = String::with_capacity(64);
    for byte in hasher.finalize().iter() {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}
