//! UI tests: every `.rs` under `ui-tests/ui/` is compiled by `cuda-lint-driver`, its
//! diagnostics checked against `//~ lint_name` annotations and its `.stderr` file.
//!
//! `cargo test -p cuda-lint --test ui` runs them; `... -- --bless` (or `RUSTC_BLESS=1`) rewrites
//! the `.stderr` files; `TESTNAME=missing_sync` runs the files whose path contains that.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use ui_test::dependencies::DependencyBuilder;
use ui_test::spanned::Spanned;
use ui_test::status_emitter::StatusEmitter;
use ui_test::{Args, Config, error_on_output_conflict};

fn config(args: &Args) -> Config {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("lint/ has a parent");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo.join("target"));
    let mut config = Config {
        output_conflict_handling: error_on_output_conflict,
        filter_files: std::env::var("TESTNAME")
            .map(|t| t.split(',').filter(|s| !s.is_empty()).map(String::from).collect())
            .unwrap_or_default(),
        bless_command: Some("cargo test -p cuda-lint --test ui -- --bless".into()),
        out_dir: target.join("ui_test"),
        ..Config::rustc(repo.join("ui-tests").join("ui"))
    };
    let defaults = config.comment_defaults.base();
    defaults.set_custom("edition", ui_test::custom_flags::edition::Edition("2024".into()));
    defaults.set_custom(
        "dependencies",
        DependencyBuilder {
            crate_manifest_path: repo.join("ui-tests").join("Cargo.toml"),
            ..DependencyBuilder::default()
        },
    );
    // Paths in `.stderr` files are relative to the repository, wherever it is cloned.
    defaults
        .normalize_stderr
        .push((ui_test::Match::from(repo), b"$REPO".to_vec()));
    defaults.exit_status = None.into();
    defaults.require_annotations = Some(Spanned::dummy(true)).into();
    defaults.diagnostic_code_prefix = Some(Spanned::dummy("cuda_lint::".into())).into();
    defaults.set_custom(
        "rustfix",
        ui_test::custom_flags::rustfix::RustfixMode::MachineApplicable,
    );
    config.with_args(args);
    config.program.program = PathBuf::from(env!("CARGO_BIN_EXE_cuda-lint-driver"));
    config.program.args.extend(
        [
            "--emit=metadata",
            "-Aunused",
            "-Zui-testing",
            "-Zdeduplicate-diagnostics=no",
            "-Dwarnings",
        ]
        .map(OsString::from),
    );
    // No `rustc-ice-*` files: the console output is enough.
    config.program.envs.push(("RUSTC_ICE".into(), Some("0".into())));
    // As under `cargo cuda-lint`: the `cuda_lint` macros write their effect summaries.
    config.program.envs.push(("CUDA_LINT_ACTIVE".into(), Some("1".into())));
    config
}

fn main() -> ui_test::Result<()> {
    let mut args = Args::test()?;
    args.bless |= std::env::var_os("RUSTC_BLESS").is_some_and(|v| v != "0");
    let config = config(&args);
    ui_test::run_tests_generic(
        vec![config],
        ui_test::default_file_filter,
        ui_test::default_per_file_config,
        Box::<dyn StatusEmitter>::from(args.format),
    )
}
