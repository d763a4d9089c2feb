//! `cargo cuda-lint`: runs `cargo check` with `cuda-lint-driver` as the rustc wrapper, the way
//! `cargo clippy` runs `clippy-driver`.
//!
//! It links no part of rustc: what it needs (the lints, their docs, the configuration, the report
//! formats) is in the stable crates `cuda_lint_machine` and `cuda_lint_protocol`.
#![warn(rust_2018_idioms, unused_lifetimes)]

use std::env;
use std::io::{BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, ExitStatus, Stdio};

use cargo_metadata::Message;
use cuda_lint_machine::lints::{LINTS, explain};
use cuda_lint_protocol::config;
use cuda_lint_protocol::output::{self, Classified, Format};

const HELP: &str = "\
Checks a package with cuda-lint: CUDA memory misuse in Rust host code.

Usage:
    cargo cuda-lint [OPTIONS] [CARGO CHECK OPTIONS] [-- LINT FLAGS]

Options:
    --explain LINT      Print the documentation of a lint and exit
    --list              List the lints with their default levels and exit
    -h, --help          Print this message
    -V, --version       Print the version
    --message-format FMT
                        human (default), short, json, json-diagnostic-*: cargo's own output;
                        sarif, github, gitlab: a report of cuda-lint's findings on stdout
                        (SARIF 2.1.0, GitHub workflow commands, GitLab Code Quality JSON)
    --fix               Apply the machine-applicable suggestions (through `cargo fix`, as
                        `cargo clippy --fix` does); refuses on a dirty tree unless
                        --allow-dirty (or --allow-staged, --allow-no-vcs)

Every other option is passed to `cargo check` (`cargo fix` with --fix), e.g. -p, --all-targets.
Lint flags after `--` work as with clippy:
    cargo cuda-lint -- -D cuda_lint::pageable_async_copy -A cuda_lint::missing_sync

In source, with `[lints.rust] unexpected_cfgs = { level = \"warn\", check-cfg = ['cfg(cuda_lint)'] }`
in Cargo.toml so that plain builds stay warning-free:
    #[cfg_attr(cuda_lint, allow(cuda_lint::missing_sync))]
";

fn main() -> ExitCode {
    // `cargo cuda-lint ...` runs `cargo-cuda-lint cuda-lint ...`.
    let args: Vec<String> = env::args().skip(2).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        print!("{HELP}");
        return ExitCode::SUCCESS;
    }
    if args.iter().any(|a| a == "--version" || a == "-V") {
        println!("cargo-cuda-lint {}", env!("CARGO_PKG_VERSION"));
        return ExitCode::SUCCESS;
    }
    if args.iter().any(|a| a == "--list") {
        for info in LINTS {
            println!(
                "{:<36} {:<5} {}",
                info.full_name(),
                info.default_level.as_str(),
                info.desc
            );
        }
        return ExitCode::SUCCESS;
    }
    if let Some(pos) = args.iter().position(|a| a == "--explain") {
        let Some(name) = args.get(pos + 1) else {
            eprintln!("error: `--explain` needs a lint name; `cargo cuda-lint --list` lists them");
            return ExitCode::from(2);
        };
        return match explain(name) {
            Some(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            None => {
                eprintln!(
                    "error: unknown lint `{name}`; the lints are: {}",
                    LINTS.iter().map(|l| l.full_name()).collect::<Vec<_>>().join(", ")
                );
                ExitCode::from(2)
            }
        };
    }

    let (cargo_args, lint_flags) = match args.iter().position(|a| a == "--") {
        Some(pos) => (&args[..pos], &args[pos + 1..]),
        None => (&args[..], &[][..]),
    };
    let (report, cargo_args) = match output::split_message_format(cargo_args) {
        Ok(split) => split,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    // `--fix`: `cargo fix` runs itself as the rustc wrapper, so the driver is the workspace
    // wrapper (dependencies are compiled by plain rustc: the macros stay inactive).
    let fix = cargo_args.iter().any(|a| a == "--fix");
    if fix && report.is_some() {
        eprintln!("error: `--fix` prints cargo's own output; it cannot be combined with a report format");
        return ExitCode::from(2);
    }
    let cargo_args: Vec<String> = cargo_args.iter().filter(|a| *a != "--fix").cloned().collect();
    let cargo_args = &cargo_args[..];

    let driver = match env::current_exe() {
        Ok(exe) => exe.with_file_name("cuda-lint-driver"),
        Err(e) => {
            eprintln!("error: cannot locate cuda-lint-driver next to cargo-cuda-lint: {e}");
            return ExitCode::from(2);
        }
    };
    if !driver.exists() {
        eprintln!(
            "error: {} is missing; install both binaries with `cargo install --path lint`",
            driver.display()
        );
        return ExitCode::from(2);
    }

    // The toolchain's own cargo: the one the driver is built with (and no rustup proxy).
    let sysroot = PathBuf::from(env!("CUDA_LINT_SYSROOT"));
    let toolchain_cargo = sysroot.join("bin").join("cargo");
    let cargo = if toolchain_cargo.exists() {
        toolchain_cargo.into_os_string()
    } else {
        env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
    };
    let mut cmd = Command::new(cargo);
    if fix {
        cmd.arg("fix")
            .args(cargo_args)
            .env("RUSTC_WORKSPACE_WRAPPER", &driver)
            .env_remove("CUDA_LINT_ACTIVE");
    } else {
        cmd.arg("check")
            .args(cargo_args)
            // Every crate goes through the driver (dependencies too, for the tools their
            // effect summaries need); it lints the primary packages only.
            .env("RUSTC_WRAPPER", &driver)
            .env_remove("RUSTC_WORKSPACE_WRAPPER")
            // The `cuda_lint` macros write their effect summaries only when this is set.
            .env("CUDA_LINT_ACTIVE", "1");
    }
    cmd
        // Dependencies must be compiled by the same rustc the driver is built on.
        .env("RUSTC", sysroot.join("bin").join("rustc"))
        .env("RUSTUP_TOOLCHAIN", env!("CUDA_LINT_TOOLCHAIN"));
    let dirs = cuda_lint_protocol::driver_args::workspace_dirs(&cmd);

    // cuda-lint.toml: its levels come before the flags after `--`, which win.
    let mut flags = Vec::new();
    if let Some(dirs) = &dirs {
        let path = dirs.root.join(config::FILE_NAME);
        if path.is_file() {
            match config::load(&path) {
                Ok(config) => {
                    flags.extend(config.lint_flags);
                    cmd.env(config::ENV_VAR, &path);
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            }
        }
    }
    flags.extend(lint_flags.iter().cloned());
    cmd.env("CUDA_LINT_ARGS", cuda_lint_protocol::driver_args::join(&flags));

    // Keep the user's own build cache untouched: lint artifacts go to <target>/cuda-lint.
    let has_target_dir =
        cargo_args.iter().any(|a| a.starts_with("--target-dir")) || env::var_os("CARGO_TARGET_DIR").is_some();
    if !has_target_dir && let Some(dirs) = &dirs {
        cmd.env("CARGO_TARGET_DIR", dirs.target.join("cuda-lint"));
    }

    let workspace_root = dirs
        .map(|d| d.root)
        .or_else(|| env::current_dir().ok())
        .unwrap_or_default();
    let status = match report {
        None => cmd.status(),
        Some(format) => run_report(cmd, format, &workspace_root),
    };
    match status {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        Ok(status) => ExitCode::from(status.code().unwrap_or(101).clamp(1, 255) as u8),
        Err(e) => {
            eprintln!("error: could not run cargo: {e}");
            ExitCode::from(2)
        }
    }
}

/// Runs `cmd` with JSON diagnostics and writes the `format` report of cuda-lint's findings to
/// stdout, and nothing else: other diagnostics go to stderr as rustc renders them, and cargo's
/// own progress and errors go to stderr as always. Returns cargo's exit status.
fn run_report(mut cmd: Command, format: Format, workspace_root: &Path) -> std::io::Result<ExitStatus> {
    let root = report_root(workspace_root);
    let json = if std::io::stderr().is_terminal() {
        "json-diagnostic-rendered-ansi"
    } else {
        "json"
    };
    cmd.arg(format!("--message-format={json}")).stdout(Stdio::piped());
    let mut child = cmd.spawn()?;
    let stdout = child.stdout.take().expect("cargo's stdout is piped");
    let mut findings = Vec::new();
    for message in Message::parse_stream(BufReader::new(stdout)) {
        let message = match message {
            Ok(message) => message,
            Err(e) => {
                eprintln!("error: reading cargo's output: {e}");
                break;
            }
        };
        match output::classify(message, workspace_root, &root) {
            Classified::Finding(finding) => findings.push(finding),
            Classified::Other(text) => eprint!("{text}"),
            Classified::Ignored => {}
        }
    }
    let status = child.wait()?;
    // One diagnostic may come from two targets of a crate (its lib and its tests).
    findings.sort();
    findings.dedup();
    let report = format.emit(&findings, &root);
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(report.as_bytes())?;
    stdout.flush()?;
    let errors = findings.iter().filter(|f| f.level == output::Level::Error).count();
    eprintln!(
        "cuda-lint: {} finding(s) ({errors} error(s), {} warning(s)) in the {} report",
        findings.len(),
        findings.len() - errors,
        format.name()
    );
    Ok(status)
}

/// Paths in reports are relative to the repository: the CI's checkout directory
/// (`GITHUB_WORKSPACE`, `CI_PROJECT_DIR`) when the workspace lies inside it, else the workspace
/// root.
fn report_root(workspace_root: &Path) -> PathBuf {
    ["GITHUB_WORKSPACE", "CI_PROJECT_DIR"]
        .into_iter()
        .filter_map(env::var_os)
        .map(PathBuf::from)
        .find(|dir| dir.is_absolute() && workspace_root.starts_with(dir))
        .unwrap_or_else(|| workspace_root.to_path_buf())
}
