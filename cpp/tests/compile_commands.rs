//! `cuda-lint check -p build/`: the files of `build/compile_commands.json`, each checked with its
//! own `-D` (the arms of `#if` it compiles) and `-I` (where its `#include "..."` headers are).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const RACY_UNLESS_SYNCED: &str = r#"#include <cuda_runtime.h>
float readback(const float* d, int n, cudaStream_t s) {
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
#ifdef SYNC_BEFORE_READ
    cudaStreamSynchronize(s);
#endif
    return h[0];
}
// cuda-lint: allow-file(device_memory_leak, uninitialized_device_read, unread_kernel_output)
"#;

const USES_A_HEADER: &str = r#"#include "staging.h"
float first(int n) {
    float* d = make_device(n);
    return d[0];
}
"#;

const HEADER: &str = r#"#pragma once
#include <cuda_runtime.h>
inline float* make_device(int n) {
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    return d;
}
// cuda-lint: allow-file(device_memory_leak, uninitialized_device_read, unread_kernel_output)
"#;

fn project() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cuda-lint-cpp-ccdb-{}", std::process::id()));
    for sub in ["src", "inc", "build"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    std::fs::write(dir.join("src/racy.cu"), RACY_UNLESS_SYNCED).unwrap();
    std::fs::write(dir.join("src/first.cu"), USES_A_HEADER).unwrap();
    std::fs::write(dir.join("inc/staging.h"), HEADER).unwrap();
    let build = dir.join("build");
    let db = format!(
        r#"[
  {{"directory": "{b}", "file": "../src/racy.cu", "arguments": ["nvcc", "-DSYNC_BEFORE_READ", "-c", "../src/racy.cu"]}},
  {{"directory": "{b}", "file": "../src/first.cu", "command": "nvcc -I../inc -c ../src/first.cu"}}
]"#,
        b = build.display()
    );
    std::fs::write(build.join("compile_commands.json"), db).unwrap();
    dir
}

fn check(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cuda-lint"))
        .current_dir(dir)
        .arg("check")
        .arg("--message-format=short")
        .args(args)
        .output()
        .unwrap()
}

fn lints(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let file = l.split(':').next()?.rsplit('/').next()?.to_string();
            let lint = l
                .rsplit('[')
                .next()?
                .trim_end_matches(']')
                .trim_start_matches("cuda_lint::")
                .to_string();
            l.contains("[cuda_lint::").then(|| format!("{file} {lint}"))
        })
        .collect()
}

#[test]
fn the_database_gives_each_file_its_defines_and_include_folders() {
    let dir = project();
    // Without the database: the race is there (no SYNC_BEFORE_READ) and the header is not
    // found (so the helper's device memory is not known).
    let plain = check(&dir, &["src"]);
    assert_eq!(
        lints(&plain),
        vec!["racy.cu missing_sync"],
        "{}",
        String::from_utf8_lossy(&plain.stderr)
    );

    // With it: racy.cu is built with the wait, first.cu finds its header under ../inc.
    let built = check(&dir, &["-p", "build"]);
    assert_eq!(
        lints(&built),
        vec!["first.cu host_deref_device_ptr"],
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    assert_eq!(built.status.code(), Some(1));

    // A path narrows the files; the database still gives their flags.
    let one = check(&dir, &["-p", "build/compile_commands.json", "src/racy.cu"]);
    assert!(lints(&one).is_empty(), "{}", String::from_utf8_lossy(&one.stdout));
    assert_eq!(one.status.code(), Some(0));
}

#[test]
fn a_database_that_cannot_be_read_is_a_failed_run() {
    let dir = project();
    std::fs::write(dir.join("build/broken.json"), "[{\"file\": 3}").unwrap();
    let out = check(&dir, &["-p", "build/broken.json"]);
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a compilation database"));
    let missing = check(&dir, &["-p", "nowhere"]);
    assert_eq!(missing.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read"));
}
