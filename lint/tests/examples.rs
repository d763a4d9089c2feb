//! `cargo cuda-lint` on the whole workspace (dogfood): every line of `examples/` that ends with
//! a `// cuda_lint::NAME` comment is reported with that lint, and nothing else is, so the fixed
//! programs, the runtime with its tests and benchmarks, the macros and the lint itself are
//! clean; no panic, no internal compiler error, no function skipped. Also checks the contracts
//! of `--message-format=json`, of lint flags after `--` and of the exit status.

mod common;

use std::collections::BTreeSet;
use std::process::{Command, Output};

use common::{cargo_cuda_lint, expected};

/// The compiler messages of cargo's JSON output.
fn messages(out: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).expect("cargo prints one JSON object a line"))
        .filter(|m| m["reason"] == "compiler-message")
        .map(|m| m["message"].clone())
        .collect()
}

#[test]
fn every_buggy_example_line_is_reported_and_nothing_else_in_the_workspace() {
    let expected = expected();
    assert_eq!(
        expected
            .iter()
            .map(|(_, _, lint)| lint.clone())
            .collect::<BTreeSet<String>>(),
        cuda_lint_machine::LINTS
            .iter()
            // `unverified` reports what could not be checked: no misuse to run on a GPU.
            .filter(|l| l.group != cuda_lint_machine::Group::Pedantic)
            // The C++-only lints have their examples in `examples/cpp`.
            .filter(|l| !cuda_lint_machine::lints::NOT_IN_RUST_YET.contains(&l.name))
            .map(|l| l.full_name())
            .collect::<BTreeSet<String>>(),
        "each lint has a buggy example"
    );

    let out = cargo_cuda_lint(&["--workspace", "--all-targets", "--keep-going", "--message-format=json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("internal compiler error") && !stderr.contains("panicked"),
        "{stderr}"
    );
    // Deny-level findings fail the build, as with clippy.
    assert!(
        !out.status.success(),
        "deny-level findings must make the exit status non-zero"
    );

    let mut found = BTreeSet::new();
    for diag in messages(&out) {
        let rendered = diag["rendered"].as_str().unwrap_or_default();
        assert!(!rendered.contains("cuda-lint could not analyse"), "{rendered}");
        let Some(code) = diag["code"]["code"].as_str() else {
            continue;
        };
        assert!(
            code.starts_with("cuda_lint::"),
            "unexpected diagnostic {code}: {rendered}"
        );
        let (file, line) = common::primary_location(&diag).expect("a finding has a primary span");
        found.insert((file, line as usize, code.to_string()));
    }
    let missing: Vec<_> = expected.difference(&found).collect();
    let unexpected: Vec<_> = found.difference(&expected).collect();
    assert!(
        missing.is_empty() && unexpected.is_empty(),
        "missing: {missing:#?}\nunexpected: {unexpected:#?}"
    );
}

#[test]
fn lint_flags_after_double_dash_set_levels() {
    let out = cargo_cuda_lint(&[
        "-p",
        "cuda-lint-examples",
        "--bins",
        "--keep-going",
        "--message-format=json",
        "--",
        "-A",
        "cuda_lint::all",
        "-D",
        "cuda_lint::pageable_async_copy",
    ]);
    let codes: BTreeSet<String> = messages(&out)
        .iter()
        .filter_map(|d| Some(format!("{}:{}", d["code"]["code"].as_str()?, d["level"].as_str()?)))
        .collect();
    assert_eq!(
        codes,
        BTreeSet::from(["cuda_lint::pageable_async_copy:error".to_string()])
    );
    assert!(!out.status.success());
}

#[test]
fn explain_prints_the_lint_documentation() {
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-cuda-lint"))
        .args(["cuda-lint", "--explain", "cuda_lint::missing_sync"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success());
    assert!(
        text.contains("### What it does") && text.contains("Use instead:"),
        "{text}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-cuda-lint"))
        .args(["cuda-lint", "--explain", "no_such_lint"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing_sync"));
}
