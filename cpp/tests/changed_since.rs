//! `cuda-lint check --changed-since REV`, run as a review job runs it, in a git repository: a
//! finding is reported when its site or a site it names (here the copy) is on a line changed
//! since REV, and left out otherwise; a revision git does not know fails the run (exit 3).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Two reads before their copies are done (`missing_sync`).
const BEFORE: &str = r#"#include <cuda_runtime.h>

float untouched(float* d, int n, cudaStream_t s) {
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    return h[0];
}

float reviewed(float* d, int n, cudaStream_t s) {
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    return h[n - 1];
}
// cuda-lint: allow-file(device_memory_leak, uninitialized_device_read, unread_kernel_output)
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

/// A git repository holding `src/kernels.cu` with `BEFORE`, committed.
fn repository() -> Option<PathBuf> {
    let dir = std::env::temp_dir().join(format!("cuda-lint-cpp-changed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/kernels.cu"), BEFORE).unwrap();
    let made = git(&dir, &["init", "-q"]) && git(&dir, &["add", "-A"]) && git(&dir, &["commit", "-q", "-m", "before"]);
    made.then_some(dir)
}

fn run(dir: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cuda-lint"));
    cmd.arg("check").args(args).current_dir(dir);
    for var in cuda_lint_protocol::output::CI_WORKSPACE_VARS {
        cmd.env_remove(var);
    }
    cmd.output().unwrap()
}

/// The lines of the findings of `--message-format=short`.
fn lines(out: &Output) -> Vec<usize> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split(':').nth(1)?.parse().ok())
        .collect()
}

#[test]
fn only_findings_a_change_is_part_of() {
    let Some(dir) = repository() else {
        println!("git is not available here: the --changed-since test is skipped");
        return;
    };
    // The change touches `reviewed`'s copy only, not the line of its read.
    let after = BEFORE.replace(
        "    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);\n    return h[n - 1];",
        "    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s); // the last one only\n    return h[n - 1];",
    );
    assert_ne!(after, BEFORE);
    std::fs::write(dir.join("src/kernels.cu"), &after).unwrap();

    let all = run(&dir, &["--message-format=short", "src"]);
    assert_eq!(lines(&all), vec![7, 14], "{}", String::from_utf8_lossy(&all.stderr));

    let out = run(&dir, &["--message-format=short", "--changed-since", "HEAD", "src"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(lines(&out), vec![14], "{stderr}");
    assert!(
        stderr.contains("1 finding outside the lines changed since HEAD was not reported"),
        "{stderr}"
    );
    assert_eq!(out.status.code(), Some(1), "the one reported is an error: {stderr}");

    // Committed: nothing changed since HEAD, nothing reported, a clean run.
    assert!(git(&dir, &["commit", "-q", "-a", "-m", "after"]));
    let out = run(&dir, &["--message-format=short", "--changed-since=HEAD", "src"]);
    assert_eq!(
        lines(&out),
        Vec::<usize>::new(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0));

    // A revision git does not know is not "nothing changed".
    let out = run(&dir, &["--changed-since", "no-such-branch", "src"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("`no-such-branch` is not a revision"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
