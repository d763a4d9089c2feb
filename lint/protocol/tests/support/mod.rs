//! Checks of reports shared by the report tests of this crate and the end-to-end ones of the
//! driver (`lint/tests/reports.rs`) and of `cuda-lint check` (`cpp/tests/cli.rs`): the schemas
//! of tests/schemas/, Microsoft's SARIF validator where it is installed, and GitHub's command
//! syntax.
#![allow(dead_code)]

use std::collections::HashSet;
use std::path::Path;

use serde_json::Value;

/// The schemas, from the manifest of whichever crate's tests include this file (the protocol
/// crate's, or the driver's end-to-end ones beside it).
fn schemas() -> std::path::PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    [
        "tests/schemas",
        "protocol/tests/schemas",
        "../lint/protocol/tests/schemas",
    ]
    .iter()
    .map(|d| here.join(d))
    .find(|p| p.is_dir())
    .expect("tests/schemas")
}

pub fn schema(name: &str) -> jsonschema::Validator {
    let path = schemas().join(name);
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the schema compiles")
}

pub fn assert_valid(validator: &jsonschema::Validator, instance: &Value) {
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}\n{instance:#}");
}

/// The SARIF log parsed and checked against the SARIF 2.1.0 schema, and by `sarif-multitool
/// validate` where it is installed.
pub fn valid_sarif(text: &str) -> Value {
    let log: Value = serde_json::from_str(text).expect("the report is one JSON document");
    assert_valid(&schema("sarif-schema-2.1.0.json"), &log);
    multitool_validate(text);
    log
}

/// Microsoft's SARIF validator (npm `@microsoft/sarif-multitool`): `SARIF_MULTITOOL` names its
/// executable, else `sarif-multitool` is looked for on `PATH`.
pub fn multitool() -> Option<std::path::PathBuf> {
    if let Some(path) = std::env::var_os("SARIF_MULTITOOL").filter(|p| !p.is_empty()) {
        return Some(path.into());
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join("sarif-multitool"))
        .find(|p| p.is_file())
}

/// Runs `sarif-multitool validate` with the SARIF specification's rules and GitHub's
/// (`--rule-kind "Sarif;Gh"`, errors and warnings) over the log and fails on any result; says
/// on stderr when the validator is not installed (the schema check is then all there is).
/// Returns whether it ran.
pub fn multitool_validate(text: &str) -> bool {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static COUNT: AtomicUsize = AtomicUsize::new(0);
    let Some(tool) = multitool() else {
        static SAID: std::sync::Once = std::sync::Once::new();
        SAID.call_once(|| {
            eprintln!("sarif-multitool is not installed (SARIF_MULTITOOL, PATH): SARIF checked against its schema only")
        });
        return false;
    };
    let dir = std::env::temp_dir().join(format!(
        "cuda-lint-multitool-{}-{}",
        std::process::id(),
        COUNT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let (input, output) = (dir.join("report.sarif"), dir.join("validation.sarif"));
    std::fs::write(&input, text).unwrap();
    let run = std::process::Command::new(&tool)
        .args(["validate", "--rule-kind", "Sarif;Gh", "--level", "Error;Warning", "-o"])
        .arg(&output)
        .arg(&input)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", tool.display()));
    let validation = std::fs::read_to_string(&output).unwrap_or_else(|e| {
        panic!(
            "sarif-multitool wrote no validation log ({e}): {}{}",
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        )
    });
    let validation: Value = serde_json::from_str(&validation).unwrap();
    let results = validation["runs"][0]["results"].as_array().cloned().unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(results.is_empty(), "sarif-multitool validate: {results:#?}\n{text}");
    true
}

/// The GitLab report parsed, each entry checked against GitLab's schema and the documented
/// requirements the schema leaves out.
pub fn valid_gitlab(text: &str) -> Vec<Value> {
    let report: Value = serde_json::from_str(text).expect("the report is one JSON document");
    let entries = report.as_array().expect("the report is an array").clone();
    let validator = schema("gitlab-codeclimate.json");
    let mut fingerprints = HashSet::new();
    for entry in &entries {
        assert_valid(&validator, entry);
        let check_name = entry["check_name"].as_str().expect("check_name");
        assert!(
            entry["description"]
                .as_str()
                .unwrap()
                .starts_with(&format!("{check_name}: "))
        );
        assert!(["info", "minor", "major", "critical", "blocker"].contains(&entry["severity"].as_str().unwrap()));
        let path = entry["location"]["path"].as_str().unwrap();
        assert!(!path.starts_with("./") && !path.starts_with('/'), "{path}");
        assert!(entry["location"]["lines"]["begin"].as_u64().unwrap() >= 1);
        assert!(
            fingerprints.insert(entry["fingerprint"].as_str().unwrap().to_string()),
            "{entry}"
        );
    }
    entries
}

/// `%XX` decoded.
pub fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            out.push(u8::from_str_radix(&text[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

/// A parsed workflow command: (command, properties, message), all unescaped.
pub fn parse_command(line: &str) -> (String, Vec<(String, String)>, String) {
    let rest = line.strip_prefix("::").expect("a workflow command");
    let (head, data) = rest.split_once("::").expect("`::` before the message");
    let (command, properties) = head.split_once(' ').expect("properties");
    let properties = properties
        .split(',')
        .map(|p| {
            let (key, value) = p.split_once('=').expect("key=value");
            (key.to_string(), percent_decode(value))
        })
        .collect();
    (command.to_string(), properties, percent_decode(data))
}

pub fn property<'a>(properties: &'a [(String, String)], key: &str) -> &'a str {
    &properties
        .iter()
        .find(|(k, _)| k == key)
        .unwrap_or_else(|| panic!("no {key}"))
        .1
}
