//! `cargo cuda-lint --changed-since REV` end to end, on a scratch crate in its own git
//! repository: a finding is reported when any step of its chain is on a line changed since REV
//! (here only the copy's line), and not otherwise; a revision git does not know stops the run.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BEFORE: &str = r#"use cuda_lint_runtime::{Context, DeviceBuffer, Result, Stream};

pub fn untouched(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    let first = host[0];
    Ok(first)
}

pub fn reviewed(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    let last = host[host.len() - 1];
    Ok(last)
}
"#;

fn git(dir: &Path, args: &[&str]) -> bool {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .status()
        .is_ok_and(|s| s.success())
}

fn scratch() -> Option<PathBuf> {
    let repo = common::repo();
    let dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo.join("target"))
        .join("changed-since-test")
        .join("review-user");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"review-user\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
             [dependencies]\ncuda-lint-runtime = {{ path = {:?} }}\n\n[workspace]\n",
            repo.join("runtime")
        ),
    )
    .unwrap();
    std::fs::copy(repo.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    std::fs::write(dir.join(".gitignore"), "/target\n").unwrap();
    std::fs::write(dir.join("src/lib.rs"), BEFORE).unwrap();
    let made = git(&dir, &["init", "-q"]) && git(&dir, &["add", "-A"]) && git(&dir, &["commit", "-q", "-m", "before"]);
    made.then_some(dir)
}

fn cargo_cuda_lint(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-cuda-lint"))
        .arg("cuda-lint")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("cargo-cuda-lint runs")
}

/// The `(function line, code)` of each cuda-lint finding in cargo's JSON output.
fn findings(out: &Output) -> Vec<(u64, String)> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|m| m.get("message").cloned())
        .filter(|m| m["code"]["code"].as_str().is_some_and(|c| c.starts_with("cuda_lint::")))
        .map(|m| {
            let line = m["spans"]
                .as_array()
                .and_then(|s| s.iter().find(|s| s["is_primary"] == true))
                .and_then(|s| s["line_start"].as_u64())
                .unwrap_or(0);
            (line, m["code"]["code"].as_str().unwrap_or_default().to_string())
        })
        .collect()
}

#[test]
fn only_findings_a_change_is_part_of() {
    let Some(dir) = scratch() else {
        println!("git is not available here: the --changed-since test is skipped");
        return;
    };
    // Both functions read before the sync; the change touches only `reviewed`'s copy, not the
    // line of its access.
    let after = BEFORE.replace(
        "    unsafe { s.copy_dtoh_async(&mut host, dev)? };\n    let last",
        "    unsafe { s.copy_dtoh_async(&mut host, dev)? }; // the last element only\n    let last",
    );
    assert_ne!(after, BEFORE);
    std::fs::write(dir.join("src/lib.rs"), &after).unwrap();

    let all = cargo_cuda_lint(&dir, &["--offline", "--message-format=json"]);
    assert_eq!(
        findings(&all),
        vec![
            (6, "cuda_lint::missing_sync".to_string()),
            (13, "cuda_lint::missing_sync".to_string())
        ],
        "{}",
        String::from_utf8_lossy(&all.stderr)
    );

    let out = cargo_cuda_lint(&dir, &["--offline", "--message-format=json", "--changed-since", "HEAD"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        findings(&out),
        vec![(13, "cuda_lint::missing_sync".to_string())],
        "{stderr}"
    );
    assert!(
        stderr.contains("1 finding outside the lines changed since HEAD was not reported"),
        "{stderr}"
    );
    // The one reported is deny-level: the run fails on it.
    assert!(!out.status.success(), "{stderr}");

    // Nothing changed since the working tree's own state: nothing reported, and a clean run.
    assert!(git(&dir, &["commit", "-q", "-a", "-m", "after"]));
    let out = cargo_cuda_lint(&dir, &["--offline", "--message-format=json", "--changed-since=HEAD"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(findings(&out), vec![], "{stderr}");
    assert!(out.status.success(), "{stderr}");

    // A revision git does not know is not "nothing changed".
    let out = cargo_cuda_lint(&dir, &["--offline", "--changed-since", "no-such-branch"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("`no-such-branch` is not a revision"), "{stderr}");
    // In a report format: a failed run, not an empty one that looks clean.
    let out = cargo_cuda_lint(
        &dir,
        &[
            "--offline",
            "--message-format=sarif",
            "--changed-since",
            "no-such-branch",
        ],
    );
    assert_eq!(out.status.code(), Some(3));
    let sarif: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a SARIF log");
    assert_eq!(
        sarif["runs"][0]["invocations"][0]["executionSuccessful"], false,
        "{sarif}"
    );
}
