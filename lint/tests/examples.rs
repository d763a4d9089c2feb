//! `cargo cuda-lint` on the bundled examples: every line of `examples/` that ends with a
//! `// cuda_lint::NAME` comment is reported with that lint, and nothing else is, so the fixed
//! programs are clean. Also checks the contracts of `--message-format=json` and of the exit
//! status.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// (file relative to the repository, line, lint) for each `// cuda_lint::NAME` comment.
fn expected() -> BTreeSet<(String, usize, String)> {
    let dir = repo().join("examples/src/bin");
    let mut out = BTreeSet::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, line) in text.lines().enumerate() {
            if let Some(pos) = line.find("// cuda_lint::") {
                let name = line[pos + 3..]
                    .split_whitespace()
                    .next()
                    .unwrap()
                    .to_string();
                let file = path
                    .strip_prefix(repo())
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.insert((file, i + 1, name));
            }
        }
    }
    out
}

#[test]
fn every_buggy_line_is_reported_and_nothing_else() {
    let expected = expected();
    assert_eq!(
        expected
            .iter()
            .map(|(_, _, lint)| lint.as_str())
            .collect::<BTreeSet<_>>(),
        BTreeSet::from([
            "cuda_lint::host_deref_device_ptr",
            "cuda_lint::missing_sync",
            "cuda_lint::pageable_async_copy",
            "cuda_lint::unfenced_vmm_alias",
        ]),
        "each lint has a buggy example"
    );

    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target"))
        .join("examples-lint");
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-cuda-lint"))
        .args([
            "cuda-lint",
            "-p",
            "cuda-lint-examples",
            "--bins",
            "--keep-going",
            "--message-format=json",
        ])
        .current_dir(repo())
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .expect("cargo-cuda-lint runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("internal compiler error") && !stderr.contains("panicked"),
        "{stderr}"
    );
    // Deny-level findings fail the build, as with clippy.
    assert!(
        !out.status.success(),
        "deny-level findings must make the exit status non-zero"
    );

    let mut found = BTreeSet::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let msg: serde_json::Value =
            serde_json::from_str(line).expect("cargo prints one JSON object a line");
        if msg["reason"] != "compiler-message" {
            continue;
        }
        let diag = &msg["message"];
        let Some(code) = diag["code"]["code"].as_str() else {
            continue;
        };
        assert!(
            code.starts_with("cuda_lint::"),
            "unexpected diagnostic {code}: {}",
            diag["rendered"]
        );
        let primary = diag["spans"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["is_primary"] == true)
            .unwrap();
        found.insert((
            primary["file_name"].as_str().unwrap().to_string(),
            primary["line_start"].as_u64().unwrap() as usize,
            code.to_string(),
        ));
    }
    let missing: Vec<_> = expected.difference(&found).collect();
    let unexpected: Vec<_> = found.difference(&expected).collect();
    assert!(
        missing.is_empty() && unexpected.is_empty(),
        "missing: {missing:#?}\nunexpected: {unexpected:#?}"
    );
}

#[test]
fn lint_flags_after_double_dash_set_levels() {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target"))
        .join("examples-lint");
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-cuda-lint"))
        .args([
            "cuda-lint",
            "-p",
            "cuda-lint-examples",
            "--bins",
            "--keep-going",
            "--message-format=json",
            "--",
        ])
        .args([
            "-A",
            "cuda_lint::all",
            "-D",
            "cuda_lint::pageable_async_copy",
        ])
        .current_dir(repo())
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .expect("cargo-cuda-lint runs");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let codes: BTreeSet<String> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-message")
        .filter_map(|m| {
            let level = m["message"]["level"].as_str()?.to_string();
            Some(format!(
                "{}:{level}",
                m["message"]["code"]["code"].as_str()?
            ))
        })
        .collect();
    assert_eq!(
        codes,
        BTreeSet::from(["cuda_lint::pageable_async_copy:error".to_string()])
    );
    assert!(!out.status.success());
}
