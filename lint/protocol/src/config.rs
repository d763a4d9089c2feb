//! `cuda-lint.toml`, at the workspace root (like `clippy.toml`): lint levels, and effect tables
//! for wrappers in crates the user cannot annotate, in the vocabulary of the effect attributes.
//!
//! ```toml
//! [lints]
//! pageable_async_copy = "deny"        # allow, warn, deny or forbid
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
use cuda_lint_machine::LINTS;

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
            format!("{message} (the file has a `[lints]` table and `[[functions]]` entries)")
        } else {
            message
        };
        at(offset, message)
    })?;

    let mut config = Config::default();
    let names: Vec<String> = LINTS.iter().map(|l| l.name.to_string()).collect();
    for (name, level) in &raw.lints {
        let short = name.get_ref().trim_start_matches("cuda_lint::");
        if short != "all" && !names.iter().any(|n| n == short) {
            return Err(at(
                name.span().start,
                format!(
                    "unknown lint `{}`; the lints are: {} (or `all`)",
                    name.get_ref(),
                    names.join(", ")
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
    }

    #[test]
    fn errors_name_the_line_and_what_is_valid() {
        let lints: Vec<&str> = cuda_lint_machine::LINTS.iter().map(|l| l.name).collect();
        assert_eq!(
            err("[lints]\nmissing_synch = \"deny\"\n"),
            format!(
                "cuda-lint.toml:2:1: unknown lint `missing_synch`; the lints are: {} (or `all`)",
                lints.join(", ")
            )
        );
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
