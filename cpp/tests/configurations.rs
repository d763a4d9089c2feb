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
