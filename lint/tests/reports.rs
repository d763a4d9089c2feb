//! The reports of `cargo cuda-lint --message-format=sarif|github|gitlab` end to end, on the
//! workspace's examples, validated against the schemas (the emitters themselves are tested in
//! `lint/protocol/tests/output.rs`).
mod common;
#[path = "../protocol/tests/support/mod.rs"]
mod support;

use std::collections::{BTreeSet, HashSet};
use std::path::PathBuf;

use common::{cargo_cuda_lint, expected, repo};
use cuda_lint_machine::LINTS;
use support::{parse_command, percent_decode, property, valid_gitlab, valid_sarif};

#[test]
fn an_unknown_format_is_refused_with_the_valid_ones() {
    let out = cargo_cuda_lint(&["--message-format=xml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("xml") && stderr.contains("json, json-diagnostic-short"),
        "{stderr}"
    );
    assert!(stderr.contains("sarif, github, gitlab"), "{stderr}");
}

// ---------------------------------------------------------------------------------------------
// End to end on the workspace's examples

fn examples_report(format: &str) -> String {
    let out = cargo_cuda_lint(&[
        "-p",
        "cuda-lint-examples",
        "--bins",
        "--keep-going",
        &format!("--message-format={format}"),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("internal compiler error") && !stderr.contains("panicked"),
        "{stderr}"
    );
    // Deny-level findings fail the run, whatever the format.
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains(&format!("in the {format} report")), "{stderr}");
    String::from_utf8(out.stdout).expect("UTF-8 report")
}

/// The level a finding of `lint` is reported at: its default level.
fn level_of(lint: &str) -> &'static str {
    match cuda_lint_machine::lints::find(lint).map(|l| l.default_level) {
        Some(cuda_lint_machine::Level::Deny) => "error",
        _ => "warning",
    }
}

#[test]
fn sarif_report_of_the_examples() {
    let log = valid_sarif(&examples_report("sarif"));
    let run = &log["runs"][0];
    let root: PathBuf = repo();
    assert_eq!(
        percent_decode(run["originalUriBaseIds"]["%SRCROOT%"]["uri"].as_str().unwrap()),
        format!("file://{}/", root.display())
    );
    let rules: Vec<&str> = run["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(rules, LINTS.iter().map(|l| l.full_name()).collect::<Vec<_>>());
    let mut found = BTreeSet::new();
    let mut fingerprints = HashSet::new();
    for result in run["results"].as_array().unwrap() {
        let rule = result["ruleId"].as_str().unwrap();
        assert_eq!(result["level"], level_of(rule));
        let location = &result["locations"][0]["physicalLocation"];
        assert_eq!(location["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        let file = percent_decode(location["artifactLocation"]["uri"].as_str().unwrap());
        assert!(root.join(&file).is_file(), "{file}");
        found.insert((
            file,
            location["region"]["startLine"].as_u64().unwrap() as usize,
            rule.to_string(),
        ));
        assert!(fingerprints.insert(result["partialFingerprints"]["cudaLintFingerprint/v1"].clone()));
    }
    assert_eq!(found, expected());
}

#[test]
fn github_report_of_the_examples() {
    let report = examples_report("github");
    let mut found = BTreeSet::new();
    for line in report.lines() {
        let (command, properties, message) = parse_command(line);
        let title = property(&properties, "title").to_string();
        assert_eq!(command, level_of(&title), "{line}");
        assert!(
            !message.is_empty() && message.contains('\n'),
            "the notes follow the message: {line}"
        );
        let file = property(&properties, "file").to_string();
        assert!(repo().join(&file).is_file(), "{file}");
        found.insert((file, property(&properties, "line").parse().unwrap(), title));
    }
    assert_eq!(report.lines().count(), expected().len(), "{report}");
    assert_eq!(found, expected());
}

#[test]
fn gitlab_report_of_the_examples() {
    let entries = valid_gitlab(&examples_report("gitlab"));
    let found: BTreeSet<_> = entries
        .iter()
        .map(|e| {
            let check = e["check_name"].as_str().unwrap().to_string();
            let severity = if level_of(&check) == "error" {
                "critical"
            } else {
                "minor"
            };
            assert_eq!(e["severity"], severity);
            (
                e["location"]["path"].as_str().unwrap().to_string(),
                e["location"]["lines"]["begin"].as_u64().unwrap() as usize,
                check,
            )
        })
        .collect();
    assert_eq!(entries.len(), expected().len());
    assert_eq!(found, expected());
}
