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
use cuda_lint_protocol::baseline::{self, Baseline};
use cuda_lint_protocol::config;
use cuda_lint_protocol::output::{self, Classified, Format};

/// The exit status of a run whose `--baseline` file is missing or malformed: nothing was
/// analysed (as `cuda-lint check`'s).
const EXIT_NOT_ANALYSED: u8 = 3;

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
    --write-baseline FILE
                        Record today's findings in FILE (JSON, one a line, to commit) and
                        report none of them
    --baseline FILE     Report only the findings FILE does not hold, in every message
                        format; they do not fail the run either. stderr says how many were
                        left out. A missing or malformed FILE stops the run (exit status 3).
                        Keys: lint, file relative to FILE's folder, enclosing function and
                        the names the message quotes, never a line (as `cuda-lint check`)
    --changed-since REV Report only the findings a change since the git revision REV is part
                        of: any step of the finding (the access, the allocation, copy,
                        launch or free it names) on a line changed since REV (committed,
                        staged, unstaged or untracked); the others do not fail the run.
                        stderr says how many were left out. A revision git does not know
                        stops the run (exit status 3). Combines with --baseline
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
    let (baseline_args, mut cargo_args) = match BaselineArgs::take(&cargo_args) {
        Ok(split) => split,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if baseline_args.any() && fix {
        eprintln!("error: `--fix` cannot be combined with `--baseline`, `--write-baseline` or `--changed-since`");
        return ExitCode::from(2);
    }
    if baseline_args.any() && cuda_sources {
        eprintln!(
            "error: `--baseline`, `--write-baseline` and `--changed-since` apply to the Rust findings \
             only; check the C++ with `cuda-lint check`"
        );
        return ExitCode::from(2);
    }
    // With a baseline, cargo's diagnostics pass through cargo-cuda-lint, which leaves out
    // those the baseline holds: cargo writes JSON, and the human output is rustc's rendering.
    let baselined_output = baseline_args.any().then(|| match report {
        Some(format) => BaselinedOutput::Report(format),
        None if json_rendering(&cargo_args).is_some() => BaselinedOutput::CargoJson,
        None => {
            let (short, rest) = without_message_format(&cargo_args);
            cargo_args = rest;
            BaselinedOutput::Human { short }
        }
    });
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
            .env("CUDA_LINT_FIX", "1")
            .env_remove("CUDA_LINT_ACTIVE");
    } else {
        cmd.arg("check")
            .args(cargo_args)
            // Every crate goes through the driver (dependencies too, for the tools their
            // effect summaries need); it lints the primary packages only.
            .env("RUSTC_WRAPPER", &driver)
            .env_remove("RUSTC_WORKSPACE_WRAPPER")
            .env_remove("CUDA_LINT_FIX")
            // The `cuda_lint` macros write their effect summaries only when this is set.
            .env("CUDA_LINT_ACTIVE", "1");
    }
    cmd
        // Dependencies must be compiled by the same rustc the driver is built on.
        .env("RUSTC", sysroot.join("bin").join("rustc"))
        .env("RUSTUP_TOOLCHAIN", env!("CUDA_LINT_TOOLCHAIN"))
        // Cargo keeps `rustc -vV`'s answer across runs, keyed on rustc, not on the driver: asked
        // again each run, the driver's answer names its build, so a new cuda-lint lints again
        // what an older one linted instead of replaying its messages.
        .env("CARGO_CACHE_RUSTC_INFO", "0");
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
    if let Some(out) = baselined_output {
        return run_baselined(cmd, out, &workspace_root, &baseline_args);
    }
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

/// `--baseline FILE`, `--write-baseline FILE` and `--changed-since REV` (or `=VALUE`), taken
/// out of cargo's arguments.
#[derive(Default)]
struct BaselineArgs {
    read: Option<PathBuf>,
    write: Option<PathBuf>,
    changed_since: Option<String>,
}

impl BaselineArgs {
    fn any(&self) -> bool {
        self.read.is_some() || self.write.is_some() || self.changed_since.is_some()
    }

    /// The flags and the rest of `args` (cargo's, before `--`).
    fn take(args: &[String]) -> Result<(BaselineArgs, Vec<String>), String> {
        let mut taken = BaselineArgs::default();
        let mut rest = Vec::with_capacity(args.len());
        let mut iter = args.iter();
        while let Some(arg) = iter.next() {
            let Some(flag) = ["--baseline", "--write-baseline", "--changed-since"]
                .into_iter()
                .find(|f| arg == f || arg.starts_with(&format!("{f}=")))
            else {
                rest.push(arg.clone());
                continue;
            };
            let value = match arg.strip_prefix(flag).and_then(|v| v.strip_prefix('=')) {
                Some(v) => Some(v.to_string()),
                None => iter.next().cloned(),
            };
            let value = value.filter(|v| !v.is_empty()).ok_or_else(|| {
                if flag == "--changed-since" {
                    format!("`{flag}` needs a git revision")
                } else {
                    format!("`{flag}` needs a file")
                }
            })?;
            let twice = match flag {
                "--baseline" => taken.read.replace(PathBuf::from(value)).is_some(),
                "--write-baseline" => taken.write.replace(PathBuf::from(value)).is_some(),
                _ => taken.changed_since.replace(value).is_some(),
            };
            if twice {
                return Err(format!("`{flag}` is given twice"));
            }
        }
        if taken.write.is_some() && taken.changed_since.is_some() {
            return Err(
                "`--write-baseline` records every finding: it cannot be combined with `--changed-since`".into(),
            );
        }
        if taken.read.is_some() && taken.write.is_some() {
            return Err(
                "`--baseline` and `--write-baseline` cannot be combined: `--write-baseline` records every finding"
                    .into(),
            );
        }
        Ok((taken, rest))
    }
}

/// Stops a run before cargo runs (a baseline that cannot be read, a revision git does not
/// know): says why on stderr and, in a report format, writes a failed run, never an empty one.
fn not_analysed(out: BaselinedOutput, why: output::Notification, what: &str, root: &Path) -> ExitCode {
    eprintln!("cuda-lint: nothing was checked: {what}");
    if let BaselinedOutput::Report(format) = out {
        let execution = output::Execution {
            notifications: vec![why],
            exit_code: Some(EXIT_NOT_ANALYSED.into()),
        };
        print!("{}", format.emit_run(&[], &execution, root));
    }
    ExitCode::from(EXIT_NOT_ANALYSED)
}

/// Whether a finding is part of a change: any span it names (the access, and the labelled steps
/// of its chain: the allocation, the copy or launch, the free), or any span of its notes and
/// suggestions, lies on a changed line.
fn touches_changed_lines(
    message: &cargo_metadata::diagnostic::Diagnostic,
    workspace_root: &Path,
    changed: &cuda_lint_protocol::changed::ChangedLines,
) -> bool {
    let spans = message
        .spans
        .iter()
        .chain(message.children.iter().flat_map(|c| c.spans.iter()));
    spans.into_iter().any(|span| {
        let file = Path::new(&span.file_name);
        let file = if file.is_absolute() {
            file.to_path_buf()
        } else {
            workspace_root.join(file)
        };
        changed.touches(&file, span.line_start as u64, span.line_end as u64)
    })
}

/// Where the findings of a run with a baseline go.
#[derive(Clone, Copy)]
enum BaselinedOutput {
    /// rustc's rendering on stderr, as cargo's `human` (or `short`) writes it.
    Human { short: bool },
    /// cargo's JSON messages on stdout, as the user asked for them.
    CargoJson,
    /// One of cuda-lint's reports on stdout.
    Report(Format),
}

/// cargo's arguments without `--message-format`, and whether it asked for `short`.
fn without_message_format(args: &[String]) -> (bool, Vec<String>) {
    let mut short = false;
    let mut rest = Vec::with_capacity(args.len());
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let value = if arg == "--message-format" {
            iter.next().cloned().unwrap_or_default()
        } else if let Some(v) = arg.strip_prefix("--message-format=") {
            v.to_string()
        } else {
            rest.push(arg.clone());
            continue;
        };
        short |= value.split(',').any(|v| v.trim() == "short");
    }
    (short, rest)
}

/// Runs cargo with JSON diagnostics and writes its output as `out` asks, without the
/// findings the baseline holds (`--baseline`) or any finding, recording them all
/// (`--write-baseline`). A finding left out does not fail the run: the exit status is cargo's,
/// unless every error cargo stopped on was left out. A baseline that cannot be read stops the
/// run before cargo runs (exit status 3, and a failed report in a report format).
fn run_baselined(mut cmd: Command, out: BaselinedOutput, workspace_root: &Path, args: &BaselineArgs) -> ExitCode {
    let here = env::current_dir().unwrap_or_default();
    let root = output::report_root(workspace_root, &[]);
    let baseline = match &args.read {
        Some(file) => match Baseline::read(file) {
            Ok(b) => Some(b),
            Err(e) => {
                eprintln!("error: {e}");
                let notification = output::Notification {
                    level: output::Level::Error,
                    message: e.message.clone(),
                    file: Some(output::relative_path(&file.to_string_lossy(), &here, &root)),
                    line: e.line,
                };
                return not_analysed(out, notification, "the baseline could not be read", &root);
            }
        },
        None => None,
    };
    let file = args.read.as_ref().or(args.write.as_ref());
    let key_root = file.map_or_else(|| here.clone(), |f| baseline::root_of(f, &here));
    // `--changed-since REV`: the lines changed since REV; a revision git does not know stops
    // the run as a baseline that cannot be read does.
    let changed = match &args.changed_since {
        Some(rev) => match cuda_lint_protocol::changed::ChangedLines::since(rev, &here) {
            Ok(changed) => Some(changed),
            Err(e) => {
                eprintln!("error: {e}");
                let notification = output::Notification {
                    level: output::Level::Error,
                    message: e,
                    file: None,
                    line: None,
                };
                return not_analysed(out, notification, "the changed lines could not be found", &root);
            }
        },
        None => None,
    };

    let rendered = if std::io::stderr().is_terminal() {
        "json-diagnostic-rendered-ansi"
    } else {
        "json"
    };
    match out {
        BaselinedOutput::Human { short: true } => {
            cmd.arg("--message-format=json-diagnostic-short");
        }
        BaselinedOutput::Human { short: false } | BaselinedOutput::Report(_) => {
            cmd.arg(format!("--message-format={rendered}"));
        }
        BaselinedOutput::CargoJson => {}
    }
    // A deny-level finding in the baseline still fails its crate in rustc: the others are
    // checked all the same.
    cmd.arg("--keep-going").stdout(Stdio::piped()).stderr(Stdio::piped());
    let functions_log = env::temp_dir().join(format!("cuda-lint-functions-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&functions_log);
    cmd.env(baseline::FUNCTIONS_LOG_VAR, &functions_log);
    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(e) => {
            eprintln!("error: could not run cargo: {e}");
            return ExitCode::from(2);
        }
    };
    // cargo's stderr (progress, its own errors) is passed on as it comes, but for the line
    // saying that a crate did not compile, held back until it is known whether only findings
    // of the baseline made it fail.
    let stderr = child.stderr.take().expect("cargo's stderr is piped");
    let stderr = std::thread::spawn(move || {
        use std::io::BufRead;
        let mut held = Vec::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.starts_with("error: could not compile") || line.contains("build failed") {
                held.push(line);
            } else {
                eprintln!("{line}");
            }
        }
        held
    });
    let stdout = child.stdout.take().expect("cargo's stdout is piped");
    let lines: Vec<String> = {
        use std::io::BufRead;
        BufReader::new(stdout).lines().map_while(Result::ok).collect()
    };
    let status = child.wait();
    let held = stderr.join().unwrap_or_default();
    let messages: Vec<Option<Message>> = lines.iter().map(|l| serde_json::from_str(l).ok()).collect();

    // Where the functions of the crates cargo checked lie, from the driver's tables: those it
    // wrote in this run, and those of the crates cargo found fresh (beside their metadata).
    let mut functions = Vec::new();
    let written = std::fs::read_to_string(&functions_log).unwrap_or_default();
    let _ = std::fs::remove_file(&functions_log);
    for table in written.lines() {
        functions.extend(baseline::read_functions(Path::new(table)));
    }
    for message in messages.iter().flatten() {
        if let Message::CompilerArtifact(artifact) = message {
            for rmeta in artifact.filenames.iter().filter(|f| f.extension() == Some("rmeta")) {
                if let Some(table) = baseline::functions_file_of(rmeta.as_std_path()) {
                    functions.extend(baseline::read_functions(&table));
                }
            }
        }
    }
    // The findings, once each (a crate's lib and tests report the same one), in a fixed
    // order, with their keys.
    let finding_of = |m: &Option<Message>| match m {
        Some(Message::CompilerMessage(msg)) => output::finding(&msg.message, workspace_root, &root),
        _ => None,
    };
    let mut unique: Vec<(output::Finding, baseline::Key, bool)> = Vec::new();
    let mut without_function = 0;
    for message in &messages {
        let (Some(finding), Some(Message::CompilerMessage(msg))) = (finding_of(message), message) else {
            continue;
        };
        if unique.iter().any(|(f, _, _)| *f == finding) {
            continue;
        }
        let Some((file_name, at)) = output::primary_site(&msg.message, workspace_root, &root) else {
            continue;
        };
        let function = baseline::enclosing_function(&functions, &file_name, at);
        without_function += usize::from(function.is_none());
        let key = baseline::Key::new(
            &finding.code,
            &baseline::key_path(&file_name, workspace_root, &key_root),
            function,
            &finding.message,
        );
        let changed_here = changed
            .as_ref()
            .is_none_or(|changed| touches_changed_lines(&msg.message, workspace_root, changed));
        unique.push((finding, key, changed_here));
    }
    unique.sort_by(|a, b| a.0.cmp(&b.0));
    let keys: Vec<baseline::Key> = unique.iter().map(|(_, k, _)| k.clone()).collect();
    let (mut new, mut said) = match (&baseline, file) {
        (Some(baseline), Some(file)) => {
            let applied = baseline.apply(&keys);
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
            (applied.new, said)
        }
        (None, Some(file)) if args.write.is_some() => {
            let recorded = Baseline::from_keys(&keys);
            if let Err(e) = recorded.write(file) {
                eprintln!("error: {e}");
                return ExitCode::from(EXIT_NOT_ANALYSED);
            }
            let said = format!(
                "cuda-lint: {} written to the baseline {}",
                findings(recorded.len()),
                file.display()
            );
            (vec![false; keys.len()], said)
        }
        _ => (vec![true; keys.len()], String::new()),
    };
    if let Some(rev) = &args.changed_since {
        let mut outside = 0;
        for (shown, (_, _, changed_here)) in new.iter_mut().zip(&unique) {
            if *shown && !changed_here {
                *shown = false;
                outside += 1;
            }
        }
        if !said.is_empty() {
            said.push('\n');
        }
        said.push_str(&format!(
            "cuda-lint: {} outside the lines changed since {rev} {} not reported",
            findings(outside),
            if outside == 1 { "was" } else { "were" }
        ));
    }
    let left_out: Vec<&output::Finding> = unique
        .iter()
        .zip(&new)
        .filter(|(_, n)| !**n)
        .map(|((f, _, _), _)| f)
        .collect();
    let is_left_out = |m: &Option<Message>| finding_of(m).is_some_and(|f| left_out.contains(&&f));
    // rustc's closing line for a crate with errors ("aborting due to 1 previous error").
    let is_aborting = |m: &Option<Message>| {
        matches!(m, Some(Message::CompilerMessage(msg))
            if msg.message.spans.is_empty() && msg.message.message.starts_with("aborting due to"))
    };
    let is_error = |m: &Option<Message>| {
        matches!(m, Some(Message::CompilerMessage(msg))
            if matches!(msg.message.level, cargo_metadata::diagnostic::DiagnosticLevel::Error
                | cargo_metadata::diagnostic::DiagnosticLevel::Ice))
    };
    let new_errors = messages
        .iter()
        .filter(|m| is_error(m) && !is_aborting(m) && !is_left_out(m))
        .count();
    let left_out_errors = messages.iter().filter(|m| is_error(m) && is_left_out(m)).count();
    let shown = |m: &Option<Message>| !is_left_out(m) && !(new_errors == 0 && is_aborting(m));

    let mut stdout = std::io::stdout().lock();
    match out {
        BaselinedOutput::CargoJson => {
            for (line, message) in lines.iter().zip(&messages) {
                if shown(message) {
                    let _ = writeln!(stdout, "{line}");
                }
            }
        }
        BaselinedOutput::Human { .. } => {
            for (line, message) in lines.iter().zip(&messages) {
                match message {
                    Some(Message::CompilerMessage(msg)) if shown(message) => {
                        let text = msg
                            .message
                            .rendered
                            .clone()
                            .unwrap_or_else(|| msg.message.message.clone());
                        eprint!("{text}");
                        if !text.ends_with('\n') {
                            eprintln!();
                        }
                    }
                    Some(_) => {}
                    None if line.trim().is_empty() => {}
                    None => {
                        let _ = writeln!(stdout, "{line}");
                    }
                }
            }
        }
        BaselinedOutput::Report(format) => {
            let mut reported = Vec::new();
            for (line, message) in lines.iter().zip(&messages) {
                let Some(message) = message else {
                    if !line.trim().is_empty() {
                        eprintln!("{line}");
                    }
                    continue;
                };
                if !shown(&Some(message.clone())) {
                    continue;
                }
                match output::classify(message.clone(), workspace_root, &root) {
                    Classified::Finding(finding) => reported.push(finding),
                    Classified::Other(text) => eprint!("{text}"),
                    Classified::Ignored => {}
                }
            }
            reported.sort();
            reported.dedup();
            let _ = stdout.write_all(format.emit(&reported, &root).as_bytes());
            let errors = reported.iter().filter(|f| f.level == output::Level::Error).count();
            eprintln!(
                "cuda-lint: {} finding(s) ({errors} error(s), {} warning(s)) in the {} report",
                reported.len(),
                reported.len() - errors,
                format.name()
            );
        }
    }
    let _ = stdout.flush();
    drop(stdout);
    let status = match status {
        Ok(status) => status,
        Err(e) => {
            eprintln!("error: could not run cargo: {e}");
            return ExitCode::from(2);
        }
    };
    // cargo failed on errors that were all findings of the baseline: a clean run.
    let cleared = !status.success() && new_errors == 0 && left_out_errors > 0;
    if !cleared {
        for line in &held {
            eprintln!("{line}");
        }
    }
    if without_function > 0 {
        eprintln!(
            "cuda-lint: warning: the function of {} is not known (its crate was checked by an older \
             cuda-lint-driver: `cargo clean` and run again); its key has no function",
            findings(without_function)
        );
    }
    eprintln!("{said}");
    match status {
        s if s.success() || cleared => ExitCode::SUCCESS,
        s => ExitCode::from(s.code().unwrap_or(101).clamp(1, 255) as u8),
    }
}

fn findings(n: usize) -> String {
    if n == 1 {
        "1 finding".to_string()
    } else {
        format!("{n} findings")
    }
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
