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
    scratch_dir("fix-user")
}

fn scratch_dir(name: &str) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::repo().join("target"))
        .join("fix-test")
        .join(name)
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

/// What an editor gets (rust-analyzer turns a suggestion into a quick fix offered where the
/// cursor meets the suggestion's range, titled with its text): the edit covers the finding's own
/// range, and its text is one line.
#[test]
fn quick_fix_covers_the_finding_on_one_line() {
    let dir = scratch_dir("quick-fix-user");
    scratch(&dir);
    let out = cargo_cuda_lint(&dir, &["--offline", "--message-format=json"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let finding = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|m| m.get("message").cloned())
        .find(|m| m["code"]["code"] == "cuda_lint::missing_sync")
        .unwrap_or_else(|| {
            panic!(
                "no missing_sync finding:\n{stdout}\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    let primary = finding["spans"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["is_primary"] == true)
        .expect("a primary span")
        .clone();
    let edit = finding["children"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["spans"].as_array().cloned().unwrap_or_default())
        .find(|s| s["suggested_replacement"].is_string())
        .expect("a suggestion");
    let replacement = edit["suggested_replacement"].as_str().unwrap();
    assert_eq!(replacement, "s.synchronize()?; let first = host[0]", "{edit}");
    assert!(
        edit["byte_start"].as_u64() <= primary["byte_start"].as_u64()
            && edit["byte_end"].as_u64() >= primary["byte_end"].as_u64(),
        "the edit {edit} does not cover the finding {primary}"
    );
}
