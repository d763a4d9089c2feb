//! `cuda-lint check --write-baseline FILE` and `--baseline FILE`, run as users run them: the
//! findings recorded today are left out after edits that move them, new ones (a new function,
//! one more of a finding already there) are reported, in every output format; a missing or
//! malformed baseline fails the run with the status of "could not analyse" (3). The key and
//! the file are tested on their own in `lint/protocol/tests/baseline.rs`.
#[path = "../../lint/protocol/tests/support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use support::{valid_gitlab, valid_sarif};

/// Today's code: a read before the copy is done (`missing_sync`, deny) and a copy from
/// pageable memory (`pageable_async_copy`, warn).
const TODAY: &str = r#"#include <cuda_runtime.h>
#include <stdlib.h>

float download(float* d, int n, cudaStream_t s) {
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    return h[0];
}

void upload(float* d, int n, cudaStream_t s) {
    float* staging = (float*)malloc(n * sizeof(float));
    cudaMemcpyAsync(d, staging, n * sizeof(float), cudaMemcpyHostToDevice, s);
    cudaStreamSynchronize(s);
    free(staging);
}
// cuda-lint: allow-file(device_memory_leak, uninitialized_device_read, unread_kernel_output)
"#;

/// Tomorrow's: lines added above both (every line number moves), a second read like the first
/// in `download` (the same key: one more than the baseline counts), and a new function with
/// its own finding.
const TOMORROW: &str = r#"#include <cuda_runtime.h>
#include <stdlib.h>

// Helpers to move data between the host and the device.
// (Comments added: every finding moves down.)

float download(float* d, int n, cudaStream_t s) {
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    float first = h[0];
    cudaStreamSynchronize(s);
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    return first + h[0]; // NEW-SAME-KEY
}

void upload(float* d, int n, cudaStream_t s) {
    float* staging = (float*)malloc(n * sizeof(float));
    cudaMemcpyAsync(d, staging, n * sizeof(float), cudaMemcpyHostToDevice, s);
    cudaStreamSynchronize(s);
    free(staging);
}

float fresh(float* d, int n, cudaStream_t s) {
    float* out;
    cudaMallocHost(&out, n * sizeof(float));
    cudaMemcpyAsync(out, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    return out[0]; // NEW-FUNCTION
}
// cuda-lint: allow-file(device_memory_leak, uninitialized_device_read, unread_kernel_output)
"#;

/// A project `dir` with `src/kernels.cu` holding `text`.
fn project(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cuda-lint-cpp-baseline-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/kernels.cu"), text).unwrap();
    dir
}

/// `cuda-lint check ARGS` in `dir`, outside any CI checkout.
fn run(dir: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cuda-lint"));
    cmd.arg("check").args(args).current_dir(dir);
    for var in cuda_lint_protocol::output::CI_WORKSPACE_VARS {
        cmd.env_remove(var);
    }
    cmd.output().unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The `path:line` of each finding of `--message-format=short`.
fn places(out: &Output) -> Vec<String> {
    stdout(out)
        .lines()
        .map(|l| l.splitn(3, ':').take(2).collect::<Vec<_>>().join(":"))
        .collect()
}

fn line_of(text: &str, marker: &str) -> usize {
    text.lines().position(|l| l.contains(marker)).unwrap() + 1
}

#[test]
fn recorded_findings_are_left_out_and_new_ones_reported() {
    let dir = project("new", TODAY);
    let before = run(&dir, &["--message-format=short", "src"]);
    assert_eq!(before.status.code(), Some(1));
    assert_eq!(places(&before).len(), 2, "{}", stdout(&before));

    // Recording reports nothing, passes, and says how many it recorded.
    let written = run(&dir, &["--write-baseline", "cuda-lint-baseline.json", "src"]);
    assert_eq!(written.status.code(), Some(0), "{}", stderr(&written));
    assert_eq!(stdout(&written), "");
    assert!(
        stderr(&written).contains("cuda-lint: 2 findings written to the baseline cuda-lint-baseline.json"),
        "{}",
        stderr(&written)
    );
    let recorded = std::fs::read_to_string(dir.join("cuda-lint-baseline.json")).unwrap();
    let recorded: Value = serde_json::from_str(&recorded).unwrap();
    let entries = recorded["findings"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    assert!(entries.iter().all(|e| e["file"] == "src/kernels.cu"), "{recorded}");
    let functions: Vec<&str> = entries.iter().map(|e| e["function"].as_str().unwrap()).collect();
    assert_eq!(functions, ["download", "upload"]);
    assert!(entries.iter().all(|e| e.get("line").is_none()));

    // The same code with the baseline: clean, and the stderr count.
    let same = run(
        &dir,
        &["--baseline", "cuda-lint-baseline.json", "--message-format=short", "src"],
    );
    assert_eq!(same.status.code(), Some(0), "{}", stdout(&same));
    assert_eq!(stdout(&same), "");
    assert!(
        stderr(&same).contains("cuda-lint: 2 findings in the baseline were not reported"),
        "{}",
        stderr(&same)
    );

    // After the edit: the two recorded findings moved and are still left out; the second read
    // in `download` (one more of a recorded key) and the new function's read are reported.
    std::fs::write(dir.join("src/kernels.cu"), TOMORROW).unwrap();
    let without = run(&dir, &["--message-format=short", "src"]);
    assert_eq!(places(&without).len(), 4, "{}", stdout(&without));
    let after = run(
        &dir,
        &["--baseline=cuda-lint-baseline.json", "--message-format=short", "src"],
    );
    assert_eq!(after.status.code(), Some(1), "{}", stderr(&after));
    assert_eq!(
        places(&after),
        [
            format!("src/kernels.cu:{}", line_of(TOMORROW, "NEW-SAME-KEY")),
            format!("src/kernels.cu:{}", line_of(TOMORROW, "NEW-FUNCTION")),
        ],
        "{}",
        stdout(&after)
    );
    assert!(
        stderr(&after).contains("cuda-lint: 2 findings in the baseline were not reported"),
        "{}",
        stderr(&after)
    );

    // Wherever cuda-lint runs and however the files are named, the keys are the same: paths are
    // relative to the baseline's folder.
    let from_src = run(
        &dir.join("src"),
        &[
            "--baseline",
            "../cuda-lint-baseline.json",
            "--message-format=short",
            ".",
        ],
    );
    assert_eq!(places(&from_src).len(), 2, "{}", stdout(&from_src));
    let absolute = run(
        Path::new("/"),
        &[
            "--baseline",
            dir.join("cuda-lint-baseline.json").to_str().unwrap(),
            "--message-format=short",
            dir.join("src/kernels.cu").to_str().unwrap(),
        ],
    );
    assert_eq!(places(&absolute).len(), 2, "{}", stdout(&absolute));
}

#[test]
fn every_format_leaves_the_baselined_findings_out() {
    let dir = project("formats", TODAY);
    let written = run(&dir, &["--write-baseline", "baseline.json", "src"]);
    assert_eq!(written.status.code(), Some(0), "{}", stderr(&written));
    std::fs::write(dir.join("src/kernels.cu"), TOMORROW).unwrap();
    let with = |format: &str| {
        run(
            &dir,
            &[
                "--baseline",
                "baseline.json",
                &format!("--message-format={format}"),
                "src",
            ],
        )
    };

    let sarif = with("sarif");
    assert_eq!(sarif.status.code(), Some(1));
    let log = valid_sarif(&stdout(&sarif));
    let results = log["runs"][0]["results"].as_array().unwrap();
    let lines: Vec<u64> = results
        .iter()
        .map(|r| {
            r["locations"][0]["physicalLocation"]["region"]["startLine"]
                .as_u64()
                .unwrap()
        })
        .collect();
    let new = [
        line_of(TOMORROW, "NEW-SAME-KEY") as u64,
        line_of(TOMORROW, "NEW-FUNCTION") as u64,
    ];
    assert_eq!(lines, new, "{log}");
    assert_eq!(log["runs"][0]["invocations"][0]["executionSuccessful"], true);

    let github = stdout(&with("github"));
    assert_eq!(github.lines().count(), 2, "{github}");
    assert!(github.lines().all(|l| l.starts_with("::error ")), "{github}");

    let gitlab = valid_gitlab(&stdout(&with("gitlab")));
    assert_eq!(gitlab.len(), 2);

    let json = stdout(&with("json"));
    let lines: Vec<u64> = json
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, new);

    let human = with("human");
    assert_eq!(stdout(&human).matches("error[cuda_lint::missing_sync]").count(), 2);
    assert!(!stdout(&human).contains("pageable_async_copy"));
    let err = stderr(&human);
    assert!(err.contains("2 error(s), 0 warning(s)"), "{err}");
    assert!(
        err.contains("cuda-lint: 2 findings in the baseline were not reported"),
        "{err}"
    );
}

#[test]
fn fixed_findings_are_counted_and_one_baselined_finding_is_singular() {
    let dir = project("fixed", TODAY);
    run(&dir, &["--write-baseline", "baseline.json", "src"]);
    // `upload` fixed: its staging buffer is pinned now.
    let fixed = TODAY
        .replace(
            "float* staging = (float*)malloc(n * sizeof(float));",
            "float* staging; cudaMallocHost(&staging, n * sizeof(float));",
        )
        .replace("free(staging);", "cudaFreeHost(staging);");
    std::fs::write(dir.join("src/kernels.cu"), fixed).unwrap();
    let out = run(&dir, &["--baseline", "baseline.json", "src"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains("cuda-lint: 1 finding in the baseline was not reported"),
        "{err}"
    );
    assert!(err.contains("1 finding of baseline.json was not found"), "{err}");
}

#[test]
fn a_missing_or_malformed_baseline_fails_the_run_with_status_3() {
    let dir = project("malformed", TODAY);
    std::fs::write(dir.join("bad.json"), "{\"version\": 1,\n \"findings\": [\n").unwrap();
    std::fs::write(dir.join("old.json"), "{\"version\": 7, \"findings\": []}").unwrap();
    std::fs::write(
        dir.join("lines.json"),
        "{\"version\": 1, \"findings\": [{\"line\": 7}]}",
    )
    .unwrap();
    for (file, says) in [
        ("bad.json", "not a cuda-lint baseline"),
        ("old.json", "version 7"),
        ("lines.json", "unknown field `line`"),
        ("missing.json", "cannot read the baseline"),
    ] {
        let out = run(&dir, &["--baseline", file, "src"]);
        assert_eq!(out.status.code(), Some(3), "{file}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains(&format!("error: {file}")) && err.contains(says),
            "{file}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
        // Nothing analysed, nothing reported: not a clean-looking run either.
        assert_eq!(stdout(&out), "");
        assert!(err.contains("not everything asked for could be analysed"), "{err}");
        // The CI reports say the run failed.
        let sarif = run(&dir, &["--baseline", file, "--message-format=sarif", "src"]);
        assert_eq!(sarif.status.code(), Some(3));
        let log = valid_sarif(&stdout(&sarif));
        let invocation = &log["runs"][0]["invocations"][0];
        assert_eq!(invocation["executionSuccessful"], false, "{log}");
        assert!(
            invocation["toolExecutionNotifications"][0]["message"]["text"]
                .as_str()
                .unwrap()
                .contains(says)
        );
        let github = run(&dir, &["--baseline", file, "--message-format=github", "src"]);
        assert_eq!(github.status.code(), Some(3));
        assert!(
            stdout(&github).contains("title=cuda-lint%3A not analysed"),
            "{}",
            stdout(&github)
        );
    }
}

#[test]
fn a_baseline_that_cannot_be_written_fails_the_run() {
    let dir = project("unwritable", TODAY);
    let out = run(&dir, &["--write-baseline", "no/such/folder/baseline.json", "src"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(stderr(&out).contains("cannot write the baseline"), "{}", stderr(&out));
    // Something not analysed: no baseline is written (it would miss that part's findings).
    let out = run(&dir, &["--write-baseline", "baseline.json", "src", "nowhere"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(!dir.join("baseline.json").exists());
    assert!(stderr(&out).contains("was not written"), "{}", stderr(&out));
}

#[test]
fn baseline_usage_errors_exit_2() {
    let dir = project("usage", TODAY);
    for args in [
        &["--baseline"][..],
        &["--write-baseline"],
        &["--baseline="],
        &["--baseline", "a.json", "--baseline", "b.json", "src"],
        &["--baseline", "a.json", "--write-baseline", "b.json", "src"],
    ] {
        let out = run(&dir, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    }
    let help = Command::new(env!("CARGO_BIN_EXE_cuda-lint"))
        .arg("--help")
        .output()
        .unwrap();
    let help = stdout(&help);
    assert!(
        help.contains("--baseline FILE") && help.contains("--write-baseline FILE"),
        "{help}"
    );
}
