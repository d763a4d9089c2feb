//! `cuda-lint.toml` end to end: a scratch crate (written under the target directory) whose
//! configuration raises a lint's level and describes a wrapper the analysis cannot see into;
//! then the same crate with mistakes in the file, which stop `cargo cuda-lint` with the line
//! and the valid keys.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SOURCE: &str = r#"
use cuda_lint_runtime::{Context, Result, Stream};

pub mod vendor {
    unsafe extern "C" {
        fn vendor_wait_all();
    }
    /// Waits for every stream: nothing in its body says so.
    pub fn wait_all(_stream: &cuda_lint_runtime::Stream) {
        unsafe { vendor_wait_all() }
    }
}

pub fn upload(ctx: &Context, s: &Stream) -> Result<()> {
    let data = vec![1.0f32; 1024];
    let mut dev = ctx.alloc::<f32>(1024)?;
    unsafe { s.copy_htod_async(&mut dev, &data)? }; // pageable, raised to deny by the config
    s.synchronize()
}

pub fn download(ctx: &Context, s: &Stream) -> Result<f32> {
    let dev = ctx.alloc_zeroed::<f32>(1024)?;
    let mut host = ctx.alloc_pinned::<f32>(1024)?;
    unsafe { s.copy_dtoh_async(&mut host, &dev)? };
    vendor::wait_all(s); // a wait, says the config
    Ok(host[0])
}
"#;

/// A crate at `dir` using the runtime, with `config` as its cuda-lint.toml (if any).
fn scratch_crate(dir: &Path, config: Option<&str>) {
    scratch_crate_with(dir, config, SOURCE);
}

/// The same, with `source` as its `src/lib.rs`.
fn scratch_crate_with(dir: &Path, config: Option<&str>, source: &str) {
    let repo = common::repo();
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"config-user\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
             [dependencies]\ncuda-lint-runtime = {{ path = {:?} }}\n\n[workspace]\n",
            repo.join("runtime")
        ),
    )
    .unwrap();
    // The workspace's lock file: the same dependency versions, no resolution needed.
    std::fs::copy(repo.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    std::fs::write(dir.join("src/lib.rs"), source).unwrap();
    let path = dir.join("cuda-lint.toml");
    match config {
        Some(text) => std::fs::write(path, text).unwrap(),
        None => {
            let _ = std::fs::remove_file(path);
        }
    }
}

fn run(dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-cuda-lint"))
        .args(["cuda-lint", "--offline", "--message-format=json"])
        .current_dir(dir)
        .output()
        .expect("cargo-cuda-lint runs")
}

/// (lint, level, line) of each cuda-lint finding.
fn findings(out: &Output) -> Vec<(String, String, u64)> {
    let mut found = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let diag = &msg["message"];
        let Some(code) = diag["code"]["code"].as_str() else {
            continue;
        };
        let line = common::primary_location(diag).map_or(0, |(_, line)| line);
        found.push((code.to_string(), diag["level"].as_str().unwrap_or("").to_string(), line));
    }
    found.sort();
    found
}

/// The line of `SOURCE` that contains `text`.
fn line_of(text: &str) -> u64 {
    SOURCE.lines().position(|l| l.contains(text)).expect("marker in SOURCE") as u64 + 1
}

fn scratch_dir(name: &str) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::repo().join("target"))
        .join("config-test")
        .join(name)
}

#[test]
fn levels_and_function_effects_from_the_file() {
    let dir = scratch_dir("good");
    scratch_crate(&dir, None);
    let (copy, read) = (line_of("s.copy_htod_async"), line_of("Ok(host[0])"));
    let without = findings(&run(&dir));
    assert_eq!(
        without,
        [
            ("cuda_lint::missing_sync".into(), "error".into(), read),
            ("cuda_lint::pageable_async_copy".into(), "warning".into(), copy),
        ],
        "without the file"
    );
    scratch_crate(
        &dir,
        Some(
            "# raise the pageable lint, and describe the vendor's wait\n\
             [lints]\npageable_async_copy = \"deny\"\n\n\
             [[functions]]\npath = \"config_user::vendor::wait_all\"\neffects = [\"sync(all)\"]\n",
        ),
    );
    let with = findings(&run(&dir));
    assert_eq!(
        with,
        [("cuda_lint::pageable_async_copy".into(), "error".into(), copy)],
        "with the file"
    );
}

#[test]
fn mistakes_in_the_file_stop_with_the_line_and_the_valid_keys() {
    let dir = scratch_dir("bad");
    for (config, want) in [
        (
            "[lints]\nmissing_synch = \"deny\"\n",
            "cuda-lint.toml:2:1: unknown lint or group `missing_synch`; the lints and groups are: pageable_async_copy",
        ),
        ("[lint]\n", "cuda-lint.toml:1:"),
        (
            "[[functions]]\npath = \"config_user::vendor::wait_all\"\neffects = [\"sync(everything)\"]\n",
            "cuda-lint.toml:3:12: cannot read effect `sync(everything)`",
        ),
    ] {
        scratch_crate(&dir, Some(config));
        let out = run(&dir);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(want), "want {want:?} in:\n{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

/// Copies of several sizes, in library code and in a `#[cfg(test)]` module, and a read after a
/// kernel whose source is not visible (`unverified`, allow by default).
const SIZES: &str = r#"
use cuda_lint_runtime::{Context, Result, Stream};

pub fn small(ctx: &Context, s: &Stream) -> Result<u32> {
    let dev = ctx.alloc_zeroed::<u32>(1)?;
    let mut count = [0u32; 1];
    unsafe { s.copy_dtoh_async(&mut count, &dev)? }; // small copy
    s.synchronize()?;
    Ok(count[0])
}

pub fn large(ctx: &Context, s: &Stream) -> Result<()> {
    let frame = [0u8; 1 << 20];
    let mut dev = ctx.alloc::<u8>(1 << 20)?;
    unsafe { s.copy_htod_async(&mut dev, &frame)? }; // large copy
    s.synchronize()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upload_in_a_test() -> Result<()> {
        let ctx = Context::new(0)?;
        let s = ctx.new_stream()?;
        let data = vec![1.0f32; 1 << 20];
        let mut dev = ctx.alloc::<f32>(1 << 20)?;
        unsafe { s.copy_htod_async(&mut dev, &data)? }; // copy in a test
        s.synchronize()
    }
}
"#;

fn sizes_line(text: &str) -> u64 {
    SIZES.lines().position(|l| l.contains(text)).expect("marker in SIZES") as u64 + 1
}

fn run_all_targets(dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-cuda-lint"))
        .args(["cuda-lint", "--offline", "--all-targets", "--message-format=json"])
        .current_dir(dir)
        .output()
        .expect("cargo-cuda-lint runs")
}

#[test]
fn size_threshold_test_switch_and_groups_from_the_file() {
    let dir = scratch_dir("perf");
    let (small, large, in_test) = (
        sizes_line("// small copy"),
        sizes_line("// large copy"),
        sizes_line("// copy in a test"),
    );
    let copies = |out: &Output| -> Vec<(String, u64)> {
        let mut v: Vec<(String, u64)> = findings(out)
            .into_iter()
            .filter(|(code, ..)| code == "cuda_lint::pageable_async_copy")
            .map(|(_, level, line)| (level, line))
            .collect();
        v.dedup();
        v
    };
    // Defaults: the 4-byte copy is under 64 KiB; the 1 MiB one and the test's are reported.
    scratch_crate_with(&dir, None, SIZES);
    assert_eq!(
        copies(&run_all_targets(&dir)),
        [("warning".into(), large), ("warning".into(), in_test)]
    );
    // A threshold of 0 reports every size; `in-tests = false` silences the test's copy.
    scratch_crate_with(&dir, Some("[perf]\nmin-copy-bytes = 0\nin-tests = false\n"), SIZES);
    assert_eq!(
        copies(&run_all_targets(&dir)),
        [("warning".into(), small), ("warning".into(), large)]
    );
    // Groups: `perf` denied raises the copies; `all` allowed silences them.
    scratch_crate_with(&dir, Some("[lints]\nperf = \"deny\"\n"), SIZES);
    assert_eq!(
        copies(&run_all_targets(&dir)),
        [("error".into(), large), ("error".into(), in_test)]
    );
    scratch_crate_with(&dir, Some("[lints]\n\"cuda_lint::all\" = \"allow\"\n"), SIZES);
    assert_eq!(copies(&run_all_targets(&dir)), []);
}

/// (lint, note, the file and line the note points at).
type LevelNote = (String, String, Option<(String, u64)>);

/// The notes of each cuda-lint diagnostic about where its level comes from: rustc's
/// "requested on the command line ..." and "the lint level is defined here" (with the file and
/// line it points at), of the JSON on stdout.
fn level_notes(out: &Output) -> Vec<LevelNote> {
    let mut notes = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let diag = &msg["message"];
        let Some(code) = diag["code"]["code"].as_str() else {
            continue;
        };
        for child in diag["children"].as_array().into_iter().flatten() {
            let text = child["message"].as_str().unwrap_or_default();
            if text.contains("command line") || text.contains("lint level") || text.contains("implied by") {
                notes.push((code.to_string(), text.to_string(), common::primary_location(child)));
            }
        }
    }
    notes
}

/// `cargo cuda-lint --message-format=json ARGS` (a later `--message-format` wins) with the
/// crate's own target directory: the scratch crates of these tests share a package name, and
/// in a shared target directory cargo may take one's build for another's.
fn run_own(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-cuda-lint"))
        .args(["cuda-lint", "--offline"])
        .args(if args.iter().any(|a| a.starts_with("--message-format")) {
            &[][..]
        } else {
            &["--message-format=json"][..]
        })
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env_remove("GITHUB_WORKSPACE")
        .env_remove("CI_PROJECT_DIR")
        .output()
        .expect("cargo-cuda-lint runs")
}

#[test]
fn a_level_from_the_file_is_noted_at_its_line_there() {
    let dir = scratch_dir("level-note");
    let config = "# levels\n[lints]\npageable_async_copy = \"deny\"\n";
    scratch_crate(&dir, Some(config));
    let out = run_own(&dir, &[]);
    let notes = level_notes(&out);
    assert_eq!(
        notes,
        [(
            "cuda_lint::pageable_async_copy".to_string(),
            "the lint level is defined here".to_string(),
            Some(("cuda-lint.toml".to_string(), 3)),
        )],
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The rendered text names the file's line, not the command line.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("requested on the command line"), "{stdout}");
    assert!(stdout.contains("cuda-lint.toml:3:1"), "{stdout}");
    // CI reports leave the note out, as they leave rustc's other notes on levels.
    let out = run_own(&dir, &["--message-format=sarif"]);
    let sarif = String::from_utf8_lossy(&out.stdout);
    assert!(sarif.contains("cuda_lint::pageable_async_copy"), "{sarif}");
    assert!(
        !sarif.contains("lint level is defined") && !sarif.contains("\"cuda-lint.toml\""),
        "{sarif}"
    );

    // A group in the file: its line, and the group it comes through.
    scratch_crate(&dir, Some("[lints]\nperf = \"deny\"\n"));
    let notes = level_notes(&run_own(&dir, &[]));
    assert!(
        notes.contains(&(
            "cuda_lint::pageable_async_copy".to_string(),
            "the lint level is defined here".to_string(),
            Some(("cuda-lint.toml".to_string(), 2)),
        )),
        "{notes:?}"
    );

    // A flag after `--` wins over the file, and is said to.
    scratch_crate(&dir, Some(config));
    let out = run_own(&dir, &["--", "-W", "cuda_lint::pageable_async_copy"]);
    let notes = level_notes(&out);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].1.starts_with("requested on the command line with `-W"),
        "{notes:?}"
    );
}
