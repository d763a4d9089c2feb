//! What the integration tests that run `cargo cuda-lint` on the workspace share.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// `cargo cuda-lint ARGS` in the repository, with its own target directory.
pub fn cargo_cuda_lint(args: &[&str]) -> Output {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target"))
        .join("examples-lint");
    Command::new(env!("CARGO_BIN_EXE_cargo-cuda-lint"))
        .arg("cuda-lint")
        .args(args)
        .current_dir(repo())
        .env("CARGO_TARGET_DIR", &target)
        // Paths in reports are relative to these when set (as in CI); the tests expect the
        // workspace root.
        .env_remove("GITHUB_WORKSPACE")
        .env_remove("CI_PROJECT_DIR")
        .output()
        .expect("cargo-cuda-lint runs")
}

/// (file relative to the repository, line, lint) for each `// cuda_lint::NAME` comment.
pub fn expected() -> BTreeSet<(String, usize, String)> {
    let mut out = BTreeSet::new();
    for entry in std::fs::read_dir(repo().join("examples/src/bin")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, line) in text.lines().enumerate() {
            if let Some(pos) = line.find("// cuda_lint::") {
                let name = line[pos + 3..].split_whitespace().next().unwrap().to_string();
                let file = path.strip_prefix(repo()).unwrap().to_string_lossy().into_owned();
                out.insert((file, i + 1, name));
            }
        }
    }
    out
}

/// The file and line of a compiler diagnostic's primary span (cargo's JSON `message`).
pub fn primary_location(diag: &serde_json::Value) -> Option<(String, u64)> {
    let primary = diag["spans"].as_array()?.iter().find(|s| s["is_primary"] == true)?;
    Some((
        primary["file_name"].as_str()?.to_string(),
        primary["line_start"].as_u64()?,
    ))
}
