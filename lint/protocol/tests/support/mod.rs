//! Checks of reports shared by the report tests of this crate and the end-to-end ones of the
//! driver (`lint/tests/reports.rs`): the schemas of tests/schemas/, and GitHub's command syntax.
#![allow(dead_code)]

use std::collections::HashSet;
use std::path::Path;

use serde_json::Value;

/// The schemas, from the manifest of whichever crate's tests include this file (the protocol
/// crate's, or the driver's end-to-end ones beside it).
fn schemas() -> std::path::PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    ["tests/schemas", "protocol/tests/schemas"]
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

/// The SARIF log parsed and checked against the SARIF 2.1.0 schema.
pub fn valid_sarif(text: &str) -> Value {
    let log: Value = serde_json::from_str(text).expect("the report is one JSON document");
    assert_valid(&schema("sarif-schema-2.1.0.json"), &log);
    log
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
