//! `cargo cuda-lint --cuda-sources`: a Rust crate that ships CUDA C++ gets both front ends in
//! one run, with one set of levels (`cuda-lint.toml`, flags after `--`), one report and one exit
//! status. A scratch crate under the target directory.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const KERNELS: &str = r#"#include <cuda_runtime.h>
#include <cstdlib>

__global__ void scale(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
}

extern "C" float scale_and_read(int n, cudaStream_t s) {
    float* host = (float*)malloc(n * sizeof(float));
    float* pinned;
    float* dev;
    cudaMallocHost(&pinned, n * sizeof(float));
    cudaMalloc(&dev, n * sizeof(float));
    cudaMemcpyAsync(dev, host, n * sizeof(float), cudaMemcpyHostToDevice, s); // PAGEABLE
    scale<<<(n + 255) / 256, 256, 0, s>>>(dev, n);
    cudaMemcpyAsync(pinned, dev, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    return pinned[0]; // UNSYNCED
}
// cuda-lint: allow-file(device_memory_leak)
"#;

fn line_of(marker: &str) -> usize {
    KERNELS.lines().position(|l| l.contains(marker)).expect("marker") + 1
}

fn scratch(name: &str, config: Option<&str>) -> PathBuf {
    let dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::repo().join("target"))
        .join("cuda-sources-test")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::create_dir_all(dir.join("kernels")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        "[package]\nname = \"ships-cuda\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n[workspace]\n",
    )
    .unwrap();
    std::fs::write(dir.join("src/lib.rs"), "pub fn nothing_to_see() {}\n").unwrap();
    std::fs::write(dir.join("kernels/scale.cu"), KERNELS).unwrap();
    if let Some(text) = config {
        std::fs::write(dir.join("cuda-lint.toml"), text).unwrap();
    }
    dir
}

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-cuda-lint"))
        .arg("cuda-lint")
        .arg("--offline")
        .args(args)
        .current_dir(dir)
        .env_remove("GITHUB_WORKSPACE")
        .env_remove("CI_PROJECT_DIR")
        .output()
        .expect("cargo-cuda-lint runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn the_shipped_cuda_sources_are_checked_with_the_crate() {
    let dir = scratch("human", None);
    let out = run(&dir, &["--cuda-sources"]);
    let err = stderr(&out);
    // The C++ error fails the run as a Rust one does.
    assert_eq!(out.status.code(), Some(101), "{err}");
    assert!(err.contains("error[cuda_lint::missing_sync]"), "{err}");
    assert!(
        err.contains(&format!("kernels/scale.cu:{}:", line_of("UNSYNCED"))),
        "{err}"
    );
    assert!(err.contains("warning[cuda_lint::pageable_async_copy]"), "{err}");
    assert!(
        err.contains(&format!("kernels/scale.cu:{}:", line_of("PAGEABLE"))),
        "{err}"
    );
    assert!(
        err.contains("1 CUDA C++ file(s) checked, 1 error(s), 1 warning(s)"),
        "{err}"
    );

    // Without the flag the C++ is not looked at.
    let out = run(&dir, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("scale.cu"));
}

#[test]
fn levels_from_flags_and_the_file_apply_to_the_cuda_sources() {
    let dir = scratch("flags", None);
    let out = run(&dir, &["--cuda-sources", "--", "-A", "cuda_lint::missing_sync"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(!err.contains("missing_sync"), "{err}");
    assert!(err.contains("warning[cuda_lint::pageable_async_copy]"), "{err}");

    let dir = scratch(
        "file",
        Some("[lints]\nmissing_sync = \"warn\"\npageable_async_copy = \"deny\"\n"),
    );
    let out = run(&dir, &["--cuda-sources"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(101), "{err}");
    assert!(err.contains("warning[cuda_lint::missing_sync]"), "{err}");
    assert!(err.contains("error[cuda_lint::pageable_async_copy]"), "{err}");
}

#[test]
fn the_cuda_findings_join_the_ci_report() {
    let dir = scratch("sarif", None);
    let out = run(&dir, &["--cuda-sources", "--message-format=github"]);
    let report = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(101), "{}", stderr(&out));
    let lines: Vec<&str> = report.lines().collect();
    assert_eq!(lines.len(), 2, "{report}");
    assert!(
        lines[0].starts_with(&format!("::error file=kernels/scale.cu,line={},", line_of("UNSYNCED")))
            || lines[1].starts_with(&format!("::error file=kernels/scale.cu,line={},", line_of("UNSYNCED"))),
        "{report}"
    );
    assert!(report.contains(&format!(
        "::warning file=kernels/scale.cu,line={},",
        line_of("PAGEABLE")
    )));
}

#[test]
fn a_package_outside_the_workspace_is_refused() {
    let dir = scratch("bad-package", None);
    let out = run(&dir, &["--cuda-sources", "-p", "not-a-member"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("package `not-a-member` is not a member"),
        "{}",
        stderr(&out)
    );
}

/// With `--message-format=json` the C++ findings are cargo `compiler-message`s on stdout, in
/// rustc's diagnostic shape, for rust-analyzer and other readers of cargo's JSON.
#[test]
fn the_cuda_findings_are_cargo_json_messages() {
    let dir = scratch("json", None);
    let out = run(&dir, &["--cuda-sources", "--message-format=json"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(101), "{err}");
    // Not as text on stderr any more: the JSON's `rendered` has it.
    assert!(!err.contains("error[cuda_lint::missing_sync]"), "{err}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut found = Vec::new();
    let mut package_ids = Vec::new();
    for line in stdout.lines() {
        let value: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        // Readers built on cargo_metadata take it as cargo's own message.
        let parsed: cargo_metadata::Message = serde_json::from_str(line).unwrap();
        if let cargo_metadata::Message::CompilerArtifact(a) = &parsed {
            package_ids.push(a.package_id.repr.clone());
        }
        let cargo_metadata::Message::CompilerMessage(m) = parsed else {
            continue;
        };
        let code = m.message.code.as_ref().map(|c| c.code.clone()).unwrap_or_default();
        let primary = m.message.spans.iter().find(|s| s.is_primary).expect("a primary span");
        found.push((
            code,
            format!("{:?}", m.message.level),
            primary.file_name.clone(),
            primary.line_start,
            m.package_id.repr.clone(),
            value,
        ));
    }
    let finding = |code: &str| {
        found
            .iter()
            .find(|f| f.0 == code)
            .unwrap_or_else(|| panic!("no {code} in {stdout}"))
    };
    let unsynced = finding("cuda_lint::missing_sync");
    assert_eq!(unsynced.1, "Error");
    assert_eq!(unsynced.2, "kernels/scale.cu");
    assert_eq!(unsynced.3, line_of("UNSYNCED"));
    let pageable = finding("cuda_lint::pageable_async_copy");
    assert_eq!(pageable.1, "Warning");
    assert_eq!(pageable.2, "kernels/scale.cu");
    assert_eq!(pageable.3, line_of("PAGEABLE"));
    // The package is the crate's, as cargo names it in its own messages.
    assert_eq!(package_ids, std::slice::from_ref(&unsynced.4), "{stdout}");
    let message = &unsynced.5["message"];
    assert_eq!(message["$message_type"], "diagnostic");
    assert!(
        message["rendered"]
            .as_str()
            .unwrap()
            .contains("error[cuda_lint::missing_sync]"),
        "{message}"
    );
    let span = &message["spans"][0];
    let text = KERNELS;
    let (start, end) = (
        span["byte_start"].as_u64().unwrap() as usize,
        span["byte_end"].as_u64().unwrap() as usize,
    );
    assert!(text[start..end].contains("pinned[0]"), "{}", &text[start..end]);
    assert_eq!(
        span["column_start"].as_u64().unwrap() as usize,
        text.lines()
            .nth(line_of("UNSYNCED") - 1)
            .unwrap()
            .find("pinned[0]")
            .unwrap()
            + 1,
        "{span}"
    );

    // `json-diagnostic-short` renders the short form.
    let out = run(&dir, &["--cuda-sources", "--message-format=json-diagnostic-short"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("kernels/scale.cu:{}:", line_of("UNSYNCED"))),
        "{stdout}"
    );
}
