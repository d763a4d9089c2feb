//! `cargo cuda-lint`: runs `cargo check` with `cuda-lint-driver` as the workspace wrapper, the
//! way `cargo clippy` runs `clippy-driver`.
#![feature(rustc_private)]
#![warn(rust_2018_idioms, unused_lifetimes)]

// Links the compiler's shared library the lint crate needs.
#[allow(unused_extern_crates)]
extern crate rustc_driver;

use std::env;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

const HELP: &str = "\
Checks a package with cuda-lint: CUDA memory misuse in Rust host code.

Usage:
    cargo cuda-lint [OPTIONS] [CARGO CHECK OPTIONS] [-- LINT FLAGS]

Options:
    --explain LINT      Print the documentation of a lint and exit
    --list              List the lints with their default levels and exit
    -h, --help          Print this message
    -V, --version       Print the version

Every other option is passed to `cargo check` (e.g. -p, --all-targets, --message-format=json).
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
        for info in cuda_lint_engine::LINTS {
            println!("{:<36} {:<5} {}", info.name(), info.default_level(), info.lint.desc);
        }
        return ExitCode::SUCCESS;
    }
    if let Some(pos) = args.iter().position(|a| a == "--explain") {
        let Some(name) = args.get(pos + 1) else {
            eprintln!("error: `--explain` needs a lint name; `cargo cuda-lint --list` lists them");
            return ExitCode::from(2);
        };
        return match cuda_lint_engine::explain(name) {
            Some(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            None => {
                eprintln!(
                    "error: unknown lint `{name}`; the lints are: {}",
                    cuda_lint_engine::LINTS
                        .iter()
                        .map(|l| l.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                ExitCode::from(2)
            }
        };
    }

    let (cargo_args, lint_flags) = match args.iter().position(|a| a == "--") {
        Some(pos) => (&args[..pos], &args[pos + 1..]),
        None => (&args[..], &[][..]),
    };

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

    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let sysroot = PathBuf::from(env!("CUDA_LINT_SYSROOT"));
    let mut cmd = Command::new(cargo);
    cmd.arg("check")
        .args(cargo_args)
        .env("RUSTC_WORKSPACE_WRAPPER", &driver)
        .env("CUDA_LINT_ARGS", cuda_lint_engine::driver_args::join(lint_flags))
        // Dependencies must be compiled by the same rustc the driver is built on.
        .env("RUSTC", sysroot.join("bin").join("rustc"))
        .env("RUSTUP_TOOLCHAIN", env!("CUDA_LINT_TOOLCHAIN"));
    // Keep the user's own build cache untouched: lint artifacts go to <target>/cuda-lint.
    let has_target_dir =
        cargo_args.iter().any(|a| a.starts_with("--target-dir")) || env::var_os("CARGO_TARGET_DIR").is_some();
    if !has_target_dir && let Some(dir) = cuda_lint_engine::driver_args::workspace_target_dir(&cmd) {
        cmd.env("CARGO_TARGET_DIR", dir.join("cuda-lint"));
    }

    match cmd.status() {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        Ok(status) => ExitCode::from(status.code().unwrap_or(101).clamp(1, 255) as u8),
        Err(e) => {
            eprintln!("error: could not run cargo: {e}");
            ExitCode::from(2)
        }
    }
}
