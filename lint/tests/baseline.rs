//! `cargo cuda-lint --write-baseline` / `--baseline` end to end: a scratch crate (under the
//! target directory) with two findings is recorded; then every line of it moves and a third
//! finding comes, and only that one is reported, in cargo's human output and its JSON, with an
//! exit status from it alone. A baseline that is not one stops the run with exit status 3.
//! The keys and the file are `lint/protocol/tests/baseline.rs`'s.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Two findings: a pageable async copy in `upload` (a warning) and a read before the copy is
/// waited for in `download` (deny by default).
const BEFORE: &str = r#"
use cuda_lint_runtime::{Context, Result, Stream};

pub fn upload(ctx: &Context, s: &Stream) -> Result<()> {
    let data = vec![1.0f32; 1024];
    let mut dev = ctx.alloc::<f32>(1024)?;
    unsafe { s.copy_htod_async(&mut dev, &data)? };
    s.synchronize()
}

pub fn download(ctx: &Context, s: &Stream) -> Result<f32> {
    let dev = ctx.alloc_zeroed::<f32>(1024)?;
    let mut host = ctx.alloc_pinned::<f32>(1024)?;
    unsafe { s.copy_dtoh_async(&mut host, &dev)? };
    Ok(host[0])
}
"#;

/// The same two findings, every line moved, and a new one in `download_again`.
fn after() -> String {
    format!(
        "// Lines added at the top move every finding.\n// A second one.\n{BEFORE}\n{}",
        r#"
pub fn download_again(ctx: &Context, s: &Stream) -> Result<f32> {
    let dev = ctx.alloc_zeroed::<f32>(1024)?;
    let mut host = ctx.alloc_pinned::<f32>(1024)?;
    unsafe { s.copy_dtoh_async(&mut host, &dev)? };
    Ok(host[1]) // NEW
}
"#
    )
}

fn scratch_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::repo().join("target"))
        .join("baseline-test")
        .join("crate")
}

/// A crate at `dir` using the runtime; its package name is this test's own (tests share
/// target directories).
fn scratch_crate(dir: &Path, source: &str) {
    let repo = common::repo();
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"baseline-test-user\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
             [dependencies]\ncuda-lint-runtime = {{ path = {:?} }}\n\n[workspace]\n",
            repo.join("runtime")
        ),
    )
    .unwrap();
    std::fs::copy(repo.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    std::fs::write(dir.join("src/lib.rs"), source).unwrap();
}

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-cuda-lint"))
        .args(["cuda-lint", "--offline"])
        .args(args)
        .current_dir(dir)
        .env_remove("GITHUB_WORKSPACE")
        .env_remove("CI_PROJECT_DIR")
        .output()
        .expect("cargo-cuda-lint runs")
}

/// (lint, line) of each cuda-lint finding in cargo's JSON on stdout.
fn json_findings(out: &Output) -> Vec<(String, u64)> {
    let mut found = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let diag = &msg["message"];
        let Some(code) = diag["code"]["code"].as_str().filter(|c| c.starts_with("cuda_lint::")) else {
            continue;
        };
        let line = common::primary_location(diag).map_or(0, |(_, line)| line);
        found.push((code.to_string(), line));
    }
    found.sort();
    found.dedup();
    found
}

fn line_in(source: &str, marker: &str) -> u64 {
    source.lines().position(|l| l.contains(marker)).expect("marker") as u64 + 1
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn only_findings_not_in_the_baseline_are_reported() {
    let dir = scratch_dir();
    let _ = std::fs::remove_dir_all(&dir);
    scratch_crate(&dir, BEFORE);

    // Without a baseline: both findings, and the deny-level one fails the run.
    let out = run(&dir, &["--message-format=json"]);
    let both = json_findings(&out);
    assert_eq!(
        both.iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>(),
        ["cuda_lint::missing_sync", "cuda_lint::pageable_async_copy"],
        "{}",
        stderr(&out)
    );
    assert!(!out.status.success());

    // Recorded: nothing reported, and the run passes.
    let out = run(
        &dir,
        &["--write-baseline", "cuda-lint-baseline.json", "--message-format=json"],
    );
    assert_eq!(json_findings(&out), [], "{}", stderr(&out));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cuda-lint: 2 findings written to the baseline cuda-lint-baseline.json"),
        "{}",
        stderr(&out)
    );
    let file = std::fs::read_to_string(dir.join("cuda-lint-baseline.json")).unwrap();
    assert!(
        file.contains(r#"{"file":"src/lib.rs","function":"download","lint":"cuda_lint::missing_sync","names":["#),
        "{file}"
    );
    assert!(
        file.contains(r#"{"file":"src/lib.rs","function":"upload","lint":"cuda_lint::pageable_async_copy","names":["#),
        "{file}"
    );

    // The same code with the baseline: clean, in both outputs, though a finding is deny-level.
    for format in [&[][..], &["--message-format=json"][..]] {
        let out = run(&dir, &[&["--baseline", "cuda-lint-baseline.json"][..], format].concat());
        assert!(out.status.success(), "{format:?}: {}", stderr(&out));
        assert_eq!(json_findings(&out), []);
        assert!(!stderr(&out).contains("cuda_lint::"), "{}", stderr(&out));
        assert!(
            stderr(&out).contains("cuda-lint: 2 findings in the baseline were not reported"),
            "{}",
            stderr(&out)
        );
    }

    // Every line moved and a finding added: only the new one, and it fails the run.
    let source = after();
    scratch_crate(&dir, &source);
    let new_line = line_in(&source, "// NEW");
    let out = run(&dir, &["--baseline=cuda-lint-baseline.json", "--message-format=json"]);
    assert_eq!(
        json_findings(&out),
        [("cuda_lint::missing_sync".to_string(), new_line)],
        "{}",
        stderr(&out)
    );
    assert!(!out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cuda-lint: 2 findings in the baseline were not reported"),
        "{}",
        stderr(&out)
    );

    // Human output: rustc's rendering of the new finding alone.
    let out = run(&dir, &["--baseline", "cuda-lint-baseline.json"]);
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains(&format!("--> src/lib.rs:{new_line}:")), "{err}");
    assert_eq!(err.matches("--> src/lib.rs:").count(), 1, "{err}");
    assert!(
        err.contains("cuda-lint: 2 findings in the baseline were not reported"),
        "{err}"
    );

    // The new finding fixed: clean again, while the two old ones remain.
    scratch_crate(
        &dir,
        &source.replace("Ok(host[1]) // NEW", "s.synchronize()?;\n    Ok(host[1])"),
    );
    let out = run(&dir, &["--baseline", "cuda-lint-baseline.json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("-->"), "{}", stderr(&out));
}

#[test]
fn a_baseline_that_is_not_one_stops_the_run() {
    let dir = scratch_dir().with_file_name("bad");
    let _ = std::fs::remove_dir_all(&dir);
    scratch_crate(&dir, BEFORE);
    std::fs::write(
        dir.join("bad.json"),
        "{\n  \"version\": 1,\n  \"findings\": [ oops ]\n}\n",
    )
    .unwrap();
    for format in ["human", "json", "sarif"] {
        let out = run(&dir, &["--baseline", "bad.json", &format!("--message-format={format}")]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(3), "{format}: {err}");
        assert!(err.contains("error: bad.json:3:"), "{format}: {err}");
        assert!(err.contains("not a cuda-lint baseline"), "{format}: {err}");
        // Nothing was checked.
        assert!(!err.contains("Checking"), "{format}: {err}");
        if format == "sarif" {
            let log: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a SARIF log");
            assert_eq!(log["runs"][0]["invocations"][0]["executionSuccessful"], false);
        }
    }
    let out = run(&dir, &["--baseline", "missing.json"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        stderr(&out).contains("error: missing.json: cannot read the baseline"),
        "{}",
        stderr(&out)
    );
}
