//! A GitLab Code Quality report (<https://docs.gitlab.com/ci/testing/code_quality/>): a JSON
//! array of `{description, check_name, fingerprint, severity, location: {path, lines: {begin}}}`,
//! uploaded with `artifacts: reports: codequality:`. GitLab shows only the description, so it
//! starts with the check name; it keys entries by fingerprint, so fingerprints are unique.

use std::collections::HashSet;

use serde::Serialize;

use super::{Finding, Level, fingerprints, hash};

#[derive(Serialize)]
struct Issue<'a> {
    description: String,
    check_name: &'a str,
    fingerprint: String,
    severity: &'static str,
    location: Location<'a>,
}

#[derive(Serialize)]
struct Location<'a> {
    path: &'a str,
    lines: Lines,
}

#[derive(Serialize)]
struct Lines {
    begin: usize,
}

/// The report, pretty-printed, ending with a newline.
pub fn emit(findings: &[Finding]) -> String {
    let mut used = HashSet::new();
    let issues: Vec<Issue<'_>> = findings
        .iter()
        .zip(fingerprints(findings))
        .map(|(finding, mut fingerprint)| {
            // Unique already unless two hashes collide; then salt until unique.
            let mut salt = 0u32;
            while !used.insert(fingerprint.clone()) {
                salt += 1;
                fingerprint = hash(&[&fingerprint, &salt.to_string()]);
            }
            Issue {
                description: format!("{}: {}", finding.code, finding.message),
                check_name: &finding.code,
                fingerprint,
                severity: severity(finding.level),
                location: Location {
                    path: &finding.span.file,
                    lines: Lines {
                        begin: finding.span.line_start,
                    },
                },
            }
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&issues).expect("a report serializes");
    text.push('\n');
    text
}

/// Deny-level (error) findings are critical, warnings minor.
pub fn severity(level: Level) -> &'static str {
    match level {
        Level::Error => "critical",
        Level::Warning => "minor",
        Level::Note => "info",
    }
}
