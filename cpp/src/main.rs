//! `cuda-lint check [--message-format human|short|json|sarif|github|gitlab] [PATH...]`: checks
//! the CUDA C++ host code under each path (the current directory by default). Exit status: 0
//! when everything asked for was analysed and no finding is an error, 1 when a finding is an
//! error, 2 for a usage error, 3 when something asked for could not be analysed (a path that
//! does not exist or cannot be read, a mistake in `cuda-lint.toml`, no source file at all),
//! whatever was found: the CI reports then say so (SARIF `executionSuccessful: false`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use cuda_lint_cpp::{Problem, ProblemKind};
use cuda_lint_protocol::output::{Execution, Format, Level, Notification};

const USAGE: &str = "usage: cuda-lint check [--message-format human|short|json|sarif|github|gitlab] [-W|-A|-D LINT]... [PATH...]\n\
                     checks the CUDA C++ host code in the .cu, .cuh, .cpp, .cc, .cxx, .c, .h and .hpp files under each path\n\
                     (binary files are skipped)\n\
                     -W/-A/-D LINT: warn about, allow or deny a lint or a group (correctness, perf, pedantic, all),\n\
                     \x20   after cuda-lint.toml's [lints]: -D cuda_lint::perf, -W cuda_lint::unverified\n\
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
        } else if a.starts_with('-') {
            usage_error.get_or_insert(format!("unknown option `{a}`\n{USAGE}"));
        } else {
            paths.push(PathBuf::from(a));
        }
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
    if paths.is_empty() {
        paths.push(PathBuf::from("."));
    }

    // What was asked for and cannot be analysed fails the run, but the rest is analysed.
    let mut problems = Vec::new();
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
    // Levels and functions from cuda-lint.toml, when there is one; a mistake in it stops the
    // run: its levels and functions would change what is found.
    let config = cuda_lint_cpp::find_config(&paths);
    let settings = match config.as_deref().map(cuda_lint_cpp::load_settings) {
        None => Ok(cuda_lint_cpp::Settings::default()),
        Some(loaded) => loaded,
    };
    let mut report = match settings {
        Ok(mut settings) => {
            // Flags on the command line come after the file's levels, as with rustc's.
            settings.levels = settings.levels.with_flags(&lint_flags);
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
