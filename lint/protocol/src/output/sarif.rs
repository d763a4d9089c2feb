//! SARIF 2.1.0 (<https://docs.oasis-open.org/sarif/sarif/v2.1.0/>), the format GitHub code
//! scanning uploads (`github/codeql-action/upload-sarif`).
//!
//! One run of the tool `cuda-lint` with one rule (`reportingDescriptor`) per lint, whether it
//! fired or not, and one result per finding at its primary span. Rule ids (`cuda_lint::NAME`),
//! repository-relative paths (`uriBaseId` `%SRCROOT%`) and `partialFingerprints` are stable
//! across runs, so code scanning matches an alert to the same alert of the previous run.
//! GitHub computes its own `primaryLocationLineHash`; ours is under [`FINGERPRINT_KEY`].

use std::collections::BTreeMap;
use std::path::Path;

use serde_sarif::sarif;

use super::{Execution, Finding, Label, Level, Notification, Span, fingerprints, help_uri};
use cuda_lint_machine::{LINTS, Level as LintLevel, LintMeta};

/// `run.originalUriBaseIds` key of the root that relative paths are relative to.
pub const SRCROOT: &str = "%SRCROOT%";
/// `result.partialFingerprints` key of [`super::fingerprints`].
pub const FINGERPRINT_KEY: &str = "cudaLintFingerprint/v1";
const SCHEMA: &str = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
const INFORMATION_URI: &str = "https://github.com/cuda-lint/cuda-lint";

/// The SARIF log of `findings`; `root` (absolute) is `%SRCROOT%`. Pretty-printed, ending with a
/// newline.
pub fn emit(findings: &[Finding], root: &Path) -> String {
    emit_run(findings, None, root)
}

/// The SARIF log of `findings` and, when `execution` is given, of how the run went: one
/// `invocation` with `executionSuccessful` (false when something asked for was not analysed),
/// the notifications as `toolExecutionNotifications` and the exit code.
pub fn emit_run(findings: &[Finding], execution: Option<&Execution>, root: &Path) -> String {
    let driver = sarif::ToolComponent::builder()
        .name("cuda-lint")
        .full_name("cuda-lint: Clippy for CUDA memory")
        .information_uri(INFORMATION_URI)
        .version(env!("CARGO_PKG_VERSION"))
        .semantic_version(env!("CARGO_PKG_VERSION"))
        .rules(LINTS.iter().map(|info| rule(info)).collect::<Vec<_>>())
        .build();
    let results: Vec<sarif::Result> = findings
        .iter()
        .zip(fingerprints(findings))
        .map(|(finding, fingerprint)| result(finding, fingerprint))
        .collect();
    let base = sarif::ArtifactLocation::builder().uri(directory_uri(root)).build();
    let run = sarif::Run::builder()
        .tool(sarif::Tool::builder().driver(driver).build())
        .original_uri_base_ids(BTreeMap::from([(SRCROOT.to_string(), base)]))
        // rustc counts columns in characters, not SARIF's default UTF-16 code units.
        .column_kind(serde_json::json!("unicodeCodePoints"))
        .results(results)
        .build();
    let mut run = run;
    run.invocations = execution.map(|e| vec![invocation(e)]);
    let log = sarif::Sarif::builder()
        .schema(SCHEMA)
        .version(serde_json::json!("2.1.0"))
        .runs(vec![run])
        .build();
    let mut text = serde_json::to_string_pretty(&log).expect("a SARIF log serializes");
    text.push('\n');
    text
}

/// The rule of a lint, with its documentation.
fn rule(info: &LintMeta) -> sarif::ReportingDescriptor {
    let markdown = cuda_lint_machine::lints::explain(info.name).unwrap_or_default();
    // `explain` starts with a title and the default level; the documentation follows.
    let documentation = markdown
        .find("### ")
        .map_or(markdown.as_str(), |i| &markdown[i..])
        .trim_end();
    let level = match info.default_level {
        LintLevel::Deny => "error",
        LintLevel::Warn => "warning",
        LintLevel::Allow => "note",
    };
    sarif::ReportingDescriptor::builder()
        .id(info.full_name())
        .name(info.name)
        .short_description(text(info.desc))
        .full_description(text(&plain_text(documentation)))
        .help(
            sarif::MultiformatMessageString::builder()
                .text(plain_text(documentation))
                .markdown(markdown.trim_end())
                .build(),
        )
        .help_uri(help_uri(info))
        .default_configuration(
            sarif::ReportingConfiguration::builder()
                .level(serde_json::json!(level))
                .build(),
        )
        .build()
}

/// The documentation as plain text, for SARIF's `text` fields (viewers show them as they are;
/// the Markdown goes in `markdown`): headings become lines of their own words, code fences go.
fn plain_text(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len());
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            continue;
        }
        let heading = line.trim_start_matches('#');
        if heading.len() != line.len() && heading.starts_with(' ') {
            out.push_str(heading.trim());
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out.trim_end().to_string()
}

fn text(text: &str) -> sarif::MultiformatMessageString {
    sarif::MultiformatMessageString::builder().text(text).build()
}

fn result(finding: &Finding, fingerprint: String) -> sarif::Result {
    let level = match finding.level {
        Level::Error => sarif::ResultLevel::Error,
        Level::Warning => sarif::ResultLevel::Warning,
        Level::Note => sarif::ResultLevel::Note,
    };
    let mut primary = location(&finding.span, finding.primary_label.as_deref());
    primary.id = Some(0);
    let related: Vec<sarif::Location> = finding
        .labels
        .iter()
        .enumerate()
        .map(|(i, Label { span, text })| {
            let mut location = location(span, Some(text));
            location.id = Some(i as i64 + 1);
            location
        })
        .collect();
    let mut result = sarif::Result::builder()
        .rule_id(finding.code.clone())
        .level(level)
        .message(sarif::Message::builder().text(finding.full_message()).build())
        .locations(vec![primary])
        .partial_fingerprints(BTreeMap::from([(FINGERPRINT_KEY.to_string(), fingerprint)]))
        .build();
    if let Some(index) = LINTS.iter().position(|info| info.full_name() == finding.code) {
        result.rule_index = Some(index as i64);
    }
    if !related.is_empty() {
        result.related_locations = Some(related);
    }
    result
}

/// The invocation of a run: whether it analysed everything asked for, and what it says of itself.
fn invocation(execution: &Execution) -> sarif::Invocation {
    let mut invocation = sarif::Invocation::builder()
        .execution_successful(execution.successful())
        .build();
    invocation.exit_code = execution.exit_code.map(i64::from);
    if !execution.notifications.is_empty() {
        invocation.tool_execution_notifications = Some(execution.notifications.iter().map(notification).collect());
    }
    invocation
}

fn notification(n: &Notification) -> sarif::Notification {
    let level = match n.level {
        Level::Error => "error",
        Level::Warning => "warning",
        Level::Note => "note",
    };
    let mut out = sarif::Notification::builder()
        .message(sarif::Message::builder().text(n.message.clone()).build())
        .level(serde_json::json!(level))
        .build();
    if let Some(file) = &n.file {
        let mut physical = sarif::PhysicalLocation::builder()
            .artifact_location(artifact(file))
            .build();
        physical.region = n
            .line
            .map(|line| sarif::Region::builder().start_line(line as i64).build());
        out.locations = Some(vec![sarif::Location::builder().physical_location(physical).build()]);
    }
    out
}

/// Where a file is: relative to `%SRCROOT%`, or a `file://` URI when outside it.
fn artifact(file: &str) -> sarif::ArtifactLocation {
    if Path::new(file).is_absolute() {
        sarif::ArtifactLocation::builder().uri(file_uri(file)).build()
    } else {
        sarif::ArtifactLocation::builder()
            .uri(encode(file))
            .uri_base_id(SRCROOT)
            .build()
    }
}

fn location(span: &Span, message: Option<&str>) -> sarif::Location {
    let artifact = artifact(&span.file);
    let region = sarif::Region::builder()
        .start_line(span.line_start as i64)
        .start_column(span.column_start as i64)
        .end_line(span.line_end as i64)
        .end_column(span.column_end as i64)
        .build();
    let physical = sarif::PhysicalLocation::builder()
        .artifact_location(artifact)
        .region(region)
        .build();
    let mut location = sarif::Location::builder().physical_location(physical).build();
    location.message = message.map(|m| sarif::Message::builder().text(m).build());
    location
}

/// `file:///...` of an absolute path.
fn file_uri(path: &str) -> String {
    let path = path.replace('\\', "/");
    let path = if path.starts_with('/') {
        path
    } else {
        format!("/{path}")
    };
    format!("file://{}", encode(&path))
}

/// The URI of a directory: ends with `/`, as SARIF requires of a base.
fn directory_uri(dir: &Path) -> String {
    let uri = file_uri(&dir.to_string_lossy());
    if uri.ends_with('/') { uri } else { uri + "/" }
}

/// Percent-encodes everything but unreserved characters and `/`.
fn encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => out.push(byte as char),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}
