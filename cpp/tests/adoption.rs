//! What a project adopts cuda-lint with, beside the CLI: the GitHub Action (`action.yml`) and
//! the pre-commit hook (`.pre-commit-hooks.yaml`) at the repository's root. Both files are
//! read with a small YAML reader (the subset they are written in; anything else fails the test,
//! so they stay in it), checked for what GitHub and pre-commit require, and their commands are
//! run as the runner and pre-commit run them, against the built `cuda-lint`: the flags they
//! pass must be flags the CLI accepts, and their exit statuses what the files promise.
#[path = "../../lint/protocol/tests/support/mod.rs"]
mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Map, Value};
use support::valid_sarif;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

// ---------------------------------------------------------------------------------------------
// A YAML subset: block mappings and sequences by indentation, plain, single- and double-quoted
// scalars (all kept as strings), literal (`|`) block scalars, comments. No flow collections,
// anchors, tags or multi-document streams: a line it does not understand fails the test.

/// One line that matters: its number (1-based), indentation and text without the indentation.
#[derive(Clone, Debug)]
struct Line {
    number: usize,
    indent: usize,
    text: String,
}

fn parse_yaml(text: &str) -> Value {
    let raw: Vec<&str> = text.lines().collect();
    let mut at = 0;
    let value = block(&raw, &mut at, 0);
    if let Some(line) = next_line(&raw, at) {
        panic!("line {}: unexpected indentation: {:?}", line.number, line.text);
    }
    value
}

/// The next line that is neither blank nor a comment, from `at`.
fn next_line(raw: &[&str], mut at: usize) -> Option<Line> {
    while at < raw.len() {
        let l = raw[at];
        let text = l.trim_start_matches(' ');
        assert!(!text.starts_with('\t'), "line {}: a tab in the indentation", at + 1);
        if !text.is_empty() && !text.starts_with('#') {
            return Some(Line {
                number: at + 1,
                indent: l.len() - text.len(),
                text: text.to_string(),
            });
        }
        at += 1;
    }
    None
}

/// The block (mapping or sequence) whose lines are indented by `indent`, from `*at`.
fn block(raw: &[&str], at: &mut usize, indent: usize) -> Value {
    let first = next_line(raw, *at).expect("a block");
    assert_eq!(first.indent, indent, "line {}: unexpected indentation", first.number);
    if first.text.starts_with("- ") || first.text == "-" {
        sequence(raw, at, indent)
    } else {
        mapping(raw, at, indent, None)
    }
}

fn sequence(raw: &[&str], at: &mut usize, indent: usize) -> Value {
    let mut items = Vec::new();
    while let Some(line) = next_line(raw, *at) {
        if line.indent < indent || !(line.text.starts_with("- ") || line.text == "-") {
            assert!(line.indent <= indent, "line {}: unexpected indentation", line.number);
            break;
        }
        assert_eq!(line.indent, indent, "line {}: unexpected indentation", line.number);
        let rest = line.text[1..].trim_start();
        if rest.is_empty() {
            *at = line.number;
            items.push(block(raw, at, next_line(raw, *at).map_or(indent + 2, |l| l.indent)));
        } else if key_value(rest).is_some() {
            // `- key: value` starts a mapping whose keys are indented as `key` is.
            let inner = indent + (line.text.len() - rest.len());
            items.push(mapping(raw, at, inner, Some((line.number, rest.to_string()))));
        } else {
            *at = line.number;
            items.push(Value::String(scalar(rest, line.number)));
        }
    }
    Value::Array(items)
}

/// `key: rest` (rest possibly empty), when the text is a mapping entry.
fn key_value(text: &str) -> Option<(String, String)> {
    if text.starts_with(['"', '\'', '[', '{']) {
        return None;
    }
    let (key, rest) = match text.split_once(": ") {
        Some((k, r)) => (k, r.trim()),
        None => (text.strip_suffix(':')?, ""),
    };
    (!key.is_empty() && key.chars().all(|c| c.is_alphanumeric() || "-_.".contains(c)))
        .then(|| (key.to_string(), rest.to_string()))
}

/// The mapping whose keys are indented by `indent`; `first` is its first entry when it began on
/// a sequence item's line.
fn mapping(raw: &[&str], at: &mut usize, indent: usize, mut first: Option<(usize, String)>) -> Value {
    let mut map = Map::new();
    loop {
        let (number, text) = match first.take() {
            Some(entry) => entry,
            None => match next_line(raw, *at) {
                Some(line) if line.indent == indent && !line.text.starts_with("- ") => (line.number, line.text),
                Some(line) => {
                    assert!(line.indent < indent, "line {}: unexpected indentation", line.number);
                    break;
                }
                None => break,
            },
        };
        *at = number;
        let (key, rest) = key_value(&text).unwrap_or_else(|| panic!("line {number}: not `key: value`: {text:?}"));
        assert!(!map.contains_key(&key), "line {number}: `{key}` given twice");
        let value = match rest.as_str() {
            "" => match next_line(raw, *at) {
                Some(next) if next.indent > indent => block(raw, at, next.indent),
                _ => Value::String(String::new()),
            },
            "|" => Value::String(literal(raw, at, indent)),
            _ => Value::String(scalar(&rest, number)),
        };
        map.insert(key, value);
    }
    Value::Object(map)
}

/// A literal block scalar: the lines after `*at` indented more than `indent`, with their common
/// indentation removed, each ending with a newline (clip chomping).
fn literal(raw: &[&str], at: &mut usize, indent: usize) -> String {
    let mut lines: Vec<&str> = Vec::new();
    while *at < raw.len() {
        let l = raw[*at];
        let text = l.trim_start_matches(' ');
        if !text.is_empty() && l.len() - text.len() <= indent {
            break;
        }
        lines.push(l);
        *at += 1;
    }
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    let common = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches(' ').len())
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|l| format!("{}\n", l.get(common..).unwrap_or("")))
        .collect()
}

/// A one-line scalar: quoted, or plain with any ` #` comment removed.
fn scalar(text: &str, number: usize) -> String {
    if let Some(inner) = text.strip_prefix('\'') {
        let end = inner
            .rfind('\'')
            .unwrap_or_else(|| panic!("line {number}: unclosed quote"));
        assert!(
            inner[end + 1..].trim().is_empty() || inner[end + 1..].trim_start().starts_with('#'),
            "line {number}: text after a quoted scalar"
        );
        return inner[..end].replace("''", "'");
    }
    if text.starts_with('"') {
        let end = text
            .rfind('"')
            .filter(|e| *e > 0)
            .unwrap_or_else(|| panic!("line {number}: unclosed quote"));
        return serde_json::from_str(&text[..=end]).unwrap_or_else(|e| panic!("line {number}: {e}"));
    }
    assert!(
        !text.starts_with(['[', '{', '&', '*', '!', '|', '>', '%', '@', '`']),
        "line {number}: outside the YAML subset these tests read: {text:?}"
    );
    let text = text.split(" #").next().unwrap_or("").trim_end();
    // Not YAML: a plain scalar cannot hold `: ` or end with `:`.
    assert!(
        !text.contains(": ") && !text.ends_with(':'),
        "line {number}: quote a scalar with `: ` in it: {text:?}"
    );
    text.to_string()
}

#[test]
fn the_yaml_reader_reads_what_it_should() {
    let doc = "# a comment\n\
               name: x  # trailing\n\
               quoted: '\\.(cu|cuh)$'\n\
               double: \"a\\tb\"\n\
               list:\n  - one\n  - key: v\n    other: w\n\
               nested:\n  inner:\n    deep: 1\n\
               script: |\n  line one\n    indented\n\n  last\n\
               after: end\n";
    let v = parse_yaml(doc);
    assert_eq!(v["name"], "x");
    assert_eq!(v["quoted"], "\\.(cu|cuh)$");
    assert_eq!(v["double"], "a\tb");
    assert_eq!(v["list"][0], "one");
    assert_eq!(v["list"][1]["other"], "w");
    assert_eq!(v["nested"]["inner"]["deep"], "1");
    assert_eq!(v["script"], "line one\n  indented\n\nlast\n");
    assert_eq!(v["after"], "end");
    let top = parse_yaml("- id: a\n  entry: b\n- id: c\n");
    assert_eq!(top[1]["id"], "c");
    assert!(std::panic::catch_unwind(|| parse_yaml("a: [1, 2]\n")).is_err());
    assert!(std::panic::catch_unwind(|| parse_yaml("a: 1\n   b: 2\n")).is_err());
}

// ---------------------------------------------------------------------------------------------
// Running commands as GitHub and pre-commit do

/// A folder whose only program is `cuda-lint` (the built binary), for `PATH`.
fn bin_dir(name: &str) -> PathBuf {
    let dir = scratch(&format!("{name}-bin"));
    let exe = Path::new(env!("CARGO_BIN_EXE_cuda-lint"));
    #[cfg(unix)]
    std::os::unix::fs::symlink(exe, dir.join("cuda-lint")).unwrap();
    #[cfg(not(unix))]
    std::fs::copy(exe, dir.join("cuda-lint.exe")).unwrap();
    dir
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cuda-lint-cpp-adoption-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn path_with(dir: &Path) -> std::ffi::OsString {
    let mut paths = vec![dir.to_path_buf()];
    paths.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    std::env::join_paths(paths).unwrap()
}

const BUGGY: &str = r#"#include <cuda_runtime.h>
float* download(float* d, int n, cudaStream_t s, float* first) {
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    *first = h[0];
    return h;
}
"#;

const ALSO_BUGGY: &str = r#"#include <cuda_runtime.h>
float* fresh(float* d, int n, cudaStream_t s, float* first) {
    float* out;
    cudaMallocHost(&out, n * sizeof(float));
    cudaMemcpyAsync(out, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    *first = out[0];
    return out;
}
"#;

const CLEAN: &str = r#"#include <cuda_runtime.h>
float* download(float* d, int n, cudaStream_t s, float* first) {
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    *first = h[0];
    return h;
}
"#;

/// `${{ expr }}` in `text` replaced by `values[expr]`; an expression it does not know fails the
/// test.
fn expand(text: &str, values: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${{") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find("}}").expect("an unclosed ${{") + start;
        let expr = rest[start + 3..end].trim();
        out.push_str(
            values
                .get(expr)
                .unwrap_or_else(|| panic!("an expression the test does not know: {expr}")),
        );
        rest = &rest[end + 2..];
    }
    out + rest
}

/// What the action's expressions are in a run: each input (the given value, else its default),
/// `github.action_path`, and the outputs of the steps run so far.
fn expressions(action: &Value, given: &[(&str, &str)], outputs: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    let mut values = BTreeMap::new();
    for (name, input) in action["inputs"].as_object().unwrap() {
        let value = given
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.to_string())
            .unwrap_or_else(|| input["default"].as_str().unwrap_or("").to_string());
        values.insert(format!("inputs.{name}"), value);
    }
    values.insert("github.action_path".into(), repo_root().display().to_string());
    for (k, v) in outputs {
        values.insert(format!("steps.check.outputs.{k}"), v.clone());
    }
    values
}

/// Runs a step's `run` script as the runner runs `shell: bash` (`bash --noprofile --norc -eo
/// pipefail FILE`) in `workspace`, with its `env` expanded and `GITHUB_OUTPUT`; gives the
/// process's output and the outputs the step set.
fn run_step(
    step: &Value,
    values: &BTreeMap<String, String>,
    workspace: &Path,
    bin: &Path,
) -> (Output, BTreeMap<String, String>) {
    assert_eq!(step["shell"], "bash", "{step}");
    let script_dir = scratch(&format!("step-{}", step["name"].as_str().unwrap().replace(' ', "-")));
    let script = script_dir.join("step.sh");
    let run = step["run"].as_str().unwrap();
    assert!(
        !run.contains("${{"),
        "inputs reach the script through `env`, never pasted in: {run}"
    );
    std::fs::write(&script, run).unwrap();
    let output_file = script_dir.join("github_output");
    std::fs::write(&output_file, "").unwrap();
    let mut cmd = Command::new("bash");
    cmd.args(["--noprofile", "--norc", "-eo", "pipefail"])
        .arg(&script)
        .current_dir(workspace)
        .env("PATH", path_with(bin))
        .env("GITHUB_OUTPUT", &output_file)
        .env("GITHUB_WORKSPACE", workspace)
        .env_remove("CI_PROJECT_DIR");
    if let Some(env) = step["env"].as_object() {
        for (k, v) in env {
            cmd.env(k, expand(v.as_str().unwrap(), values));
        }
    }
    let out = cmd.output().unwrap();
    let outputs = std::fs::read_to_string(&output_file)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    (out, outputs)
}

fn action() -> Value {
    parse_yaml(&std::fs::read_to_string(repo_root().join("action.yml")).expect("action.yml at the root"))
}

fn step(action: &Value, find: impl Fn(&Value) -> bool) -> &Value {
    action["runs"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| find(s))
        .expect("the step")
}

// ---------------------------------------------------------------------------------------------
// action.yml

#[test]
fn the_action_is_a_composite_action_with_its_inputs() {
    let action = action();
    assert!(action["name"].as_str().is_some_and(|n| !n.is_empty()));
    assert!(action["description"].as_str().is_some_and(|d| !d.is_empty()));
    assert_eq!(action["runs"]["using"], "composite");
    let inputs = action["inputs"].as_object().unwrap();
    for name in ["paths", "args", "baseline", "sarif-file", "upload", "fail-on-findings"] {
        let input = &inputs[name];
        assert!(
            input["description"].as_str().is_some_and(|d| !d.is_empty()),
            "input {name}"
        );
        assert_ne!(input["required"], "true", "input {name} has a default");
    }
    assert_eq!(inputs["paths"]["default"], ".");
    assert_eq!(inputs["baseline"]["default"], "");
    for output in ["sarif-file", "exit-code"] {
        assert_eq!(
            action["outputs"][output]["value"],
            format!("${{{{ steps.check.outputs.{output} }}}}"),
            "output {output}"
        );
    }
    // Every step: either a script in bash or an action, and every `run` step names its shell
    // (composite actions require it).
    for s in action["runs"]["steps"].as_array().unwrap() {
        assert!(s["name"].as_str().is_some(), "{s}");
        assert!(s.get("run").is_some() != s.get("uses").is_some(), "{s}");
        if s.get("run").is_some() {
            assert_eq!(s["shell"], "bash", "{s}");
        }
    }
}

#[test]
fn the_action_installs_cuda_lint_from_its_own_checkout() {
    let action = action();
    let install = step(&action, |s| s["run"].as_str().is_some_and(|r| r.contains("cargo")));
    let run = install["run"].as_str().unwrap();
    assert!(run.contains("install --locked --path \"$ACTION_PATH/cpp\""), "{run}");
    assert_eq!(install["env"]["ACTION_PATH"], "${{ github.action_path }}");
    assert_eq!(install["if"], "inputs.install == 'true'");
    // That folder is the package whose binary the other steps run.
    let manifest = std::fs::read_to_string(repo_root().join("cpp/Cargo.toml")).unwrap();
    assert!(manifest.contains("[[bin]]\nname = \"cuda-lint\""), "{manifest}");
}

#[test]
fn the_action_uploads_the_sarif_report_the_check_wrote() {
    let action = action();
    let upload = step(&action, |s| {
        s["uses"]
            .as_str()
            .is_some_and(|u| u.starts_with("github/codeql-action/upload-sarif@"))
    });
    assert_eq!(upload["with"]["sarif_file"], "${{ steps.check.outputs.sarif-file }}");
    assert_eq!(upload["with"]["category"], "${{ inputs.category }}");
    let condition = upload["if"].as_str().unwrap();
    assert!(condition.contains("inputs.upload == 'true'"), "{condition}");
    // The check step runs `cuda-lint check` with SARIF into the file, whatever it finds.
    let check = step(&action, |s| s["id"] == "check");
    let run = check["run"].as_str().unwrap();
    assert!(
        run.contains("cuda-lint check --message-format=sarif ") && run.contains("> \"$SARIF_FILE\" || status=$?"),
        "{run}"
    );
    // The step that fails comes after the upload.
    let steps = action["runs"]["steps"].as_array().unwrap();
    let position = |name: &str| steps.iter().position(|s| s["name"] == name).unwrap();
    let fail = steps.iter().position(|s| s["env"]["EXIT_CODE"].is_string()).unwrap();
    assert!(position(upload["name"].as_str().unwrap()) < fail);
    assert!(position(check["name"].as_str().unwrap()) < position(upload["name"].as_str().unwrap()));
}

#[test]
fn the_actions_check_step_runs_cuda_lint_with_flags_it_accepts() {
    let action = action();
    let check = step(&action, |s| s["id"] == "check");
    let fail = step(&action, |s| s["env"]["EXIT_CODE"].is_string());
    let bin = bin_dir("action");
    let no_outputs = BTreeMap::new();

    // An empty workspace with the default inputs: cuda-lint ran (no usage error: 3, nothing to
    // analyse) and the report says so.
    let empty = scratch("action-empty");
    let (out, outputs) = run_step(check, &expressions(&action, &[], &no_outputs), &empty, &bin);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(outputs["exit-code"], "3", "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(outputs["sarif-file"], "cuda-lint.sarif");
    let log = valid_sarif(&std::fs::read_to_string(empty.join("cuda-lint.sarif")).unwrap());
    assert_eq!(log["runs"][0]["invocations"][0]["executionSuccessful"], false);
    // The last step fails the job with that status.
    let values = expressions(&action, &[], &outputs);
    let (out, _) = run_step(fail, &values, &empty, &bin);
    assert_eq!(out.status.code(), Some(3));

    // A workspace with a baseline, paths, extra args and another report name: the baselined
    // finding is left out, the new one is in the report, at its path in the workspace.
    let ws = scratch("action-ws");
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::create_dir_all(ws.join("other")).unwrap();
    std::fs::write(ws.join("src/old.cu"), BUGGY).unwrap();
    std::fs::write(ws.join("other/ignored.cu"), BUGGY).unwrap();
    let written = Command::new(env!("CARGO_BIN_EXE_cuda-lint"))
        .args(["check", "--write-baseline", "cuda-lint-baseline.json", "src"])
        .current_dir(&ws)
        .output()
        .unwrap();
    assert_eq!(written.status.code(), Some(0));
    std::fs::write(ws.join("src/new.cu"), ALSO_BUGGY).unwrap();
    // Paths on lines of their own, as a workflow's `paths: |` gives them.
    let given = [
        ("paths", "src/old.cu\n  src/new.cu\n"),
        ("baseline", "cuda-lint-baseline.json"),
        ("args", "-W cuda_lint::unverified -D cuda_lint::perf"),
        ("sarif-file", "report.sarif"),
    ];
    let (out, outputs) = run_step(check, &expressions(&action, &given, &no_outputs), &ws, &bin);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(outputs["exit-code"], "1", "{stderr}");
    assert!(
        stderr.contains("cuda-lint: 1 finding in the baseline was not reported"),
        "{stderr}"
    );
    let log = valid_sarif(&std::fs::read_to_string(ws.join("report.sarif")).unwrap());
    let uris: Vec<&str> = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(uris, ["src/new.cu"]);

    // fail-on-findings decides for 1 only.
    for (fail_on, expected) in [("true", 1), ("false", 0)] {
        let values = expressions(&action, &[("fail-on-findings", fail_on)], &outputs);
        let (out, _) = run_step(fail, &values, &ws, &bin);
        assert_eq!(out.status.code(), Some(expected), "fail-on-findings: {fail_on}");
    }
    let mut clean = outputs.clone();
    clean.insert("exit-code".into(), "0".into());
    let (out, _) = run_step(fail, &expressions(&action, &[], &clean), &ws, &bin);
    assert_eq!(out.status.code(), Some(0));

    // A baseline that is not there fails the run (3), whatever fail-on-findings says.
    let given = [("baseline", "missing.json"), ("fail-on-findings", "false")];
    let (_, outputs) = run_step(check, &expressions(&action, &given, &no_outputs), &ws, &bin);
    assert_eq!(outputs["exit-code"], "3");
    let (out, _) = run_step(fail, &expressions(&action, &given, &outputs), &ws, &bin);
    assert_eq!(out.status.code(), Some(3));
}

// ---------------------------------------------------------------------------------------------
// .pre-commit-hooks.yaml

fn hooks() -> Value {
    parse_yaml(
        &std::fs::read_to_string(repo_root().join(".pre-commit-hooks.yaml")).expect("the hooks file at the root"),
    )
}

#[test]
fn the_pre_commit_hook_is_declared_as_pre_commit_requires() {
    let hooks = hooks();
    let hooks = hooks.as_array().expect("a list of hooks");
    let hook = hooks
        .iter()
        .find(|h| h["id"] == "cuda-lint-check")
        .expect("the hook cuda-lint-check");
    // pre-commit's required keys, and what this hook promises.
    for key in ["id", "name", "entry", "language"] {
        assert!(hook[key].as_str().is_some_and(|v| !v.is_empty()), "{key}");
    }
    assert_eq!(hook["entry"], "cuda-lint check");
    // The repository's root is a workspace, which pre-commit's `rust` language cannot install:
    // the hook runs the cuda-lint on PATH.
    assert_eq!(hook["language"], "system");
    assert_eq!(hook["files"], "\\.(cu|cuh)$");
    // pre-commit passes the file names (the default): the entry must take them.
    assert_ne!(hook["pass_filenames"], "false");
}

#[test]
fn the_pre_commit_hooks_entry_checks_the_files_pre_commit_passes() {
    let hooks = hooks();
    let hook = hooks
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["id"] == "cuda-lint-check")
        .unwrap();
    let bin = bin_dir("hook");
    let repo = scratch("hook-repo");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    std::fs::write(repo.join("src/bad.cu"), BUGGY).unwrap();
    std::fs::write(repo.join("src/bad.cuh"), ALSO_BUGGY).unwrap();
    std::fs::write(repo.join("src/good.cu"), CLEAN).unwrap();
    // As pre-commit runs it: the entry split as a shell splits it, the hook's args, the files.
    let run = |args: &[&str], files: &[&str]| -> Output {
        let entry: Vec<&str> = hook["entry"].as_str().unwrap().split_whitespace().collect();
        Command::new(entry[0])
            .args(&entry[1..])
            .args(args)
            .args(files)
            .current_dir(&repo)
            .env("PATH", path_with(&bin))
            .output()
            .unwrap()
    };
    let good = run(&[], &["src/good.cu"]);
    assert_eq!(good.status.code(), Some(0), "{}", String::from_utf8_lossy(&good.stderr));
    let bad = run(&[], &["src/good.cu", "src/bad.cu", "src/bad.cuh"]);
    assert_eq!(bad.status.code(), Some(1));
    let shown = String::from_utf8_lossy(&bad.stdout);
    assert!(
        shown.contains("src/bad.cu:") && shown.contains("src/bad.cuh:"),
        "{shown}"
    );
    // With a baseline among the hook's args, as the hooks file's comment shows.
    let written = run(&["--write-baseline", "cuda-lint-baseline.json"], &["src/bad.cu"]);
    assert_eq!(written.status.code(), Some(0));
    let baselined = run(
        &["--baseline", "cuda-lint-baseline.json"],
        &["src/good.cu", "src/bad.cu"],
    );
    assert_eq!(
        baselined.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&baselined.stdout)
    );
}
