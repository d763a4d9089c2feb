//! `cuda-lint check [--message-format human|short|json] [PATH...]`: checks the CUDA C++ host
//! code under each path (the current directory by default). Exit status: 0 when no finding is an
//! error, 1 when one is, 2 for a usage error.

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: cuda-lint check [--message-format human|short|json|sarif|github|gitlab] [-W|-A|-D LINT]... [PATH...]\n\
                     checks the CUDA C++ host code in the .cu, .cuh, .cpp, .cc, .cxx, .c, .h and .hpp files under each path\n\
                     -W/-A/-D LINT: warn about, allow or deny a lint or a group (correctness, perf, pedantic, all),\n\
                     \x20   after cuda-lint.toml's [lints]: -D cuda_lint::perf, -W cuda_lint::unverified";

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
            return ExitCode::from(2);
        }
    }
    let mut format = "human".to_string();
    let mut paths = Vec::new();
    let mut lint_flags: Vec<String> = Vec::new();
    let mut rest = args[1..].iter();
    while let Some(a) = rest.next() {
        if let Some(letter) = ["-W", "-A", "-D", "-F"].into_iter().find(|l| a.starts_with(l)) {
            let name = match &a[2..] {
                "" => match rest.next() {
                    Some(n) => n.clone(),
                    None => {
                        eprintln!("error: `{letter}` needs a lint or group name");
                        return ExitCode::from(2);
                    }
                },
                attached => attached.to_string(),
            };
            if cuda_lint_machine::lints::lints_named(&name).is_none() {
                eprintln!(
                    "error: unknown lint or group `{name}`; the lints and groups are: {}",
                    cuda_lint_machine::lints::lint_and_group_names()
                );
                return ExitCode::from(2);
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
                    eprintln!("error: `--message-format` needs a value: human, short, json");
                    return ExitCode::from(2);
                }
            }
        } else if a.starts_with('-') {
            eprintln!("error: unknown option `{a}`\n{USAGE}");
            return ExitCode::from(2);
        } else {
            paths.push(PathBuf::from(a));
        }
    }
    let ci = cuda_lint_protocol::output::Format::from_name(&format);
    if !matches!(format.as_str(), "human" | "short" | "json") && ci.is_none() {
        eprintln!(
            "error: unknown message format `{format}`; the valid formats are: human, short, json, sarif, github, gitlab"
        );
        return ExitCode::from(2);
    }
    if paths.is_empty() {
        paths.push(PathBuf::from("."));
    }
    let files = match cuda_lint_cpp::source_files(&paths) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    // Levels and functions from cuda-lint.toml, when there is one; a mistake in it stops the run.
    let settings = match cuda_lint_cpp::find_config(&paths) {
        Some(path) => match cuda_lint_cpp::load_settings(&path) {
            Ok(settings) => settings,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        },
        None => cuda_lint_cpp::Settings::default(),
    };
    // Flags on the command line come after the file's levels, as with rustc's.
    let mut settings = settings;
    settings.levels = settings.levels.with_flags(&lint_flags);
    let report = cuda_lint_cpp::check_files_with(&files, &settings);
    for p in &report.problems {
        eprintln!("warning: {p}");
    }
    let here = std::env::current_dir().unwrap_or_default();
    // Paths relative to the CI checkout when the files lie inside it, else to here.
    let given: Vec<PathBuf> = files.iter().chain(&paths).cloned().collect();
    let root = cuda_lint_protocol::output::report_root(&here, &given);
    let text = match format.as_str() {
        _ if ci.is_some() => ci
            .map(|f| cuda_lint_cpp::render_ci(&report, f, &here, &root))
            .unwrap_or_default(),
        "short" => cuda_lint_cpp::render_short(&report),
        "json" => cuda_lint_cpp::render_json(&report),
        _ => cuda_lint_cpp::render_human(&report, false),
    };
    // A closed pipe (`| head`) ends the output quietly.
    {
        use std::io::Write as _;
        let _ = std::io::stdout().write_all(text.as_bytes());
    }
    if format == "human" {
        let (errors, warnings) = report.counts();
        eprintln!(
            "cuda-lint: {} file(s) checked, {errors} error(s), {warnings} warning(s)",
            files.len()
        );
    }
    if report.has_errors() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
