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
    --cuda-sources      Also check the CUDA C++ host code the packages ship (.cu, .cuh, .cpp,
                        .cc, .cxx, .c, .h, .hpp under each package's directory) with the
                        C++ front end (`cuda-lint check`): same lints, levels and report
                        (with --message-format=json, cargo JSON messages on stdout)
    --fix               Apply the machine-applicable suggestions (through `cargo fix`, as
                        `cargo clippy --fix` does); refuses on a dirty tree unless
                        --allow-dirty (or --allow-staged, --allow-no-vcs)

Every other option is passed to `cargo check` (`cargo fix` with --fix), e.g. -p, --all-targets.
Lint flags after `--` work as with clippy, for lints and groups:
    cargo cuda-lint -- -D cuda_lint::pageable_async_copy -A cuda_lint::missing_sync
    cargo cuda-lint -- -A cuda_lint::perf -W cuda_lint::pedantic
Groups: cuda_lint::correctness (stale data, crashes, faults), cuda_lint::perf (slow but right),
cuda_lint::pedantic (cuda_lint::unverified: what could not be checked, allow by default),
cuda_lint::all (every group but pedantic). The same names work in #[allow(..)] and in
cuda-lint.toml:
    [lints]
    perf = \"allow\"
    [perf]
    min-copy-bytes = 65536    # copies of a known size under this are not reported (default 64 KiB)
    in-tests = false          # no perf findings in #[test] code, tests/, benches/, examples/

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
    let cuda_sources = cargo_args.iter().any(|a| a == "--cuda-sources");
    if fix && cuda_sources {
        eprintln!("error: `--fix` applies Rust suggestions only; run it without `--cuda-sources`");
        return ExitCode::from(2);
    }
    let cargo_args: Vec<String> = cargo_args
        .iter()
        .filter(|a| *a != "--fix" && *a != "--cuda-sources")
        .cloned()
        .collect();
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

    // The C++ sources are found before cargo runs, so that a bad selection stops early.
    let cuda_source_files = if cuda_sources {
        let Some(dirs) = &dirs else {
            eprintln!("error: `--cuda-sources` needs the workspace's packages, and `cargo metadata` failed");
            return ExitCode::from(2);
        };
        match cuda_source_dirs(cargo_args, dirs).and_then(|d| cuda_lint_cpp::source_files(&d)) {
            // Shown relative to the current directory, as cargo shows the Rust ones.
            Ok(files) => {
                let here = env::current_dir().unwrap_or_default();
                Some(
                    files
                        .into_iter()
                        .map(|f| f.strip_prefix(&here).map(Path::to_path_buf).unwrap_or(f))
                        .collect::<Vec<_>>(),
                )
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    } else {
        None
    };

    // cuda-lint.toml: its levels come before the flags after `--`, which win.
    let mut flags = Vec::new();
    let mut cpp_settings = cuda_lint_cpp::Settings::default();
    if let Some(dirs) = &dirs {
        let path = dirs.root.join(config::FILE_NAME);
        if path.is_file() {
            match config::load(&path) {
                Ok(config) => {
                    if cuda_source_files.is_some() {
                        cpp_settings = cuda_lint_cpp::Settings::from_config(&config);
                    }
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
    // The file's levels first: the driver tells them from the flags after `--` by the file, to
    // say where each level is written.
    cmd.env("CUDA_LINT_ARGS", cuda_lint_protocol::driver_args::join(&flags));

    // Keep the user's own build cache untouched: lint artifacts go to <target>/cuda-lint.
    let has_target_dir =
        cargo_args.iter().any(|a| a.starts_with("--target-dir")) || env::var_os("CARGO_TARGET_DIR").is_some();
    if !has_target_dir && let Some(dirs) = &dirs {
        cmd.env("CARGO_TARGET_DIR", dirs.target.join("cuda-lint"));
    }

    let workspace_root = dirs
        .as_ref()
        .map(|d| d.root.clone())
        .or_else(|| env::current_dir().ok())
        .unwrap_or_default();
    // The C++ front end, with the same levels (`cuda-lint.toml`, then the flags after `--`).
    let cpp = cuda_source_files.map(|files| {
        // The flags after `--` come after the file's levels, and win.
        cpp_settings.levels = cuda_lint_cpp::Levels::from_flags(&flags);
        let report = cuda_lint_cpp::check_files_with(&files, &cpp_settings);
        (files.len(), report)
    });
    let status = match report {
        None => {
            let json = json_rendering(cargo_args);
            // With cargo's JSON, the C++ findings are messages of the same shape on stdout
            // (before cargo's own), so that rust-analyzer and other readers of it show them.
            if let (Some(rendered), Some((_, report)), Some(dirs)) = (json, &cpp, &dirs) {
                let here = env::current_dir().unwrap_or_default();
                let mut stdout = std::io::stdout().lock();
                for line in cpp_json_messages(report, rendered, &here, dirs) {
                    let _ = writeln!(stdout, "{line}");
                }
                let _ = stdout.flush();
            }
            let status = cmd.status();
            if let Some((count, report)) = &cpp {
                for p in &report.problems {
                    eprintln!("{}: {p}", p.severity());
                }
                if json.is_none() || dirs.is_none() {
                    eprint!(
                        "{}",
                        cuda_lint_cpp::render_human(report, std::io::stderr().is_terminal())
                    );
                }
                eprintln!("cuda-lint: {count} CUDA C++ file(s) checked, {}", cpp_summary(report));
            }
            status
        }
        Some(format) => run_report(cmd, format, &workspace_root, cpp.as_ref().map(|(_, r)| r)),
    };
    let cpp_failed = cpp.as_ref().is_some_and(|(_, r)| r.has_errors());
    match status {
        // A deny-level finding in C++ fails the run as one in Rust does (cargo's 101).
        Ok(status) if status.success() && cpp_failed => ExitCode::from(101),
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
fn run_report(
    mut cmd: Command,
    format: Format,
    workspace_root: &Path,
    cpp: Option<&cuda_lint_cpp::Report>,
) -> std::io::Result<ExitStatus> {
    // Paths relative to the CI checkout when the workspace lies inside it, else to the
    // workspace root: the rule `cuda-lint check` follows too.
    let root = output::report_root(workspace_root, &[]);
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
    if let Some(cpp) = cpp {
        for p in &cpp.problems {
            eprintln!("{}: {p}", p.severity());
        }
        // The C++ files are named relative to the current directory.
        let here = env::current_dir().unwrap_or_default();
        findings.extend(cuda_lint_cpp::ci_findings(cpp, &here, &root));
    }
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

/// The directories whose C++ sources `--cuda-sources` checks: the packages cargo checks
/// (`-p`/`--package`, `--workspace`/`--all`, else the package of the current directory, else
/// the default members).
fn cuda_source_dirs(
    cargo_args: &[String],
    dirs: &cuda_lint_protocol::driver_args::WorkspaceDirs,
) -> Result<Vec<PathBuf>, String> {
    let mut named = Vec::new();
    let mut args = cargo_args.iter();
    let mut all = false;
    while let Some(a) = args.next() {
        if a == "-p" || a == "--package" {
            named.extend(args.next().cloned());
        } else if let Some(v) = a.strip_prefix("--package=").or_else(|| a.strip_prefix("-p")) {
            named.push(v.to_string());
        } else if a == "--workspace" || a == "--all" {
            all = true;
        }
    }
    if all {
        return Ok(dirs.members.iter().map(|m| m.dir.clone()).collect());
    }
    if !named.is_empty() {
        return named
            .iter()
            .map(|n| {
                // `-p name@version` and `-p name:version` name the package too.
                let bare = n.split(['@', ':']).next().unwrap_or(n);
                dirs.members
                    .iter()
                    .find(|m| m.name == bare)
                    .map(|m| m.dir.clone())
                    .ok_or_else(|| format!("`--cuda-sources`: package `{n}` is not a member of the workspace"))
            })
            .collect();
    }
    let here = env::current_dir().unwrap_or_default();
    // The innermost member whose directory holds the current one, unless that is the root of
    // a workspace whose root is no package.
    if let Some(member) = dirs
        .members
        .iter()
        .filter(|m| here.starts_with(&m.dir))
        .max_by_key(|m| m.dir.components().count())
    {
        return Ok(vec![member.dir.clone()]);
    }
    Ok(dirs
        .members
        .iter()
        .filter(|m| m.default)
        .map(|m| m.dir.clone())
        .collect())
}

/// How cargo's JSON messages render a diagnostic, when `--message-format` asks for JSON
/// messages on stdout (`json`, `json-diagnostic-short`, `json-diagnostic-rendered-ansi`, alone
/// or combined); `None` for cargo's human output and for `json-render-diagnostics` (cargo then
/// renders diagnostics itself, on stderr).
fn json_rendering(cargo_args: &[String]) -> Option<cuda_lint_cpp::Rendered> {
    let mut values = Vec::new();
    let mut args = cargo_args.iter();
    while let Some(a) = args.next() {
        if a == "--" {
            break;
        } else if a == "--message-format" {
            values.extend(args.next().into_iter().flat_map(|v| v.split(',')));
        } else if let Some(v) = a.strip_prefix("--message-format=") {
            values.extend(v.split(','));
        }
    }
    let values: Vec<&str> = values.into_iter().map(str::trim).collect();
    if !values.iter().any(|v| v.starts_with("json")) || values.contains(&"json-render-diagnostics") {
        return None;
    }
    Some(if values.contains(&"json-diagnostic-short") {
        cuda_lint_cpp::Rendered::Short
    } else if values.contains(&"json-diagnostic-rendered-ansi") {
        cuda_lint_cpp::Rendered::Ansi
    } else {
        cuda_lint_cpp::Rendered::Human
    })
}

/// The C++ findings as cargo's `compiler-message` lines, each naming the workspace member whose
/// directory holds its file (the innermost), with file names relative to the workspace root as
/// rustc's are.
fn cpp_json_messages(
    report: &cuda_lint_cpp::Report,
    rendered: cuda_lint_cpp::Rendered,
    here: &Path,
    dirs: &cuda_lint_protocol::driver_args::WorkspaceDirs,
) -> Vec<String> {
    cuda_lint_cpp::rustc_diagnostics(report, rendered, here, &dirs.root)
        .into_iter()
        .filter_map(|(file, message)| {
            let file = here.join(file);
            let member = dirs
                .members
                .iter()
                .filter(|m| file.starts_with(&m.dir))
                .max_by_key(|m| m.dir.components().count())
                .or(dirs.members.first())?;
            let line = serde_json::json!({
                "reason": "compiler-message",
                "package_id": member.id,
                "manifest_path": member.manifest_path,
                "target": member.target,
                "message": message,
            });
            Some(line.to_string())
        })
        .collect()
}

fn cpp_summary(report: &cuda_lint_cpp::Report) -> String {
    let (errors, warnings) = report.counts();
    format!("{errors} error(s), {warnings} warning(s)")
}
