//! The report formats of `cargo cuda-lint --message-format=sarif|github|gitlab`: each emitter on
//! hand-made findings (escaping, fingerprints, paths), cargo's JSON turned into findings, the
//! parsing of `--message-format`, validated against the SARIF 2.1.0 schema and GitLab's Code
//! Quality schema (tests/schemas/). The reports of the workspace's examples, end to end, are
//! `lint/tests/reports.rs`.
mod support;

use std::path::Path;

use cargo_metadata::Message;
use cuda_lint_machine::LINTS;
use cuda_lint_protocol::output::{
    self, Classified, Execution, Finding, Format, Label, Level, Notification, Span, fingerprints, github,
    report_root_with, split_message_format,
};
use serde_json::{Value, json};

use support::{parse_command, percent_decode, property, schema, valid_gitlab, valid_sarif};

// ---------------------------------------------------------------------------------------------
// Helpers

fn span(file: &str, line: usize, col: usize, line_end: usize, col_end: usize) -> Span {
    Span {
        file: file.into(),
        line_start: line,
        column_start: col,
        line_end,
        column_end: col_end,
    }
}

fn finding(code: &str, level: Level, file: &str, line: usize, message: &str, source_line: &str) -> Finding {
    Finding {
        span: span(file, line, 5, line, 9),
        code: format!("cuda_lint::{code}"),
        level,
        message: message.into(),
        primary_label: None,
        notes: Vec::new(),
        labels: Vec::new(),
        source_line: source_line.into(),
    }
}

// ---------------------------------------------------------------------------------------------
// GitHub workflow commands

#[test]
fn github_commands_escape_data_and_properties() {
    let mut f = finding(
        "missing_sync",
        Level::Error,
        "src/we,ird:dir/100%.rs",
        3,
        "50% done, a:b\r\nnext",
        "x",
    );
    f.notes.push("help: call `s.synchronize()`, then read".into());
    assert_eq!(
        github::command(&f),
        "::error file=src/we%2Cird%3Adir/100%25.rs,line=3,endLine=3,col=5,endColumn=9,\
         title=cuda_lint%3A%3Amissing_sync::50%25 done, a:b%0D%0Anext%0Ahelp: call `s.synchronize()`, then read\n"
    );
    assert_eq!(github::escape_data("100%\n%0A:,"), "100%25%0A%250A:,");
    assert_eq!(github::escape_property("a%b:c,d\re\nf"), "a%25b%3Ac%2Cd%0De%0Af");

    // What GitHub reads back is what was meant.
    let (command, properties, message) = parse_command(github::command(&f).trim_end_matches('\n'));
    assert_eq!(command, "error");
    assert_eq!(property(&properties, "file"), "src/we,ird:dir/100%.rs");
    assert_eq!(property(&properties, "title"), "cuda_lint::missing_sync");
    assert_eq!(message, f.full_message());
}

#[test]
fn github_levels_and_multi_line_spans() {
    let mut warn = finding("pageable_async_copy", Level::Warning, "src/a.rs", 10, "slow", "x");
    warn.span = span("src/a.rs", 10, 3, 12, 4);
    let line = github::command(&warn);
    assert!(
        line.starts_with("::warning file=src/a.rs,line=10,endLine=12,title="),
        "{line}"
    );
    // GitHub takes columns only for one-line annotations.
    assert!(!line.contains("col="), "{line}");
    let note = finding("missing_sync", Level::Note, "src/a.rs", 1, "m", "x");
    assert!(github::command(&note).starts_with("::notice "));
    // One command a finding, sorted by place, duplicates once.
    let e = finding("missing_sync", Level::Error, "src/b.rs", 1, "m", "x");
    let report = Format::Github.emit(&[e.clone(), warn, e], Path::new("/repo"));
    assert_eq!(report.lines().count(), 2, "{report}");
    assert!(report.lines().next().unwrap().contains("file=src/a.rs"));
}

// ---------------------------------------------------------------------------------------------
// Fingerprints

#[test]
fn fingerprints_follow_the_code_not_the_line_number() {
    let at = |line, text: &str| finding("missing_sync", Level::Error, "src/main.rs", line, "m", text);
    let before = fingerprints(&[at(10, "    let x = h[0];")]);
    // Lines added above move the finding; its fingerprint stays (indentation aside).
    assert_eq!(before, fingerprints(&[at(25, "        let x = h[0];  ")]));
    // Another line of code, another lint or another file is another finding.
    assert_ne!(before, fingerprints(&[at(10, "    let y = h[0];")]));
    let mut other_lint = at(10, "    let x = h[0];");
    other_lint.code = "cuda_lint::host_deref_device_ptr".into();
    assert_ne!(before, fingerprints(&[other_lint]));
    let mut other_file = at(10, "    let x = h[0];");
    other_file.span.file = "src/lib.rs".into();
    assert_ne!(before, fingerprints(&[other_file]));
    // The same line twice: told apart by their order.
    let twice = fingerprints(&[at(10, "let x = h[0];"), at(20, "let x = h[0];")]);
    assert_ne!(twice[0], twice[1]);
    assert_eq!(twice[0], fingerprints(&[at(10, "let x = h[0];")])[0]);
    // Pinned: changing the recipe would reopen every alert users dismissed. It is the SHA-256 of
    // "cuda_lint::missing_sync\0src/main.rs\0let x = h[0];\00\0".
    assert_eq!(
        before[0],
        "c3007c671a5b3ee015e1d6b84b06616eea51226d02de1909cf9e4b4a8bbe6ff7"
    );
}

// ---------------------------------------------------------------------------------------------
// GitLab Code Quality

#[test]
fn gitlab_report_validates_with_unique_fingerprints() {
    let findings = [
        finding(
            "missing_sync",
            Level::Error,
            "src/a, b:c%.rs",
            4,
            "host read of `h`\nwhile copying",
            "let x = h[0];",
        ),
        finding(
            "missing_sync",
            Level::Error,
            "src/a, b:c%.rs",
            9,
            "host read of `h`",
            "let x = h[0];",
        ),
        finding(
            "pageable_async_copy",
            Level::Warning,
            "src/a, b:c%.rs",
            2,
            "asynchronous copy",
            "copy(&v);",
        ),
        // The same diagnostic from a second target of the crate.
        finding(
            "pageable_async_copy",
            Level::Warning,
            "src/a, b:c%.rs",
            2,
            "asynchronous copy",
            "copy(&v);",
        ),
    ];
    let entries = valid_gitlab(&Format::Gitlab.emit(&findings, Path::new("/repo")));
    assert_eq!(entries.len(), 3);
    assert_eq!(
        entries[0],
        json!({
            "description": "cuda_lint::pageable_async_copy: asynchronous copy",
            "check_name": "cuda_lint::pageable_async_copy",
            "fingerprint": entries[0]["fingerprint"],
            "severity": "minor",
            "location": { "path": "src/a, b:c%.rs", "lines": { "begin": 2 } }
        })
    );
    assert_eq!(entries[1]["severity"], "critical");
    assert_eq!(
        entries[1]["description"],
        "cuda_lint::missing_sync: host read of `h`\nwhile copying"
    );
    assert_eq!(entries[2]["location"]["lines"]["begin"], 9);
    // The same fingerprints as SARIF's partialFingerprints.
    let sarif = valid_sarif(&Format::Sarif.emit(&findings, Path::new("/repo")));
    let sarif_fingerprints: Vec<&Value> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["partialFingerprints"]["cudaLintFingerprint/v1"])
        .collect();
    let gitlab_fingerprints: Vec<&Value> = entries.iter().map(|e| &e["fingerprint"]).collect();
    assert_eq!(sarif_fingerprints, gitlab_fingerprints);
    assert_eq!(Format::Gitlab.emit(&[], Path::new("/repo")), "[]\n");
}

// ---------------------------------------------------------------------------------------------
// SARIF

#[test]
fn sarif_report_of_hand_made_findings_validates() {
    let mut deny = finding(
        "missing_sync",
        Level::Error,
        "src/my dir/50%,a:b.rs",
        57,
        "host read of `h` while an asynchronous copy may still write it",
        "let tail = h[N - TAIL..].to_vec();",
    );
    deny.primary_label = Some("read here".into());
    deny.notes = vec!["help: call `s.synchronize()` before touching `h`".into()];
    deny.labels = vec![Label {
        span: span("src/my dir/50%,a:b.rs", 56, 20, 56, 47),
        text: "copy started here".into(),
    }];
    let mut outside = finding(
        "pageable_async_copy",
        Level::Warning,
        "/elsewhere/dep/src/lib.rs",
        3,
        "slow",
        "x",
    );
    outside.notes = vec!["note: staged through a pinned buffer".into()];
    let root = Path::new("/work/my repo");
    let log = valid_sarif(&Format::Sarif.emit(&[deny, outside], root));

    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    assert_eq!(run["originalUriBaseIds"]["%SRCROOT%"]["uri"], "file:///work/my%20repo/");
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "cuda-lint");
    let rules = driver["rules"].as_array().unwrap();
    assert_eq!(rules.len(), LINTS.len());
    for (rule, info) in rules.iter().zip(LINTS) {
        assert_eq!(rule["id"], info.full_name());
        assert_eq!(rule["name"], info.name);
        assert_eq!(rule["shortDescription"]["text"], info.desc);
        // Plain text where SARIF says text (viewers show it as it is); Markdown in `markdown`.
        for field in [&rule["fullDescription"]["text"], &rule["help"]["text"]] {
            let text = field.as_str().unwrap();
            assert!(text.starts_with("What it does\n"), "{text}");
            assert!(!text.contains("###") && !text.contains("```"), "{text}");
        }
        assert!(rule["help"]["markdown"].as_str().unwrap().contains("### What it does"));
        assert!(rule["help"]["markdown"].as_str().unwrap().contains("Use instead:"));
        assert_eq!(
            rule["helpUri"],
            format!(
                "https://github.com/cuda-lint/cuda-lint/blob/main/LINTS.md#{}",
                info.name
            )
        );
        let level = match info.default_level {
            cuda_lint_machine::Level::Deny => "error",
            cuda_lint_machine::Level::Warn => "warning",
            // An allow-by-default lint (`unverified`) is a note when turned on.
            cuda_lint_machine::Level::Allow => "note",
        };
        assert_eq!(rule["defaultConfiguration"]["level"], level);
    }

    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    // Sorted by path: the absolute one first.
    let (outside, deny) = (&results[0], &results[1]);
    assert_eq!(deny["ruleId"], "cuda_lint::missing_sync");
    assert_eq!(
        rules[deny["ruleIndex"].as_u64().unwrap() as usize]["id"],
        "cuda_lint::missing_sync"
    );
    assert_eq!(deny["level"], "error");
    assert_eq!(
        deny["message"]["text"],
        "host read of `h` while an asynchronous copy may still write it\nhelp: call `s.synchronize()` before touching `h`"
    );
    let location = &deny["locations"][0];
    let artifact = &location["physicalLocation"]["artifactLocation"];
    assert_eq!(artifact["uriBaseId"], "%SRCROOT%");
    assert_eq!(artifact["uri"], "src/my%20dir/50%25%2Ca%3Ab.rs");
    assert_eq!(
        percent_decode(artifact["uri"].as_str().unwrap()),
        "src/my dir/50%,a:b.rs"
    );
    assert_eq!(
        location["physicalLocation"]["region"],
        json!({"startLine": 57, "startColumn": 5, "endLine": 57, "endColumn": 9})
    );
    assert_eq!(location["message"]["text"], "read here");
    let related = &deny["relatedLocations"][0];
    assert_eq!(related["message"]["text"], "copy started here");
    assert_eq!(related["physicalLocation"]["region"]["startLine"], 56);
    assert_eq!(
        deny["partialFingerprints"]["cudaLintFingerprint/v1"]
            .as_str()
            .unwrap()
            .len(),
        64
    );

    assert_eq!(outside["level"], "warning");
    let artifact = &outside["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(artifact["uri"], "file:///elsewhere/dep/src/lib.rs");
    assert!(artifact.get("uriBaseId").is_none());
    assert!(outside.get("relatedLocations").is_none());
}

#[test]
fn sarif_report_without_findings_still_lists_every_rule() {
    let log = valid_sarif(&Format::Sarif.emit(&[], Path::new("/repo")));
    assert_eq!(log["runs"][0]["results"], json!([]));
    assert_eq!(
        log["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap().len(),
        LINTS.len()
    );
}

#[test]
fn the_schemas_reject_broken_reports() {
    let f = finding("missing_sync", Level::Error, "src/a.rs", 1, "m", "x");
    let sarif = schema("sarif-schema-2.1.0.json");
    let mut log: Value = serde_json::from_str(&Format::Sarif.emit(std::slice::from_ref(&f), Path::new("/r"))).unwrap();
    assert!(sarif.is_valid(&log));
    log["runs"][0]["results"][0]["level"] = json!("fatal");
    assert!(!sarif.is_valid(&log));
    log["runs"][0]["results"][0]["level"] = json!("error");
    log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = json!(0);
    assert!(!sarif.is_valid(&log));

    let gitlab = schema("gitlab-codeclimate.json");
    let mut report: Value = serde_json::from_str(&Format::Gitlab.emit(&[f], Path::new("/r"))).unwrap();
    assert!(gitlab.is_valid(&report[0]));
    report[0].as_object_mut().unwrap().remove("fingerprint");
    assert!(!gitlab.is_valid(&report[0]));
}

// ---------------------------------------------------------------------------------------------
// How the run went: failed and partial runs in every format

fn notification(level: Level, message: &str, file: Option<&str>, line: Option<usize>) -> Notification {
    Notification {
        level,
        message: message.into(),
        file: file.map(String::from),
        line,
    }
}

/// A run that could not read one file, parsed another in part, skipped a third, and found one
/// thing in what it read.
fn failed_run() -> (Vec<Finding>, Execution) {
    let findings = vec![finding("missing_sync", Level::Error, "src/a.cu", 4, "m", "x")];
    let execution = Execution {
        notifications: vec![
            notification(
                Level::Error,
                "cannot read: permission denied",
                Some("src/b, c.cu"),
                None,
            ),
            notification(
                Level::Error,
                "unknown lint or group `x`",
                Some("cuda-lint.toml"),
                Some(2),
            ),
            notification(
                Level::Warning,
                "could not parse all of it (line 7)",
                Some("src/a.cu"),
                Some(7),
            ),
            notification(Level::Note, "skipped: a binary file", Some("/elsewhere/blob.h"), None),
            notification(Level::Error, "no CUDA C++ source file", None, None),
        ],
        exit_code: Some(3),
    };
    (findings, execution)
}

#[test]
fn sarif_says_whether_the_run_analysed_everything() {
    let (findings, execution) = failed_run();
    let root = Path::new("/repo");
    let log = valid_sarif(&Format::Sarif.emit_run(&findings, &execution, root));
    let run = &log["runs"][0];
    assert_eq!(run["results"].as_array().unwrap().len(), 1);
    let invocations = run["invocations"].as_array().unwrap();
    assert_eq!(invocations.len(), 1);
    assert_eq!(invocations[0]["executionSuccessful"], false);
    assert_eq!(invocations[0]["exitCode"], 3);
    let notes = invocations[0]["toolExecutionNotifications"].as_array().unwrap();
    let levels: Vec<&str> = notes.iter().map(|n| n["level"].as_str().unwrap()).collect();
    assert_eq!(levels, ["error", "error", "warning", "note", "error"]);
    assert_eq!(notes[0]["message"]["text"], "cannot read: permission denied");
    let artifact = &notes[0]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(artifact, &json!({"uri": "src/b%2C%20c.cu", "uriBaseId": "%SRCROOT%"}));
    assert!(notes[0]["locations"][0]["physicalLocation"].get("region").is_none());
    assert_eq!(
        notes[1]["locations"][0]["physicalLocation"]["region"],
        json!({"startLine": 2})
    );
    assert_eq!(
        notes[3]["locations"][0]["physicalLocation"]["artifactLocation"],
        json!({"uri": "file:///elsewhere/blob.h"})
    );
    assert!(notes[4].get("locations").is_none());

    // Everything analysed: successful, whatever was found and noted.
    let complete = Execution {
        notifications: execution.notifications[2..4].to_vec(),
        exit_code: Some(1),
    };
    assert!(complete.successful() && !execution.successful());
    let log = valid_sarif(&Format::Sarif.emit_run(&findings, &complete, root));
    assert_eq!(log["runs"][0]["invocations"][0]["executionSuccessful"], true);
    let nothing = valid_sarif(&Format::Sarif.emit_run(&[], &Execution::default(), root));
    assert_eq!(
        nothing["runs"][0]["invocations"],
        json!([{"executionSuccessful": true}])
    );
    // `emit` says nothing of the run (`cargo cuda-lint`'s reports).
    let plain = valid_sarif(&Format::Sarif.emit(&findings, root));
    assert!(plain["runs"][0].get("invocations").is_none());
}

#[test]
fn github_and_gitlab_say_what_was_not_analysed() {
    let (findings, execution) = failed_run();
    let root = Path::new("/repo");
    let github = Format::Github.emit_run(&findings, &execution, root);
    let commands: Vec<_> = github.lines().map(parse_command).collect();
    assert_eq!(commands.len(), 6, "{github}");
    // The findings first, then one command a notification.
    assert_eq!(property(&commands[0].1, "title"), "cuda_lint::missing_sync");
    let kinds: Vec<&str> = commands[1..].iter().map(|(c, _, _)| c.as_str()).collect();
    assert_eq!(kinds, ["error", "error", "notice", "notice", "error"]);
    let (_, properties, message) = &commands[1];
    assert_eq!(property(properties, "file"), "src/b, c.cu");
    assert_eq!(property(properties, "title"), "cuda-lint: not analysed");
    assert!(properties.iter().all(|(k, _)| k != "line"));
    assert_eq!(message, "cannot read: permission denied");
    assert_eq!(property(&commands[2].1, "line"), "2");
    assert_eq!(property(&commands[3].1, "title"), "cuda-lint: partly analysed");
    assert_eq!(
        commands[5].1,
        [("title".to_string(), "cuda-lint: not analysed".to_string())]
    );

    // GitLab checks every entry; the documentation asks for paths in the repository.
    let in_repo = Execution {
        notifications: execution
            .notifications
            .iter()
            .filter(|n| !n.file.as_deref().unwrap_or("").starts_with('/'))
            .cloned()
            .collect(),
        exit_code: Some(3),
    };
    let entries = valid_gitlab(&Format::Gitlab.emit_run(&findings, &in_repo, root));
    assert_eq!(entries.len(), 5);
    let got: Vec<(&str, &str, &str, u64)> = entries[1..]
        .iter()
        .map(|e| {
            (
                e["check_name"].as_str().unwrap(),
                e["severity"].as_str().unwrap(),
                e["location"]["path"].as_str().unwrap(),
                e["location"]["lines"]["begin"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("cuda_lint::not_analysed", "major", "src/b, c.cu", 1),
            ("cuda_lint::not_analysed", "major", "cuda-lint.toml", 2),
            ("cuda_lint::analysis_note", "info", "src/a.cu", 7),
            ("cuda_lint::not_analysed", "major", ".", 1),
        ]
    );
    // A failed run is never an empty report, nor GitLab's `[]`.
    for format in Format::ALL {
        let failed = Execution {
            notifications: vec![notification(Level::Error, "nothing analysed", None, None)],
            exit_code: Some(3),
        };
        let report = format.emit_run(&[], &failed, root);
        assert!(report.contains("nothing analysed"), "{report}");
    }
}

// ---------------------------------------------------------------------------------------------
// The root of a report's paths, for both front ends

#[test]
fn report_paths_are_relative_to_the_ci_checkout_that_holds_them() {
    let ws = Path::new("/ci/ws");
    let vars = |github: Option<&str>, gitlab: Option<&str>| {
        let (github, gitlab) = (github.map(String::from), gitlab.map(String::from));
        move |name: &str| match name {
            "GITHUB_WORKSPACE" => github.clone().map(Into::into),
            "CI_PROJECT_DIR" => gitlab.clone().map(Into::into),
            _ => None,
        }
    };
    let none: &[std::path::PathBuf] = &[];
    // `cargo cuda-lint`: the workspace root, inside the checkout or not.
    assert_eq!(
        report_root_with(&ws.join("crate"), none, vars(Some("/ci/ws"), None)),
        ws
    );
    assert_eq!(
        report_root_with(Path::new("/elsewhere"), none, vars(Some("/ci/ws"), None)),
        Path::new("/elsewhere")
    );
    assert_eq!(
        report_root_with(&ws.join("crate"), none, vars(None, None)),
        ws.join("crate")
    );
    // `cuda-lint check`: the files decide too, `..` and `.` resolved; a relative variable is
    // no checkout.
    let files = [std::path::PathBuf::from("../ci/./ws/a.cu")];
    assert_eq!(
        report_root_with(Path::new("/tmp"), &files, vars(None, Some("/ci/ws/"))),
        ws
    );
    assert_eq!(
        report_root_with(Path::new("/tmp"), &files, vars(Some("ci/ws"), None)),
        Path::new("/tmp")
    );
    // GitHub's variable first, GitLab's when GitHub's does not hold it.
    assert_eq!(
        report_root_with(&ws.join("x"), none, vars(Some("/ci/ws/x"), Some("/ci/ws"))),
        ws.join("x")
    );
    assert_eq!(
        report_root_with(&ws.join("x"), none, vars(Some("/other"), Some("/ci/ws"))),
        ws
    );
    // Paths then: relative to the root, `.` for the root itself, absolute outside it.
    assert_eq!(output::relative_path("../ci/ws/a.cu", Path::new("/tmp"), ws), "a.cu");
    assert_eq!(output::relative_path(".", ws, ws), ".");
    assert_eq!(output::relative_path("/tmp/a.cu", ws, ws), "/tmp/a.cu");
}

// ---------------------------------------------------------------------------------------------
// cargo's JSON to findings

/// A `compiler-message` line as cargo prints it.
fn compiler_message(diagnostic: Value) -> Message {
    let line = json!({
        "reason": "compiler-message",
        "package_id": "path+file:///repo/app#0.1.0",
        "manifest_path": "/repo/app/Cargo.toml",
        "target": {
            "kind": ["bin"], "crate_types": ["bin"], "name": "app", "src_path": "/repo/app/src/main.rs",
            "edition": "2024", "doc": true, "doctest": false, "test": true
        },
        "message": diagnostic,
    })
    .to_string();
    Message::parse_stream(line.as_bytes()).next().unwrap().unwrap()
}

fn diag_span(file: &str, line: usize, primary: bool, label: Option<&str>, text: &str) -> Value {
    json!({
        "file_name": file, "byte_start": 0, "byte_end": 4, "line_start": line, "line_end": line,
        "column_start": 5, "column_end": 9, "is_primary": primary,
        "text": [{"text": text, "highlight_start": 5, "highlight_end": 9}],
        "label": label, "suggested_replacement": null, "suggestion_applicability": null, "expansion": null
    })
}

fn child(level: &str, message: &str, spans: Value) -> Value {
    json!({"message": message, "code": null, "level": level, "spans": spans, "children": [], "rendered": null})
}

#[test]
fn cuda_lint_diagnostics_become_findings() {
    let diagnostic = json!({
        "message": "host read of `h` while an asynchronous copy may still write it",
        "code": {"code": "cuda_lint::missing_sync", "explanation": null},
        "level": "error",
        "spans": [
            diag_span("src/main.rs", 57, true, Some("read here"), "    let tail = h[..].to_vec();"),
            diag_span("src/main.rs", 56, false, Some("asynchronous copy started here"), "    s.copy()?;"),
            diag_span("src/main.rs", 50, false, None, "unlabeled"),
        ],
        "children": [
            child("help", "call `s.synchronize()` first", json!([])),
            child("note", "the copy happens inside `helper` here", json!([diag_span("src/lib.rs", 7, true, None, "x")])),
            child("note", "`#[deny(cuda_lint::missing_sync)]` on by default", json!([])),
        ],
        "rendered": "error: host read ...\n"
    });
    let workspace = Path::new("/repo/app");
    let Classified::Finding(f) = output::classify(compiler_message(diagnostic), workspace, Path::new("/repo")) else {
        panic!("a cuda-lint diagnostic is a finding");
    };
    assert_eq!(f.code, "cuda_lint::missing_sync");
    assert_eq!(f.level, Level::Error);
    // Relative to the report's root, which may lie above the workspace.
    assert_eq!(f.span, span("app/src/main.rs", 57, 5, 57, 9));
    assert_eq!(f.primary_label.as_deref(), Some("read here"));
    assert_eq!(f.source_line, "    let tail = h[..].to_vec();");
    assert_eq!(
        f.notes,
        [
            "help: call `s.synchronize()` first",
            "note: the copy happens inside `helper` here"
        ]
    );
    assert_eq!(
        f.labels,
        [
            Label {
                span: span("app/src/main.rs", 56, 5, 56, 9),
                text: "asynchronous copy started here".into()
            },
            Label {
                span: span("app/src/lib.rs", 7, 5, 7, 9),
                text: "the copy happens inside `helper` here".into()
            },
        ]
    );
}

#[test]
fn other_diagnostics_and_output_are_kept_for_stderr() {
    let error = json!({
        "message": "cannot find value `x` in this scope",
        "code": {"code": "E0425", "explanation": "..."},
        "level": "error",
        "spans": [diag_span("src/main.rs", 3, true, Some("not found in this scope"), "x")],
        "children": [],
        "rendered": "error[E0425]: cannot find value `x` in this scope\n"
    });
    let root = Path::new("/repo");
    match output::classify(compiler_message(error), root, root) {
        Classified::Other(text) => assert_eq!(text, "error[E0425]: cannot find value `x` in this scope\n"),
        other => panic!("{other:?}"),
    }
    let line = Message::parse_stream(&b"not json\n"[..]).next().unwrap().unwrap();
    assert!(matches!(output::classify(line, root, root), Classified::Other(text) if text == "not json\n"));
    let finished = Message::parse_stream(&br#"{"reason":"build-finished","success":false}"#[..])
        .next()
        .unwrap()
        .unwrap();
    assert!(matches!(output::classify(finished, root, root), Classified::Ignored));
}

#[test]
fn spans_in_foreign_macros_are_shown_at_the_call_site() {
    let mut inner = diag_span(
        "/home/u/.cargo/registry/src/dep/src/lib.rs",
        100,
        true,
        None,
        "macro body",
    );
    inner["expansion"] = json!({
        "span": diag_span("src/main.rs", 12, false, None, "    copy!(dev, host);"),
        "macro_decl_name": "copy!",
        "def_site_span": null
    });
    let diagnostic = json!({
        "message": "asynchronous copy from pageable host memory",
        "code": {"code": "cuda_lint::pageable_async_copy", "explanation": null},
        "level": "warning",
        "spans": [inner],
        "children": [],
        "rendered": null
    });
    let root = Path::new("/repo");
    let Classified::Finding(f) = output::classify(compiler_message(diagnostic), root, root) else {
        panic!("a finding");
    };
    assert_eq!(f.level, Level::Warning);
    assert_eq!(f.span.file, "src/main.rs");
    assert_eq!(f.span.line_start, 12);
    assert_eq!(f.source_line, "    copy!(dev, host);");
    assert_eq!(output::relative_path("/repo/./a/../b.rs", root, root), "b.rs");
    assert_eq!(output::relative_path("/other/b.rs", root, root), "/other/b.rs");
}

// ---------------------------------------------------------------------------------------------
// --message-format

#[test]
fn message_format_is_ours_or_cargos() {
    let args = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let rest = args(&["-p", "x", "--keep-going"]);
    assert_eq!(
        split_message_format(&args(&["-p", "x", "--message-format=sarif", "--keep-going"])),
        Ok((Some(Format::Sarif), rest.clone()))
    );
    assert_eq!(
        split_message_format(&args(&["-p", "x", "--message-format", "github", "--keep-going"])),
        Ok((Some(Format::Github), rest.clone()))
    );
    assert_eq!(
        split_message_format(&args(&["--message-format=gitlab"])),
        Ok((Some(Format::Gitlab), vec![]))
    );
    for cargo in [
        &["--message-format=json"][..],
        &["--message-format", "short,json"],
        &["-p", "x"],
    ] {
        assert_eq!(split_message_format(&args(cargo)), Ok((None, args(cargo))));
    }
    let unknown = split_message_format(&args(&["--message-format=xml"])).unwrap_err();
    assert!(unknown.contains("`xml`") && unknown.contains("human") && unknown.contains("sarif, github, gitlab"));
    assert!(split_message_format(&args(&["--message-format=sarif,json"])).is_err());
    assert!(split_message_format(&args(&["--message-format=sarif", "--message-format=gitlab"])).is_err());
    assert!(split_message_format(&args(&["--message-format"])).is_err());
}
