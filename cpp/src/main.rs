//! `cuda-lint check [--message-format human|short|json|sarif|github|gitlab] [--baseline FILE |
//! --write-baseline FILE] [PATH...]`: checks the CUDA C++ host code under each path (the current
//! directory by default). `--write-baseline` records the findings in a file (and reports none),
//! `--baseline` leaves those out of the report (`cuda_lint_protocol::baseline`). Exit status: 0
//! when everything asked for was analysed and no finding is an error, 1 when a finding is an
//! error, 2 for a usage error, 3 when something asked for could not be analysed (a path that
//! does not exist or cannot be read, a mistake in `cuda-lint.toml`, a baseline that is missing
//! or malformed, no source file at all),
//! whatever was found: the CI reports then say so (SARIF `executionSuccessful: false`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use cuda_lint_cpp::{Problem, ProblemKind};
use cuda_lint_protocol::baseline::{self, Baseline};
use cuda_lint_protocol::output::{Execution, Format, Level, Notification};

const USAGE: &str = "usage: cuda-lint check [--message-format human|short|json|sarif|github|gitlab] [-W|-A|-D LINT]...\n\
                     \x20                      [--baseline FILE | --write-baseline FILE] [--changed-since REV] [--fix]\n\
                     \x20                      [--define NAME[=VALUE]]... [--undefine NAME]... [-I DIR]... [-p BUILD_DIR] [PATH...]\n\
                     checks the CUDA C++ host code in the .cu, .cuh, .cpp, .cc, .cxx, .c, .h and .hpp files under each path\n\
                     (binary files are skipped)\n\
                     -W/-A/-D LINT: warn about, allow or deny a lint or a group (correctness, suspicious, perf, pedantic, all),\n\
                     \x20   after cuda-lint.toml's [lints]: -D cuda_lint::perf, -W cuda_lint::unverified\n\
                     --write-baseline FILE: record today's findings in FILE (JSON) and report none of them\n\
                     --fix: apply the fixes findings offer where the change is mechanical (unchecked_cuda_result:\n\
                     \x20   a dropped status wrapped in the file's check macro), and report the findings left\n\
                     --baseline FILE: report only the findings FILE does not hold, in every format; how many it held\n\
                     \x20   is said on stderr. A finding's key is its lint, its file (relative to FILE's folder: keep FILE\n\
                     \x20   at the project root), its function and the names its message quotes, not its line; a key\n\
                     \x20   is counted, so one more finding of it is new. A missing or malformed FILE exits 3\n\
                     -p BUILD_DIR, --compile-commands FILE: read BUILD_DIR/compile_commands.json (as clang-tidy does):\n\
                     \x20   its files when no PATH is given, and each file's -D/-U/-I\n\
                     -I DIR, --include-dir DIR: where headers the project includes with #include \"...\" are looked for after\n\
                     \x20   the including file's folder; they are part of the file checked (its classes, helpers, globals)\n\
                     --define NAME[=VALUE], --undefine NAME: the build's configuration, as -D/-U give a compiler; the\n\
                     \x20   arms of #if/#ifdef that build leaves out are not analysed (by default a macro is defined where\n\
                     \x20   the code or a header it includes with #include \"...\" defines it, and __CUDACC__)\n\
                     --changed-since REV: report only the findings a change since the git revision REV is part of:\n\
                     \x20   the finding's site or a site it names (allocation, copy, launch, free) on a line changed\n\
                     \x20   since REV (committed, staged, unstaged or untracked). A revision git does not know exits 3\n\
                     exit status: 0 clean, 1 a finding is an error, 2 usage error, 3 something could not be analysed";

/// A deny-level finding, everything analysed.
const EXIT_FINDINGS: u8 = 1;
/// The command line is wrong: nothing was analysed.
const EXIT_USAGE: u8 = 2;
/// Something asked for could not be analysed (it wins over findings: the run is incomplete).
const EXIT_NOT_ANALYSED: u8 = 3;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("check") => {}
        Some("--help" | "-h" | "help") => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Some("--version" | "-V") => {
            println!("cuda-lint {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(EXIT_USAGE);
        }
    }
    let mut format = "human".to_string();
    let mut paths = Vec::new();
    let mut lint_flags: Vec<String> = Vec::new();
    // `--baseline FILE`, `--write-baseline FILE`.
    let mut baseline_file: Option<PathBuf> = None;
    let mut write_baseline: Option<PathBuf> = None;
    // `--changed-since REV`.
    let mut changed_since: Option<String> = None;
    // `--fix`.
    let mut fix = false;
    // `--define NAME[=VALUE]`, `--undefine NAME`: the build's configuration.
    let mut defines = cuda_lint_cpp::config::Defines::default();
    // `-I DIR`: folders of the project's headers.
    let mut include_dirs: Vec<PathBuf> = Vec::new();
    // `-p BUILD_DIR`: the compilation database.
    let mut database_at: Option<PathBuf> = None;
    // The first mistake on the command line; the rest is read all the same, so that a CI
    // report can say what went wrong in the format asked for.
    let mut usage_error: Option<String> = None;
    let mut rest = args[1..].iter();
    while let Some(a) = rest.next() {
        if let Some(letter) = ["-W", "-A", "-D", "-F"].into_iter().find(|l| a.starts_with(l)) {
            let name = match &a[2..] {
                "" => match rest.next() {
                    Some(n) => n.clone(),
                    None => {
                        usage_error.get_or_insert(format!("`{letter}` needs a lint or group name"));
                        break;
                    }
                },
                attached => attached.to_string(),
            };
            if cuda_lint_machine::lints::lints_named(&name).is_none() {
                usage_error.get_or_insert(format!(
                    "unknown lint or group `{name}`; the lints and groups are: {}",
                    cuda_lint_machine::lints::lint_and_group_names()
                ));
                continue;
            }
            let name = name.trim_start_matches("cuda_lint::");
            lint_flags.push(letter.to_string());
            lint_flags.push(format!("cuda_lint::{name}"));
        } else if a == "--fix" {
            fix = true;
        } else if let Some(v) = a.strip_prefix("--message-format=") {
            format = v.to_string();
        } else if a == "--message-format" {
            match rest.next() {
                Some(v) => format = v.clone(),
                None => {
                    usage_error.get_or_insert(
                        "`--message-format` needs a value: human, short, json, sarif, github, gitlab".into(),
                    );
                }
            }
        } else if a == "-p" || a == "--compile-commands" || a.starts_with("--compile-commands=") {
            // `-p build/`: the files of `build/compile_commands.json` and each one's flags.
            let value = match a.strip_prefix("--compile-commands=") {
                Some(v) => Some(v.to_string()),
                None => rest.next().cloned(),
            };
            match value {
                Some(v) if !v.is_empty() => database_at = Some(PathBuf::from(v)),
                _ => {
                    usage_error.get_or_insert(format!("`{a}` needs a build folder or a compile_commands.json"));
                }
            }
        } else if a == "--include-dir" || a.starts_with("--include-dir=") || a.starts_with("-I") {
            // `-I DIR`, `-IDIR`, `--include-dir DIR`: where `#include "..."` headers are looked
            // for after the including file's folder.
            let value = if let Some(v) = a.strip_prefix("--include-dir=") {
                Some(v.to_string())
            } else if a == "--include-dir" || a == "-I" {
                rest.next().cloned()
            } else {
                a.strip_prefix("-I").map(str::to_string)
            };
            match value {
                Some(v) if !v.is_empty() => include_dirs.push(PathBuf::from(v)),
                _ => {
                    usage_error.get_or_insert(format!("`{a}` needs a folder"));
                }
            }
        } else if let Some(flag) = ["--define", "--undefine"]
            .into_iter()
            .find(|f| a == f || a.starts_with(&format!("{f}=")))
        {
            let value = match a.strip_prefix(flag).and_then(|v| v.strip_prefix('=')) {
                Some(v) => Some(v.to_string()),
                None => rest.next().cloned(),
            };
            let done = match value.as_deref() {
                Some(v) if flag == "--define" => defines.define(v),
                Some(v) => defines.undefine(v),
                None => Err(format!("`{flag}` needs a macro name")),
            };
            if let Err(e) = done {
                usage_error.get_or_insert(e);
            }
        } else if a == "--changed-since" || a.starts_with("--changed-since=") {
            let value = match a.strip_prefix("--changed-since=") {
                Some(v) => Some(v.to_string()),
                None => rest.next().cloned(),
            };
            match value {
                Some(v) if !v.is_empty() => {
                    if changed_since.replace(v).is_some() {
                        usage_error.get_or_insert("`--changed-since` is given twice".into());
                    }
                }
                _ => {
                    usage_error.get_or_insert("`--changed-since` needs a git revision".into());
                }
            }
        } else if let Some(flag) = ["--baseline", "--write-baseline"]
            .into_iter()
            .find(|f| a == f || a.starts_with(&format!("{f}=")))
        {
            let value = match a.strip_prefix(flag).and_then(|v| v.strip_prefix('=')) {
                Some(v) => Some(v.to_string()),
                None => rest.next().cloned(),
            };
            let slot = if flag == "--baseline" {
                &mut baseline_file
            } else {
                &mut write_baseline
            };
            match value {
                Some(v) if !v.is_empty() => {
                    if slot.replace(PathBuf::from(v)).is_some() {
                        usage_error.get_or_insert(format!("`{flag}` is given twice"));
                    }
                }
                _ => {
                    usage_error.get_or_insert(format!("`{flag}` needs a file"));
                }
            }
        } else if a.starts_with('-') {
            usage_error.get_or_insert(format!("unknown option `{a}`\n{USAGE}"));
        } else {
            paths.push(PathBuf::from(a));
        }
    }
    if write_baseline.is_some() && changed_since.is_some() {
        usage_error.get_or_insert(
            "`--write-baseline` records every finding: it cannot be combined with `--changed-since`".into(),
        );
    }
    if baseline_file.is_some() && write_baseline.is_some() {
        usage_error.get_or_insert(
            "`--baseline` and `--write-baseline` cannot be combined: `--write-baseline` records every finding".into(),
        );
    }
    let ci = Format::from_name(&format);
    if !matches!(format.as_str(), "human" | "short" | "json") && ci.is_none() {
        eprintln!(
            "error: unknown message format `{format}`; the valid formats are: human, short, json, sarif, github, gitlab"
        );
        return ExitCode::from(EXIT_USAGE);
    }
    let here = std::env::current_dir().unwrap_or_default();
    if let Some(e) = usage_error {
        eprintln!("error: {e}");
        // Even then, a CI report is never empty: it says the run failed.
        if let Some(ci) = ci {
            let failed = Execution {
                notifications: vec![Notification {
                    level: Level::Error,
                    message: format!("usage error, nothing analysed: {}", e.lines().next().unwrap_or("")),
                    file: None,
                    line: None,
                }],
                exit_code: Some(EXIT_USAGE.into()),
            };
            print(&ci.emit_run(&[], &failed, &here));
        }
        return ExitCode::from(EXIT_USAGE);
    }
    // The compilation database: its files when no path is given, each file's flags always.
    let mut database = None;
    let mut database_problem = None;
    if let Some(at) = &database_at {
        match cuda_lint_cpp::compile_commands::Database::read(at) {
            Ok(db) => database = Some(db),
            Err(e) => database_problem = Some(Problem::new(ProblemKind::NotAnalysed, Some(at), e)),
        }
    }
    if paths.is_empty() && database_problem.is_none() {
        match &database {
            Some(db) => paths.extend(db.files.iter().cloned()),
            None => paths.push(PathBuf::from(".")),
        }
    }

    // What was asked for and cannot be analysed fails the run, but the rest is analysed.
    let mut problems: Vec<Problem> = database_problem.into_iter().collect();
    let mut files = Vec::new();
    for p in &paths {
        if !p.exists() {
            problems.push(Problem::new(
                ProblemKind::NotAnalysed,
                Some(p),
                "no such file or directory",
            ));
            continue;
        }
        match cuda_lint_cpp::source_files(std::slice::from_ref(p)) {
            Ok(found) => files.extend(found),
            Err(e) => problems.push(Problem::new(ProblemKind::NotAnalysed, Some(p), e)),
        }
    }
    // The baseline: one that cannot be read stops the run, as a mistake in cuda-lint.toml
    // does (all its findings reported as new would look like a regression, none like a pass).
    let mut baseline = None;
    if let Some(file) = &baseline_file {
        match Baseline::read(file) {
            Ok(b) => baseline = Some(b),
            Err(e) => problems.push(Problem {
                kind: ProblemKind::NotAnalysed,
                path: Some(file.clone()),
                line: e.line,
                column: e.column,
                message: e.message,
            }),
        }
    }
    // The lines changed since `--changed-since`'s revision: a revision git does not know
    // stops the run too (every finding left out would look like a clean change).
    let mut changed = None;
    if let Some(rev) = &changed_since {
        match cuda_lint_protocol::changed::ChangedLines::since(rev, &here) {
            Ok(c) => changed = Some(c),
            Err(e) => problems.push(Problem::new(ProblemKind::NotAnalysed, None, e)),
        }
    }
    let baseline_failed =
        (baseline_file.is_some() && baseline.is_none()) || (changed_since.is_some() && changed.is_none());
    // Levels and functions from cuda-lint.toml, when there is one; a mistake in it stops the
    // run: its levels and functions would change what is found.
    let config = cuda_lint_cpp::find_config(&paths);
    let settings = match config.as_deref().map(cuda_lint_cpp::load_settings) {
        None => Ok(cuda_lint_cpp::Settings::default()),
        Some(loaded) => loaded,
    };
    let mut report = match settings {
        Ok(_) if baseline_failed => cuda_lint_cpp::check_files(&[]),
        Ok(mut settings) => {
            // Flags on the command line come after the file's levels, as with rustc's.
            settings.levels = settings.levels.with_flags(&lint_flags);
            // The command line's build after the file's `[cpp]` table.
            settings.defines.then(&defines);
            settings.include_dirs.extend(include_dirs.iter().cloned());
            settings.database = database.clone();
            let report = cuda_lint_cpp::check_files_with(&files, &settings);
            if report.analysed == 0 && problems.is_empty() && !report.not_analysed() {
                let kinds = cuda_lint_cpp::EXTENSIONS.join(" .");
                let (path, what) = match paths.as_slice() {
                    [one] => (
                        Some(one.as_path()),
                        format!("no CUDA C++ source file (.{kinds}) to analyse"),
                    ),
                    _ => (
                        None,
                        format!("no CUDA C++ source file (.{kinds}) to analyse in {}", shown(&paths)),
                    ),
                };
                problems.push(Problem::new(ProblemKind::NotAnalysed, path, what));
            }
            report
        }
        Err(problem) => {
            problems.push(problem);
            cuda_lint_cpp::check_files(&[])
        }
    };
    problems.append(&mut report.problems);
    report.problems = problems;
    let mut baseline_said = apply_baseline(&mut report, baseline.as_ref(), &baseline_file, &write_baseline, &here);
    if let (Some(changed), Some(rev)) = (&changed, &changed_since) {
        let keep: Vec<bool> = report
            .findings
            .iter()
            .map(|r| cuda_lint_cpp::touches_changed_lines(&report, r, changed, &here))
            .collect();
        let outside = keep.iter().filter(|k| !**k).count();
        let mut keep = keep.into_iter();
        report.findings.retain(|_| keep.next().unwrap_or(true));
        let said = format!(
            "cuda-lint: {} outside the lines changed since {rev} {} not reported",
            if outside == 1 {
                "1 finding".to_string()
            } else {
                format!("{outside} findings")
            },
            if outside == 1 { "was" } else { "were" }
        );
        baseline_said = Some(match baseline_said {
            Some(before) => format!("{before}\n{said}"),
            None => said,
        });
    }
    if fix {
        let (fixed, mut problems) = cuda_lint_cpp::apply_wraps(&report);
        let count = fixed.iter().filter(|f| **f).count();
        let mut keep = fixed.into_iter();
        report.findings.retain(|_| !keep.next().unwrap_or(false));
        report.problems.append(&mut problems);
        eprintln!("cuda-lint: fixed {count} finding{}", if count == 1 { "" } else { "s" });
    }
    for p in &report.problems {
        eprintln!("{}: {p}", p.severity());
    }
    let status = if report.not_analysed() {
        EXIT_NOT_ANALYSED
    } else if report.has_errors() {
        EXIT_FINDINGS
    } else {
        0
    };

    let text = match (ci, format.as_str()) {
        (Some(ci), _) => {
            // Paths relative to the CI checkout when the files lie inside it, else to here.
            let mut given: Vec<PathBuf> = files.iter().chain(&paths).cloned().collect();
            given.extend(config);
            let root = cuda_lint_protocol::output::report_root(&here, &given);
            let execution = Execution {
                notifications: Vec::new(),
                exit_code: Some(status.into()),
            };
            cuda_lint_cpp::render_ci(&report, ci, &execution, &here, &root)
        }
        (None, "short") => cuda_lint_cpp::render_short(&report),
        (None, "json") => cuda_lint_cpp::render_json(&report),
        _ => cuda_lint_cpp::render_human(&report, false),
    };
    print(&text);
    if let Some(said) = baseline_said {
        eprintln!("{said}");
    }
    if format == "human" {
        let (errors, warnings) = report.counts();
        eprintln!(
            "cuda-lint: {} file(s) checked, {errors} error(s), {warnings} warning(s){}",
            report.analysed,
            if status == EXIT_NOT_ANALYSED {
                "; not everything asked for could be analysed (see above)"
            } else {
                ""
            }
        );
    }
    ExitCode::from(status)
}

/// Leaves the findings `baseline` (read from `baseline_file`) holds out of the report, or
/// records them all in `write_baseline` and leaves them all out; says how many on stderr's
/// last lines. A baseline that cannot be written is a problem of the run (exit 3); none is
/// written when something could not be analysed (it would miss that part's findings).
fn apply_baseline(
    report: &mut cuda_lint_cpp::Report,
    baseline: Option<&Baseline>,
    baseline_file: &Option<PathBuf>,
    write_baseline: &Option<PathBuf>,
    here: &Path,
) -> Option<String> {
    let findings = |n: usize| {
        if n == 1 {
            "1 finding".to_string()
        } else {
            format!("{n} findings")
        }
    };
    if let (Some(baseline), Some(file)) = (baseline, baseline_file) {
        let keys = cuda_lint_cpp::baseline_keys(report, here, &baseline::root_of(file, here));
        let applied = baseline.apply(&keys);
        let mut new = applied.new.iter();
        report.findings.retain(|_| new.next().copied().unwrap_or(true));
        let mut said = format!(
            "cuda-lint: {} in the baseline {} not reported",
            findings(applied.baselined),
            if applied.baselined == 1 { "was" } else { "were" }
        );
        if applied.unmatched > 0 {
            said.push_str(&format!(
                "; {} of {} {} not found (fixed, or changed: `--write-baseline` drops {})",
                findings(applied.unmatched),
                file.display(),
                if applied.unmatched == 1 { "was" } else { "were" },
                if applied.unmatched == 1 { "it" } else { "them" },
            ));
        }
        return Some(said);
    }
    let file = write_baseline.as_ref()?;
    if report.not_analysed() {
        return Some(format!(
            "cuda-lint: the baseline {} was not written: not everything asked for could be analysed",
            file.display()
        ));
    }
    let keys = cuda_lint_cpp::baseline_keys(report, here, &baseline::root_of(file, here));
    let recorded = Baseline::from_keys(&keys);
    match recorded.write(file) {
        Ok(()) => {
            report.findings.clear();
            Some(format!(
                "cuda-lint: {} written to the baseline {}",
                findings(recorded.len()),
                file.display()
            ))
        }
        Err(e) => {
            report
                .problems
                .push(Problem::new(ProblemKind::NotAnalysed, Some(file), e.message));
            None
        }
    }
}

/// Writes the report to stdout; a closed pipe (`| head`) ends the output quietly.
fn print(text: &str) {
    use std::io::Write as _;
    let _ = std::io::stdout().write_all(text.as_bytes());
}

fn shown(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| Path::display(p).to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
