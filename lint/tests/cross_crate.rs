//! Effect summaries written with the `cuda_lint` macros in a dependency reach the lint: a
//! fixture crate (`fixtures/cross_crate/user`) uses wrappers of another crate outside its
//! workspace (`fixtures/cross_crate/wrapper`) whose bodies the analysis cannot see. Every line
//! of the user crate marked `// cuda_lint::NAME` is reported with that lint, nothing else is,
//! and the dependency is compiled but not linted.

mod common;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

#[test]
fn summaries_in_a_dependency_are_read_and_the_dependency_is_not_linted() {
    let fixture = common::repo().join("lint/tests/fixtures/cross_crate");
    let user = fixture.join("user");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::repo().join("target"))
        .join("cross-crate-lint");
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-cuda-lint"))
        .args(["cuda-lint", "--locked", "--message-format=json"])
        .current_dir(&user)
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .expect("cargo-cuda-lint runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("internal compiler error") && !stderr.contains("panicked"),
        "{stderr}"
    );

    let mut expected = BTreeSet::new();
    let source = std::fs::read_to_string(user.join("src/lib.rs")).unwrap();
    for (i, line) in source.lines().enumerate() {
        if let Some(pos) = line.find("// cuda_lint::") {
            let name = line[pos + 3..].split_whitespace().next().unwrap().to_string();
            expected.insert(("src/lib.rs".to_string(), i + 1, name));
        }
    }
    assert_eq!(expected.len(), 2, "the fixture marks one line per lint it expects");

    let mut found = BTreeSet::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if msg["reason"] != "compiler-message" {
            continue;
        }
        let diag = &msg["message"];
        let Some(code) = diag["code"]["code"].as_str() else {
            continue;
        };
        assert!(
            msg["package_id"]
                .as_str()
                .unwrap_or_default()
                .contains("cross-crate-user"),
            "a dependency was linted: {}",
            diag["rendered"]
        );
        let (file, line) = common::primary_location(diag).expect("a finding has a primary span");
        found.insert((file, line as usize, code.to_string()));
    }
    assert_eq!(found, expected, "{stderr}");
}
