//! `cuda-lint-driver`: rustc with cuda-lint's lints registered.
//!
//! Cargo runs it as `RUSTC_WRAPPER` (set by `cargo cuda-lint`), so it is called as
//! `cuda-lint-driver <path/to/rustc> <rustc args>` for every crate of the build. It lints the
//! packages cargo marks primary (`CARGO_PRIMARY_PACKAGE`: the workspace members selected), and
//! compiles every other crate as plain rustc with the `cuda_lint` and `cuda_lint_summary` tools
//! registered, so the effect summaries the `cuda_lint` macros write in a dependency compile and
//! reach the lint through crate metadata. Run directly (UI tests), it lints what it compiles.
#![feature(rustc_private)]
#![warn(rust_2018_idioms, unused_lifetimes)]

extern crate rustc_driver;

// As rustc does (`compiler/rustc/src/main.rs`): jemalloc replaces the system allocator for the
// whole process, the compiler's shared library and LLVM included.
#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
use tikv_jemalloc_sys as _;
extern crate rustc_hir;
extern crate rustc_interface;
extern crate rustc_middle;
extern crate rustc_session;
extern crate rustc_span;

use std::env;
use std::path::Path;
use std::process::ExitCode;

use rustc_interface::interface;
use rustc_session::EarlyDiagCtxt;
use rustc_session::config::ErrorOutputType;
use rustc_span::Symbol;

/// The environment variable through which `cargo cuda-lint` passes lint flags (`-D cuda_lint::x`):
/// the levels of `cuda-lint.toml` (`CUDA_LINT_CONFIG`), then the flags after `--`.
const ARGS_VAR: &str = "CUDA_LINT_ARGS";
/// Set by `cargo cuda-lint`: the `cuda_lint` macros write effect summaries.
const ACTIVE_VAR: &str = "CUDA_LINT_ACTIVE";
const BUG_REPORT_URL: &str = "https://github.com/cuda-lint/cuda-lint/issues/new";

/// Identifies this build of the driver: its size and modification time (a new build, or a new
/// installed version, is a new identity).
fn driver_build_id() -> String {
    let meta = env::current_exe().and_then(std::fs::metadata);
    let (len, modified) = match &meta {
        Ok(m) => (
            m.len(),
            m.modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos()),
        ),
        Err(_) => (0, 0),
    };
    // The configuration's function table changes what is found, too.
    let config = env::var_os(cuda_lint_protocol::config::ENV_VAR)
        .and_then(|p| std::fs::read(p).ok())
        .map_or(0, |bytes| {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            bytes.hash(&mut h);
            h.finish()
        });
    format!("{}-{len:x}-{modified:x}-{config:x}", env!("CARGO_PKG_VERSION"))
}

fn has_arg(args: &[String], name: &str) -> bool {
    args.iter().any(|a| a.split('=').next() == Some(name))
}

/// The value of `--name value` or `--name=value`, if it satisfies `pred`.
fn arg_value<'a>(args: &'a [String], name: &str, pred: impl Fn(&str) -> bool) -> Option<&'a str> {
    let mut it = args.iter().map(String::as_str);
    while let Some(arg) = it.next() {
        let mut parts = arg.splitn(2, '=');
        if parts.next() != Some(name) {
            continue;
        }
        match parts.next().or_else(|| it.next()) {
            Some(v) if pred(v) => return Some(v),
            _ => {}
        }
    }
    None
}

/// Tells cargo to re-run the driver when the lint flags change, or whether the `cuda_lint`
/// macros write effect summaries (their expansions depend on it; cargo does not track a proc
/// macro's environment by itself).
/// The lint flags matter only to the crates that are analysed: tracking them elsewhere would
/// recompile every dependency when they change.
fn track_args(sess: &rustc_session::Session, args_var: Option<&str>, analysed: bool) {
    let active = env::var(ACTIVE_VAR).ok();
    let mut depinfo = sess.env_depinfo.borrow_mut();
    if analysed {
        depinfo.insert((Symbol::intern(ARGS_VAR), args_var.map(Symbol::intern)));
    }
    depinfo.insert((Symbol::intern(ACTIVE_VAR), active.as_deref().map(Symbol::intern)));
}

/// Plain rustc, still telling cargo which lint flags it ran with.
struct RustcCallbacks {
    args_var: Option<String>,
}

impl rustc_driver::Callbacks for RustcCallbacks {
    fn config(&mut self, config: &mut interface::Config) {
        let args_var = self.args_var.take();
        config.track_state = Some(Box::new(move |sess| track_args(sess, args_var.as_deref(), false)));
        config.extra_symbols = clippy_utils::sym::EXTRA_SYMBOLS.into();
    }
}

struct LintCallbacks {
    args_var: Option<String>,
    /// The flags after `--` (`CUDA_LINT_ARGS` after `cuda-lint.toml`'s levels).
    user_flags: Vec<String>,
    /// `cuda-lint.toml`'s path and its `[lints]` entries, for the notes on where a level comes
    /// from.
    config_levels: Option<(std::path::PathBuf, Vec<cuda_lint_protocol::config::LevelEntry>)>,
    /// The user's `cuda-lint.toml` (function table, lint options), read once.
    user_config: &'static cuda_lint_engine::api::user::UserConfig,
    /// Whether to analyse this crate (the lints are registered either way).
    analyse: bool,
}

impl rustc_driver::Callbacks for LintCallbacks {
    fn config(&mut self, config: &mut interface::Config) {
        // Incremental state is kept apart per driver build: rustc does not know that the
        // registered lints (a new lint, a changed level) are an input of lint-level queries,
        // and a cache written by another cuda-lint made it stop with an internal error
        // ("unstable fingerprints for shallow_lint_levels_on") after an upgrade.
        if let Some(dir) = config.opts.incremental.take() {
            config.opts.incremental = Some(dir.join(format!("cuda-lint-{}", driver_build_id())));
        }
        let args_var = self.args_var.take();
        let previous = config.register_lints.take();
        let analyse = self.analyse;
        config.track_state = Some(Box::new(move |sess| {
            track_args(sess, args_var.as_deref(), analyse);
            // Re-run when the configuration file changes.
            if let Some(path) = env::var_os(cuda_lint_protocol::config::ENV_VAR)
                && let Some(path) = path.to_str()
            {
                sess.file_depinfo.borrow_mut().insert(Symbol::intern(path));
            }
            // Rebuild-on-change for the driver itself while developing it.
            if cfg!(debug_assertions)
                && let Ok(exe) = env::current_exe()
                && let Some(exe) = exe.to_str()
            {
                sess.file_depinfo.borrow_mut().insert(Symbol::intern(exe));
            }
        }));
        let (analyse, user_config) = (self.analyse, self.user_config);
        let (config_levels, user_flags) = (self.config_levels.take(), std::mem::take(&mut self.user_flags));
        config.register_lints =
            Some(Box::new(move |sess, store| {
                if let Some(previous) = &previous {
                    previous(sess, store);
                }
                let levels: &'static cuda_lint_engine::lints::ConfigLevels =
                    match (&config_levels, analyse) {
                        (Some((path, entries)), true) => Box::leak(Box::new(
                            cuda_lint_engine::lints::ConfigLevels::new(sess, path, entries, &user_flags),
                        )),
                        _ => Box::leak(Box::default()),
                    };
                cuda_lint_engine::register_lints_for(sess, store, analyse, user_config, levels);
            }));
        // clippy_utils' symbol constants index into this list: it must be registered.
        config.extra_symbols = clippy_utils::sym::EXTRA_SYMBOLS.into();
    }

    fn after_analysis<'tcx>(
        &mut self,
        _compiler: &interface::Compiler,
        tcx: rustc_middle::ty::TyCtxt<'tcx>,
    ) -> rustc_driver::Compilation {
        if self.analyse {
            write_functions(tcx);
        }
        rustc_driver::Compilation::Continue
    }
}

/// Writes where each function of the crate lies (`cuda_lint_protocol::baseline::FunctionSpan`)
/// beside its metadata, for `cargo cuda-lint --baseline`: rustc's diagnostics do not say which
/// function a finding is in, and a baseline's keys need it. Written on every analysis, so that
/// a crate cargo finds fresh still has its table. A table that cannot be written is no error:
/// keys then have no function, and their findings are reported as new.
fn write_functions(tcx: rustc_middle::ty::TyCtxt<'_>) {
    use cuda_lint_protocol::baseline::{FunctionSpan, functions_file_name, functions_to_jsonl};
    use rustc_hir::def::DefKind;
    let sess = tcx.sess;
    if sess.io.output_dir.is_none() {
        return;
    }
    let source_map = sess.source_map();
    let mut table = Vec::new();
    for owner in tcx.hir_body_owners() {
        if !matches!(tcx.def_kind(owner), DefKind::Fn | DefKind::AssocFn) {
            continue;
        }
        let span = tcx.hir_span_with_body(tcx.local_def_id_to_hir_id(owner));
        let function = tcx.def_path_str(owner.to_def_id());
        // A function a macro wrote is also where the macro is called.
        let spans = [Some(span), span.from_expansion().then(|| span.source_callsite())];
        for span in spans.into_iter().flatten() {
            let (lo, hi) = (
                source_map.lookup_byte_offset(span.lo()),
                source_map.lookup_byte_offset(span.hi()),
            );
            if !std::sync::Arc::ptr_eq(&lo.sf, &hi.sf) {
                continue;
            }
            table.push(FunctionSpan {
                file: source_map.filename_for_diagnostics(&lo.sf.name).to_string(),
                start: lo.sf.original_relative_byte_pos(span.lo()).0,
                end: lo.sf.original_relative_byte_pos(span.hi()).0,
                function: function.clone(),
            });
        }
    }
    let stem = format!(
        "{}{}",
        tcx.crate_name(rustc_span::def_id::LOCAL_CRATE),
        sess.opts.cg.extra_filename
    );
    // Only where cargo names the output folder (`--out-dir`): run as plain rustc (UI tests), the
    // driver leaves no file behind.
    if let Some(dir) = &sess.io.output_dir {
        let path = dir.join(functions_file_name(&stem));
        if std::fs::write(&path, functions_to_jsonl(&table)).is_ok()
            && let Some(log) = env::var_os(cuda_lint_protocol::baseline::FUNCTIONS_LOG_VAR)
        {
            // A crate that fails (a deny-level finding) has no artifact message naming its
            // metadata: `cargo cuda-lint` learns of its table here.
            use std::io::Write as _;
            if let Ok(mut log) = std::fs::OpenOptions::new().append(true).create(true).open(log) {
                let _ = writeln!(log, "{}", path.display());
            }
        }
    }
}

fn main() -> ExitCode {
    let early_dcx = EarlyDiagCtxt::new(ErrorOutputType::default());
    rustc_driver::init_rustc_env_logger(&early_dcx);
    rustc_driver::install_ice_hook(BUG_REPORT_URL, |dcx| {
        dcx.handle()
            .note(format!("cuda-lint version: {}", env!("CARGO_PKG_VERSION")));
    });

    rustc_driver::catch_with_exit_code(move || {
        let mut args = rustc_driver::args::raw_args(&early_dcx);

        if args.iter().any(|a| a == "--version" || a == "-V") && args.len() == 2 {
            println!("cuda-lint-driver {}", env!("CARGO_PKG_VERSION"));
            return;
        }

        // Cargo's wrapper protocol passes the path of rustc as the first argument.
        let wrapper_mode = args.get(1).map(Path::new).and_then(Path::file_stem) == Some("rustc".as_ref());
        if wrapper_mode {
            args.remove(1);
        }
        if !wrapper_mode && args.len() == 1 {
            println!(
                "cuda-lint-driver: rustc with cuda-lint's lints. Run it through `cargo cuda-lint`, \
                 or as rustc: `cuda-lint-driver [rustc options] INPUT`."
            );
            return;
        }

        let args_var = env::var(ARGS_VAR).ok();
        // Cargo's info queries must stay plain rustc (cargo caches their output).
        let info_query =
            has_arg(&args, "-vV") || arg_value(&args, "--print", |v| v != "crate-root-lint-levels").is_some();
        if info_query {
            rustc_driver::run_compiler(&args, &mut RustcCallbacks { args_var });
            // Cargo fingerprints builds by this output: naming the driver's build here makes a
            // new cuda-lint lint everything again, never replaying what an older one reported.
            if has_arg(&args, "-vV") {
                println!(
                    "cuda-lint-driver: {} ({})",
                    env!("CARGO_PKG_VERSION"),
                    driver_build_id()
                );
            }
            return;
        }

        // The `cuda_lint` tool namespace, so `#[allow(cuda_lint::missing_sync)]` resolves;
        // `cuda_lint_summary` for the summaries the macros write; `cfg(cuda_lint)` for
        // `#[cfg_attr(cuda_lint, allow(cuda_lint::missing_sync))]`. In every crate: a dependency
        // may carry them too.
        args.extend(
            [
                "-Zcrate-attr=feature(register_tool)",
                "-Zcrate-attr=register_tool(cuda_lint)",
                "-Zcrate-attr=register_tool(cuda_lint_summary)",
                "--cfg=cuda_lint",
                "--check-cfg=cfg(cuda_lint)",
            ]
            .map(String::from),
        );
        // rustc reuses a module's cached lint results (findings included) when nothing the
        // module's lints read changed; which driver produced them is not among those inputs. The
        // command line's `--cfg`s are (a changed one discards the incremental state): name the
        // driver's build in one. (Not a crate attribute: a tool attribute at the crate root
        // changes name resolution, and derive_more 2.1 or bindgen 0.72 then fail to compile.)
        args.push(format!("--cfg=cuda_lint_build=\"{}\"", driver_build_id()));
        args.push("--check-cfg=cfg(cuda_lint_build, values(any()))".to_string());
        // Under `cargo cuda-lint --fix` the suggestions take another form (see `wait_fix`).
        if env::var_os(cuda_lint_engine::wait_fix::FIX_ENV).is_some() {
            args.push("--cfg=cuda_lint_fix".to_string());
            args.push("--check-cfg=cfg(cuda_lint_fix)".to_string());
        }

        // Under cargo, only the packages the user selected are linted (a dependency compiled
        // with `--cap-lints allow` would show nothing anyway).
        let cap_lints_allow = arg_value(&args, "--cap-lints", |v| v == "allow").is_some();
        let primary = !wrapper_mode || env::var_os("CARGO_PRIMARY_PACKAGE").is_some();
        let analyse = primary && !cap_lints_allow;
        // Read once for the compilation, and kept for it (the lint passes borrow it).
        let config = cuda_lint_protocol::config::from_env();
        let flags = cuda_lint_protocol::driver_args::split(args_var.as_deref().unwrap_or_default());
        if analyse {
            args.extend(flags.iter().cloned());
        }
        // `cargo cuda-lint` passes the file's levels first, then the flags after `--`, which win.
        let user_flags = flags
            .strip_prefix(&config.lint_flags[..])
            .map_or_else(|| flags.clone(), <[String]>::to_vec);
        let config_levels = env::var_os(cuda_lint_protocol::config::ENV_VAR)
            .map(|path| (std::path::PathBuf::from(path), config.levels.clone()));
        let user_config = Box::leak(Box::new(cuda_lint_engine::api::user::user_config_of(&config)));
        cuda_lint_engine::install_panic_hook();
        rustc_driver::run_compiler(
            &args,
            &mut LintCallbacks {
                args_var,
                user_flags,
                config_levels,
                analyse,
                user_config,
            },
        );
    })
}
