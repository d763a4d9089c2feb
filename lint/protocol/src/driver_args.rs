//! How `cargo cuda-lint` hands lint flags to the driver, and finds the workspace's target dir.

#[cfg(feature = "reports")]
use std::path::PathBuf;
#[cfg(feature = "reports")]
use std::process::Command;

/// Separates lint flags inside `CUDA_LINT_ARGS` (a flag may contain spaces, never this).
const SEPARATOR: char = '\u{1f}';

/// Joins lint flags (`-D`, `cuda_lint::x`, ...) into the value of `CUDA_LINT_ARGS`.
pub fn join(flags: &[String]) -> String {
    flags
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(&SEPARATOR.to_string())
}

/// Splits the value of `CUDA_LINT_ARGS` back into rustc arguments.
pub fn split(value: &str) -> Vec<String> {
    value
        .split(SEPARATOR)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

/// Where a workspace is: its root, its target directory and its members' directories.
#[cfg(feature = "reports")]
pub struct WorkspaceDirs {
    pub root: PathBuf,
    pub target: PathBuf,
    pub members: Vec<MemberDir>,
}

/// A workspace member: its package name, the directory of its `Cargo.toml`, and whether cargo
/// builds it when no package is named (`workspace.default-members`).
#[cfg(feature = "reports")]
pub struct MemberDir {
    pub name: String,
    pub dir: PathBuf,
    pub default: bool,
    /// Its package id and manifest, as cargo's JSON messages name the package.
    pub id: String,
    pub manifest_path: PathBuf,
    /// The target cargo's JSON messages about the package's files name: its library, else its
    /// first target (as `cargo metadata` writes a target, which is how messages write it).
    pub target: Option<serde_json::Value>,
}

/// The workspace's root and target directories, asked of `cargo metadata --no-deps` (once)
/// with the same program and environment as `cmd` (a `cargo check` command whose arguments
/// may hold `--manifest-path`).
#[cfg(feature = "reports")]
pub fn workspace_dirs(cmd: &Command) -> Option<WorkspaceDirs> {
    let args: Vec<String> = cmd.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
    let mut metadata = Command::new(cmd.get_program());
    metadata.args(["metadata", "--no-deps", "--format-version", "1"]);
    if let Some(pos) = args.iter().position(|a| a == "--manifest-path") {
        metadata.args(&args[pos..(pos + 2).min(args.len())]);
    } else if let Some(arg) = args.iter().find(|a| a.starts_with("--manifest-path=")) {
        metadata.arg(arg);
    }
    for (key, value) in cmd.get_envs() {
        match value {
            Some(v) => metadata.env(key, v),
            None => metadata.env_remove(key),
        };
    }
    let out = metadata.stderr(std::process::Stdio::null()).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    let path = |field: &str| json.get(field)?.as_str().map(PathBuf::from);
    let ids = |field: &str| -> Vec<String> {
        json.get(field)
            .and_then(|v| v.as_array())
            .map(|a| a.iter().filter_map(|id| id.as_str().map(String::from)).collect())
            .unwrap_or_default()
    };
    let (members, defaults) = (ids("workspace_members"), ids("workspace_default_members"));
    let members = json
        .get("packages")
        .and_then(|p| p.as_array())
        .map(|packages| {
            packages
                .iter()
                .filter_map(|p| {
                    let id = p.get("id")?.as_str()?;
                    let manifest = PathBuf::from(p.get("manifest_path")?.as_str()?);
                    if !members.iter().any(|m| m == id) {
                        return None;
                    }
                    let targets = p.get("targets").and_then(|t| t.as_array());
                    let target = targets.and_then(|targets| {
                        let is_lib = |t: &&serde_json::Value| {
                            t.get("kind")
                                .and_then(|k| k.as_array())
                                .is_some_and(|k| k.iter().any(|k| k.as_str().is_some_and(|k| k.ends_with("lib"))))
                        };
                        targets.iter().find(is_lib).or_else(|| targets.first()).cloned()
                    });
                    Some(MemberDir {
                        name: p.get("name")?.as_str()?.to_string(),
                        dir: manifest.parent()?.to_path_buf(),
                        // Without the field (older cargo), every member is a default one.
                        default: defaults.is_empty() || defaults.iter().any(|d| d == id),
                        id: id.to_string(),
                        target,
                        manifest_path: manifest,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    Some(WorkspaceDirs {
        root: path("workspace_root")?,
        target: path("target_directory")?,
        members,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_round_trip() {
        let flags = ["-D", "cuda_lint::missing_sync", "-Aunused variables"].map(String::from);
        assert_eq!(split(&join(&flags)), flags);
        assert!(split("").is_empty());
    }
}
