//! `tests/stable_user/`, a user's crate with every attribute (a file-based typed kernel too,
//! which trybuild cannot have), checked with `-D warnings`:
//! - as a plain build, with no check-cfg or other configuration (on the toolchain running this
//!   test; CI also checks it on stable);
//! - on nightly, also as `cargo cuda-lint` compiles it: `CUDA_LINT_ACTIVE=1` and the tools
//!   `cuda_lint` and `cuda_lint_summary` registered, so the emitted attributes must be accepted.

use std::path::Path;
use std::process::Command;

fn check(active: bool) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/stable_user");
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join(if active { "stable-user-active" } else { "stable-user" });
    let mut rustflags = String::from("-D warnings");
    let mut cmd = Command::new(env!("CARGO"));
    cmd.arg("check")
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS")
        .env_remove("CUDA_LINT_ACTIVE");
    if active {
        rustflags.push_str(
            " -Zcrate-attr=feature(register_tool) -Zcrate-attr=register_tool(cuda_lint) \
             -Zcrate-attr=register_tool(cuda_lint_summary)",
        );
        cmd.env("CUDA_LINT_ACTIVE", "1");
    }
    let out = cmd.env("RUSTFLAGS", rustflags).output().expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo check of tests/stable_user (active: {active}) failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn nightly() -> bool {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    Command::new(rustc)
        .arg("-V")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("nightly"))
}

#[test]
fn plain_build_is_warning_free() {
    check(false);
}

#[test]
fn active_build_is_accepted_with_the_tools_registered() {
    if !nightly() {
        println!("skip: registering the tools needs a nightly compiler (-Zcrate-attr)");
        return;
    }
    check(true);
}
