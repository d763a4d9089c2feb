//! A GitLab Code Quality report (<https://docs.gitlab.com/ci/testing/code_quality/>): a JSON
//! array of `{description, check_name, fingerprint, severity, location: {path, lines: {begin}}}`,
//! uploaded with `artifacts: reports: codequality:`. GitLab shows only the description, so it
//! starts with the check name; it keys entries by fingerprint, so fingerprints are unique.

use std::collections::HashSet;

use serde::Serialize;

use super::{Finding, Level, Notification, fingerprints, hash};

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

/// `check_name` of an entry saying that something asked for was not analysed.
pub const NOT_ANALYSED: &str = "cuda_lint::not_analysed";
/// `check_name` of an entry saying that part of a file was not analysed, or a note on the run.
pub const ANALYSIS_NOTE: &str = "cuda_lint::analysis_note";

/// The report, pretty-printed, ending with a newline.
pub fn emit(findings: &[Finding]) -> String {
    emit_run(findings, &[])
}

/// The report of `findings` followed by an entry a notification (GitLab has nothing else to
/// show them): what was not analysed is `major`, the rest `info`. A notification without a file
/// is placed at `.`, the report's root.
pub fn emit_run(findings: &[Finding], notifications: &[Notification]) -> String {
    let mut used = HashSet::new();
    let mut issues: Vec<Issue<'_>> = findings
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
    for n in notifications {
        let check_name = if n.level == Level::Error {
            NOT_ANALYSED
        } else {
            ANALYSIS_NOTE
        };
        let path = n.file.as_deref().unwrap_or(".");
        let line = n.line.unwrap_or(1).max(1);
        let mut fingerprint = hash(&[check_name, path, &n.message]);
        let mut salt = 0u32;
        while !used.insert(fingerprint.clone()) {
            salt += 1;
            fingerprint = hash(&[&fingerprint, &salt.to_string()]);
        }
        issues.push(Issue {
            description: format!("{check_name}: {}", n.message),
            check_name,
            fingerprint,
            severity: if n.level == Level::Error { "major" } else { "info" },
            location: Location {
                path,
                lines: Lines { begin: line },
            },
        });
    }
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
