//! `cuda-lint check --define NAME[=VALUE]` / `--undefine NAME`: the build the file is read as.
//! CuSan's tests keep their fixing sync under `#ifdef CUSAN_SYNC`: built without it they race,
//! built with it they do not.

use std::path::PathBuf;
use std::process::{Command, Output};

const RACY_UNLESS_SYNCED: &str = r#"#include <cuda_runtime.h>

float readback(float* d, int n, cudaStream_t s) {
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
#ifdef CUSAN_SYNC
    cudaStreamSynchronize(s);
#endif
#if defined(PIPELINE_DEPTH) && PIPELINE_DEPTH > 2
    cudaStreamSynchronize(s);
#endif
    return h[0];
}
"#;

fn file() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cuda-lint-cpp-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("racy.cu");
    std::fs::write(&path, RACY_UNLESS_SYNCED).unwrap();
    path
}

fn check(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cuda-lint"))
        .arg("check")
        .arg("--message-format=short")
        .args(args)
        .arg(file())
        .output()
        .unwrap()
}

fn findings(out: &Output) -> usize {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("cuda_lint::missing_sync"))
        .count()
}

#[test]
fn the_build_given_on_the_command_line_decides_the_arms() {
    let default = check(&[]);
    assert_eq!(findings(&default), 1, "{}", String::from_utf8_lossy(&default.stderr));
    assert_eq!(default.status.code(), Some(1));

    let synced = check(&["--define", "CUSAN_SYNC"]);
    assert_eq!(findings(&synced), 0, "{}", String::from_utf8_lossy(&synced.stderr));
    assert_eq!(synced.status.code(), Some(0));

    // A value: `PIPELINE_DEPTH > 2` holds for 4, not for 2.
    assert_eq!(findings(&check(&["--define=PIPELINE_DEPTH=4"])), 0);
    assert_eq!(findings(&check(&["--define", "PIPELINE_DEPTH=2"])), 1);

    // `--undefine` after `--define` takes it back.
    assert_eq!(
        findings(&check(&["--define", "CUSAN_SYNC", "--undefine", "CUSAN_SYNC"])),
        1
    );

    let bad = check(&["--define", "9LIVES"]);
    assert_eq!(bad.status.code(), Some(2), "{}", String::from_utf8_lossy(&bad.stderr));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("is not a macro"));
}

/// A project whose `cuda-lint.toml` says its build (`[cpp]`): the racy file and that file.
fn project(toml: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "cuda-lint-cpp-config-toml-{}-{}",
        std::process::id(),
        toml.len()
    ));
    std::fs::create_dir_all(dir.join("include")).unwrap();
    std::fs::write(dir.join("racy.cu"), RACY_UNLESS_SYNCED).unwrap();
    std::fs::write(dir.join("cuda-lint.toml"), toml).unwrap();
    dir
}

fn check_in(dir: &PathBuf, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cuda-lint"))
        .current_dir(dir)
        .arg("check")
        .arg("--message-format=short")
        .args(args)
        .arg("racy.cu")
        .output()
        .unwrap()
}

#[test]
fn the_build_given_in_cuda_lint_toml_decides_the_arms_and_the_command_line_comes_after() {
    let dir = project("[cpp]\ndefines = [\"CUSAN_SYNC\"]\ninclude-dirs = [\"include\"]\n");
    let synced = check_in(&dir, &[]);
    assert_eq!(findings(&synced), 0, "{}", String::from_utf8_lossy(&synced.stderr));
    assert_eq!(synced.status.code(), Some(0));
    // `--undefine` on the command line undoes the file's define.
    let undone = check_in(&dir, &["--undefine", "CUSAN_SYNC"]);
    assert_eq!(findings(&undone), 1, "{}", String::from_utf8_lossy(&undone.stderr));

    let dir = project("[cpp]\nundefines = [\"CUSAN_SYNC\"]\ndefines = [\"PIPELINE_DEPTH=4\"]\n");
    assert_eq!(findings(&check_in(&dir, &[])), 0);
}

#[test]
fn a_malformed_cpp_table_is_an_error_with_its_place() {
    let dir = project("[cpp]\ndefines = [\"NOT A MACRO\"]\n");
    let out = check_in(&dir, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Not analysed (3), as for every mistake in the file: its build would change what is found.
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("cuda-lint.toml:2:"), "{stderr}");
    assert!(stderr.contains("not a macro definition"), "{stderr}");
    let dir = project("[cpp]\ndefine = [\"X\"]\n");
    let out = check_in(&dir, &[]);
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
}
