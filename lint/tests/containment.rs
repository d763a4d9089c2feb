//! A panic inside the analysis of one body (injected with `CUDA_LINT_TEST_PANIC`) becomes a
//! "could not analyse" warning for that body: the crate still compiles, the other bodies are
//! still linted, and nothing is printed as an ICE, with rustc's front end on one thread or on
//! several (`-Zthreads`, where a panic hook swapped per body would race).

use std::path::Path;
use std::process::Command;

const SOURCE: &str = r#"
use std::ffi::c_void;
unsafe extern "C" {
    fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, count: usize, kind: i32, stream: *mut c_void) -> i32;
}
pub fn broken(dev: *mut c_void, stream: *mut c_void) {
    let host = vec![0u8; 1 << 20];
    unsafe { cudaMemcpyAsync(dev, host.as_ptr().cast(), 1 << 20, 1, stream) };
}
pub fn fine(dev: *mut c_void, stream: *mut c_void) {
    let host = vec![0u8; 1 << 20];
    unsafe { cudaMemcpyAsync(dev, host.as_ptr().cast(), 1 << 20, 1, stream) };
}
"#;

fn run(threads: u32) -> (bool, String) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("containment-{threads}"));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("lib.rs");
    std::fs::write(&file, SOURCE).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cuda-lint-driver"))
        .arg(&file)
        .args(["--crate-type=lib", "--edition=2024", "--emit=metadata", "-Aunused"])
        .arg(format!("-Zthreads={threads}"))
        .arg("--out-dir")
        .arg(&dir)
        .env("CUDA_LINT_TEST_PANIC", "broken")
        .env("RUSTC_ICE", "0")
        .output()
        .expect("the driver runs");
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_panic_in_one_body_is_a_note_and_the_rest_is_linted() {
    for threads in [1, 4] {
        let (ok, stderr) = run(threads);
        assert!(ok, "-Zthreads={threads}: the compilation failed:\n{stderr}");
        assert!(
            stderr.contains("cuda-lint could not analyse this function (panic injected by CUDA_LINT_TEST_PANIC at "),
            "-Zthreads={threads}: no note for the body that panicked:\n{stderr}"
        );
        assert_eq!(
            stderr.matches("asynchronous copy from pageable host memory").count(),
            1,
            "-Zthreads={threads}: the other body is not linted once:\n{stderr}"
        );
        assert!(
            !stderr.contains("panicked at") && !stderr.contains("internal compiler error"),
            "-Zthreads={threads}: the panic was printed:\n{stderr}"
        );
    }
}
