//! GitHub Actions workflow commands, one a line, which GitHub shows as annotations on the
//! changed files of a pull request and in the run's summary:
//!
//! ```text
//! ::error file=src/main.rs,line=12,endLine=12,col=5,endColumn=30,title=cuda_lint%3A%3Amissing_sync::host read ...
//! ```
//!
//! Deny-level (error) findings become `::error`, warnings `::warning`. Escaping follows
//! actions/toolkit (`packages/core/src/command.ts`): in the message `%`, `\r` and `\n` are
//! percent-encoded; in properties also `:` and `,`. GitHub shows at most 10 errors and 10
//! warnings of one step as annotations: the SARIF report or the log is the full record.

use super::{Finding, Level, Notification};

/// One workflow command a finding, each ending with a newline.
pub fn emit(findings: &[Finding]) -> String {
    findings.iter().map(command).collect()
}

/// The workflow command of one finding.
pub fn command(finding: &Finding) -> String {
    let kind = match finding.level {
        Level::Error => "error",
        Level::Warning => "warning",
        Level::Note => "notice",
    };
    let span = &finding.span;
    let mut properties = vec![
        ("file", span.file.clone()),
        ("line", span.line_start.to_string()),
        ("endLine", span.line_end.to_string()),
    ];
    // GitHub accepts columns only on a one-line annotation.
    if span.line_start == span.line_end {
        properties.push(("col", span.column_start.to_string()));
        properties.push(("endColumn", span.column_end.to_string()));
    }
    properties.push(("title", finding.code.clone()));
    let properties = properties
        .iter()
        .map(|(key, value)| format!("{key}={}", escape_property(value)))
        .collect::<Vec<_>>()
        .join(",");
    format!("::{kind} {properties}::{}\n", escape_data(&finding.full_message()))
}

/// One workflow command a notification: `::error` for what was not analysed (the run failed),
/// `::notice` for the rest, so that they do not take the places of findings' warnings among the
/// annotations GitHub shows. Titled `cuda-lint: not analysed` or `cuda-lint: note`.
pub fn emit_notifications(notifications: &[Notification]) -> String {
    notifications.iter().map(notification_command).collect()
}

/// The workflow command of one notification.
pub fn notification_command(n: &Notification) -> String {
    let (kind, title) = match n.level {
        Level::Error => ("error", "cuda-lint: not analysed"),
        Level::Warning => ("notice", "cuda-lint: partly analysed"),
        Level::Note => ("notice", "cuda-lint: note"),
    };
    let mut properties = Vec::new();
    if let Some(file) = &n.file {
        properties.push(("file", file.clone()));
        if let Some(line) = n.line {
            properties.push(("line", line.to_string()));
        }
    }
    properties.push(("title", title.to_string()));
    let properties = properties
        .iter()
        .map(|(key, value)| format!("{key}={}", escape_property(value)))
        .collect::<Vec<_>>()
        .join(",");
    format!("::{kind} {properties}::{}\n", escape_data(&n.message))
}

/// Escapes a command's message.
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Escapes a property value.
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}
