//! `cuda-lint.toml`, at the workspace root (like `clippy.toml`): lint levels, and effect tables
//! for wrappers in crates the user cannot annotate, in the vocabulary of the effect attributes.
//!
//! ```toml
//! [lints]
//! pageable_async_copy = "deny"        # allow, warn, deny or forbid
//!
//! [perf]
//! min-copy-bytes = 65536              # pageable_async_copy: smaller copies of known size are not reported
//! in-tests = false                    # the perf lints stay quiet in tests, benches and examples
//!
//! [[functions]]
//! path = "vendor_sdk::queue::Queue::finish"
//! effects = ["sync(stream = 0)"]      # as #[cuda_lint_summary::effect(..)]: sync, copy, launch, returns
//! ```
//!
//! `cargo cuda-lint` reads it before it runs cargo, and stops with an error that names the
//! line and the valid keys when something is wrong; the driver then reads it again (from
//! `CUDA_LINT_CONFIG`) for the function table.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::summary::{self, Summary};
use cuda_lint_machine::Options;
use cuda_lint_machine::lints::{lint_and_group_names, lints_named};

/// The file name, at the workspace root.
pub const FILE_NAME: &str = "cuda-lint.toml";
/// How `cargo cuda-lint` tells the driver where the file is.
pub const ENV_VAR: &str = "CUDA_LINT_CONFIG";

/// What the file says.
#[derive(Debug, Default)]
pub struct Config {
    /// `-W cuda_lint::NAME`, `-D ...`: the levels, as rustc flags.
    pub lint_flags: Vec<String>,
    /// Effects of functions, by definition path (as the API tables spell paths).
    pub functions: BTreeMap<String, Vec<Summary>>,
    /// What the lints are told: `[perf]`'s size threshold and switch for tests.
    pub options: Options,
    /// The `[lints]` entries, in the order of `lint_flags`, with where each is written.
    pub levels: Vec<LevelEntry>,
    /// The `[cpp]` table: the build `cuda-lint check` analyses.
    pub cpp: CppBuild,
}

/// `[cpp]`: the configuration of the C++ build, as compile flags give it (`-D`, `-U`, `-I`); the
/// command line's and `compile_commands.json`'s come after it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CppBuild {
    /// `defines = ["USE_PINNED", "BLOCK=256"]`: `NAME` or `NAME=VALUE`, checked to be macros.
    pub defines: Vec<String>,
    /// `undefines = ["NDEBUG"]`.
    pub undefines: Vec<String>,
    /// `include-dirs = ["include"]`: folders of the project's headers, relative to the file.
    pub include_dirs: Vec<PathBuf>,
}

/// One `[lints]` entry: `pageable_async_copy = "deny"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelEntry {
    /// The lint or group, without `cuda_lint::` (as `lints_named` takes it).
    pub name: String,
    /// `-A`, `-W`, `-D` or `-F`: the flag it stands for.
    pub flag: &'static str,
    /// The entry's bytes in the file, from its key to its value.
    pub span: std::ops::Range<usize>,
}

/// An error in the file, where it is.
#[derive(Debug)]
pub struct ConfigError {
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file.display(),
            self.line,
            self.column,
            self.message
        )
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    lints: BTreeMap<Spanned<String>, Spanned<String>>,
    #[serde(default)]
    functions: Vec<Spanned<RawFunction>>,
    perf: Option<RawPerf>,
    cpp: Option<RawCpp>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawCpp {
    #[serde(default)]
    defines: Vec<Spanned<String>>,
    #[serde(default)]
    undefines: Vec<Spanned<String>>,
    #[serde(default)]
    include_dirs: Vec<Spanned<String>>,
}

fn is_macro_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawPerf {
    min_copy_bytes: Option<Spanned<i64>>,
    in_tests: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFunction {
    path: Spanned<String>,
    effects: Vec<Spanned<String>>,
}

/// Reads and checks the file at `path`.
pub fn load(path: &Path) -> Result<Config, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
        file: path.to_path_buf(),
        line: 1,
        column: 1,
        message: format!("cannot read it: {e}"),
    })?;
    parse(path, &text)
}

/// Checks the text of a configuration file (`path` is for the messages).
pub fn parse(path: &Path, text: &str) -> Result<Config, ConfigError> {
    let at = |offset: usize, message: String| {
        let before = &text[..offset.min(text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        ConfigError {
            file: path.to_path_buf(),
            line,
            column,
            message,
        }
    };
    let raw: RawConfig = toml::from_str(text).map_err(|e| {
        let offset = e.span().map_or(0, |s| s.start);
        // toml's message repeats the position and the source line: keep the explanation.
        let message = e.message().trim().to_string();
        let message = if message.starts_with("unknown field") {
            format!("{message} (the file has `[lints]`, `[perf]` and `[cpp]` tables and `[[functions]]` entries)")
        } else {
            message
        };
        at(offset, message)
    })?;

    let mut config = Config::default();
    if let Some(perf) = &raw.perf {
        if let Some(min) = &perf.min_copy_bytes {
            config.options.min_copy_bytes = u64::try_from(*min.get_ref()).map_err(|_| {
                at(
                    min.span().start,
                    "`min-copy-bytes` is a byte count: 0 or more (0 reports copies of any size)".to_string(),
                )
            })?;
        }
        if let Some(in_tests) = perf.in_tests {
            config.options.perf_in_tests = in_tests;
        }
    }
    if let Some(cpp) = &raw.cpp {
        for d in &cpp.defines {
            let name = d.get_ref().split_once('=').map_or(d.get_ref().as_str(), |(n, _)| n);
            if !is_macro_name(name.trim()) {
                return Err(at(
                    d.span().start,
                    format!(
                        "`{}` is not a macro definition: write `NAME` or `NAME=VALUE`",
                        d.get_ref()
                    ),
                ));
            }
            config.cpp.defines.push(d.get_ref().trim().to_string());
        }
        for u in &cpp.undefines {
            if !is_macro_name(u.get_ref().trim()) {
                return Err(at(u.span().start, format!("`{}` is not a macro name", u.get_ref())));
            }
            config.cpp.undefines.push(u.get_ref().trim().to_string());
        }
        let base = path.parent().unwrap_or(Path::new(""));
        for dir in &cpp.include_dirs {
            if dir.get_ref().trim().is_empty() {
                return Err(at(dir.span().start, "an include folder cannot be empty".to_string()));
            }
            config.cpp.include_dirs.push(base.join(dir.get_ref().trim()));
        }
    }
    for (name, level) in &raw.lints {
        let short = name.get_ref().trim_start_matches("cuda_lint::");
        if lints_named(short).is_none() {
            return Err(at(
                name.span().start,
                format!(
                    "unknown lint or group `{}`; the lints and groups are: {}",
                    name.get_ref(),
                    lint_and_group_names()
                ),
            ));
        }
        let flag = match level.get_ref().as_str() {
            "allow" => "-A",
            "warn" => "-W",
            "deny" => "-D",
            "forbid" => "-F",
            other => {
                return Err(at(
                    level.span().start,
                    format!("unknown level `{other}` for `{short}`; the levels are: allow, warn, deny, forbid"),
                ));
            }
        };
        config.lint_flags.push(flag.to_string());
        config.lint_flags.push(format!("cuda_lint::{short}"));
        config.levels.push(LevelEntry {
            name: short.to_string(),
            flag,
            span: name.span().start..level.span().end,
        });
    }
    for function in &raw.functions {
        let function = function.get_ref();
        let path_text = function.path.get_ref().trim();
        if path_text.is_empty() || !path_text.contains("::") || path_text.contains(char::is_whitespace) {
            return Err(at(
                function.path.span().start,
                format!(
                    "`{path_text}` is not a function path: write it as `crate::module::function` or \
                     `crate::module::Type::method` (the definition's path, not a re-export)"
                ),
            ));
        }
        if function.effects.is_empty() {
            return Err(at(
                function.path.span().start,
                format!("`{path_text}` lists no effect: give `effects = [..]` (sync, copy, launch, returns)"),
            ));
        }
        let mut effects = Vec::new();
        for effect in &function.effects {
            let summary = summary::parse(effect.get_ref()).map_err(|why| {
                at(
                    effect.span().start,
                    format!(
                        "cannot read effect `{}`: {why}; the effects are {} (N: a parameter's position, \
                         `self` is 0)",
                        effect.get_ref(),
                        summary::FORMS
                    ),
                )
            })?;
            effects.push(summary);
        }
        config.functions.insert(path_text.to_string(), effects);
    }
    Ok(config)
}

/// The configuration the driver was given (`CUDA_LINT_CONFIG`), for its function table.
/// `cargo cuda-lint` checked it before running cargo: an error here is a file changed since; it
/// is reported by the next run, and nothing of it is used meanwhile.
pub fn from_env() -> Config {
    match std::env::var_os(ENV_VAR) {
        Some(path) => load(Path::new(&path)).unwrap_or_default(),
        None => Config::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse(Path::new("cuda-lint.toml"), text).unwrap_err().to_string()
    }

    #[test]
    fn reads_levels_and_functions() {
        let config = parse(
            Path::new("cuda-lint.toml"),
            "[lints]\npageable_async_copy = \"deny\"\n\"cuda_lint::missing_sync\" = \"warn\"\n\n\
             [[functions]]\npath = \"vendor::Queue::finish\"\neffects = [\"sync(stream = 0)\"]\n",
        )
        .unwrap();
        assert_eq!(
            config.lint_flags,
            ["-W", "cuda_lint::missing_sync", "-D", "cuda_lint::pageable_async_copy"]
        );
        assert_eq!(config.functions["vendor::Queue::finish"], [Summary::SyncStream(0)]);
        assert_eq!(config.options, Options::default());
        // Where each entry is written, for the note on where a level comes from.
        let text = "[lints]\npageable_async_copy = \"deny\"\n\"cuda_lint::missing_sync\" = \"warn\"\n";
        let config = parse(Path::new("cuda-lint.toml"), text).unwrap();
        let entries: Vec<(&str, &str, &str)> = config
            .levels
            .iter()
            .map(|e| (e.name.as_str(), e.flag, &text[e.span.clone()]))
            .collect();
        assert_eq!(
            entries,
            [
                ("missing_sync", "-W", "\"cuda_lint::missing_sync\" = \"warn\""),
                ("pageable_async_copy", "-D", "pageable_async_copy = \"deny\""),
            ]
        );
    }

    #[test]
    fn reads_groups_and_perf_options() {
        let config = parse(
            Path::new("cuda-lint.toml"),
            "[lints]\nperf = \"allow\"\n\"cuda_lint::correctness\" = \"warn\"\n\n\
             [perf]\nmin-copy-bytes = 1048576\nin-tests = false\n",
        )
        .unwrap();
        assert_eq!(
            config.lint_flags,
            ["-W", "cuda_lint::correctness", "-A", "cuda_lint::perf"]
        );
        assert_eq!(config.options.min_copy_bytes, 1 << 20);
        assert!(!config.options.perf_in_tests);
    }

    #[test]
    fn errors_name_the_line_and_what_is_valid() {
        assert_eq!(
            err("[lints]\nmissing_synch = \"deny\"\n"),
            format!(
                "cuda-lint.toml:2:1: unknown lint or group `missing_synch`; the lints and groups are: {}",
                lint_and_group_names()
            )
        );
        assert!(
            err("[perf]\nmin-copy-bytes = -1\n").starts_with("cuda-lint.toml:2:18: `min-copy-bytes` is a byte count")
        );
        assert!(err("[perf]\nmin_bytes = 1\n").starts_with("cuda-lint.toml:2:1: unknown field `min_bytes`"));
        assert!(err("[perf]\nin-tests = \"no\"\n").starts_with("cuda-lint.toml:2:12:"));
        assert!(err("[lints]\nmissing_sync = \"loud\"\n").starts_with("cuda-lint.toml:2:16: unknown level `loud`"));
        let e = err("[lint]\nmissing_sync = \"deny\"\n");
        assert!(
            e.starts_with("cuda-lint.toml:1:") && e.contains("`lints`") && e.contains("`functions`"),
            "{e}"
        );
        let e = err("[[functions]]\npath = \"a::b\"\neffect = [\"sync(all)\"]\n");
        assert!(e.starts_with("cuda-lint.toml:3:") && e.contains("`effects`"), "{e}");
        let e = err("[[functions]]\npath = \"a::b\"\neffects = [\"sync(strm = 0)\"]\n");
        assert!(
            e.starts_with("cuda-lint.toml:3:12: cannot read effect `sync(strm = 0)`"),
            "{e}"
        );
        assert!(err("[[functions]]\npath = \"finish\"\neffects = [\"sync(all)\"]\n").contains("not a function path"));
        assert!(err("[lints\n").starts_with("cuda-lint.toml:1:"));
    }
}
