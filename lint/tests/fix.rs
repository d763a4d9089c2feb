//! `cargo cuda-lint --fix` end to end, on a scratch crate written under the target directory:
//! it refuses to touch a dirty tree, and with `--allow-dirty` inserts the waits, after which
//! the crate lints clean.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SOURCE: &str = r#"use cuda_lint_runtime::{Context, DeviceBuffer, Result, Stream};

pub fn download(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    let first = host[0];
    Ok(first)
}
"#;

fn scratch(dir: &Path) {
    let repo = common::repo();
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"fix-user\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
             [dependencies]\ncuda-lint-runtime = {{ path = {:?} }}\n\n[workspace]\n",
            repo.join("runtime")
        ),
    )
    .unwrap();
    std::fs::copy(repo.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    std::fs::write(dir.join("src/lib.rs"), SOURCE).unwrap();
}

fn cargo_cuda_lint(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-cuda-lint"))
        .arg("cuda-lint")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("cargo-cuda-lint runs")
}

fn dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::repo().join("target"))
        .join("fix-test")
        .join("fix-user")
}

#[test]
fn fix_refuses_a_dirty_tree_then_inserts_the_wait() {
    let dir = dir();
    scratch(&dir);
    // A git repository whose files are not committed: dirty.
    let git = Command::new("git").args(["init", "-q"]).current_dir(&dir).status();
    if git.is_ok_and(|s| s.success()) {
        let out = cargo_cuda_lint(&dir, &["--fix", "--offline"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "--fix must refuse a dirty tree:\n{stderr}");
        assert!(stderr.contains("--allow-dirty"), "{stderr}");
        assert_eq!(std::fs::read_to_string(dir.join("src/lib.rs")).unwrap(), SOURCE);
    } else {
        println!("git is not available: the dirty-tree check is skipped");
    }

    let out = cargo_cuda_lint(&dir, &["--fix", "--allow-dirty", "--allow-no-vcs", "--offline"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let fixed = std::fs::read_to_string(dir.join("src/lib.rs")).unwrap();
    assert_eq!(
        fixed,
        SOURCE.replace(
            "    let first = host[0];",
            "    s.synchronize()?;\n    let first = host[0];"
        ),
        "{stderr}"
    );

    let out = cargo_cuda_lint(&dir, &["--offline", "--message-format=json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("cuda_lint::"),
        "the fixed crate still has findings"
    );
}
