//! `cuda-lint check` as users run it: levels from `cuda-lint.toml`, its mistakes, the CI report
//! formats (checked against their schemas, and by `sarif-multitool` where it is installed: see
//! `lint/protocol/tests/support`), their paths in CI, runs that could not analyse everything,
//! exit statuses, bad paths, binary files.
#[path = "../../lint/protocol/tests/support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use support::{parse_command, percent_decode, property, valid_gitlab, valid_sarif};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cuda-lint-cpp-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui/runtime_api.cu"),
        dir.join("runtime_api.cu"),
    )
    .unwrap();
    dir
}

fn run(dir: &Path, args: &[&str]) -> Output {
    run_with(dir, args, &[])
}

/// `cuda-lint check ARGS` in `dir`, with the CI's variables of `vars` only (those of a CI the
/// tests may run in are removed).
fn run_with(dir: &Path, args: &[&str], vars: &[(&str, &Path)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cuda-lint"));
    cmd.arg("check").args(args).current_dir(dir);
    for var in cuda_lint_protocol::output::CI_WORKSPACE_VARS {
        cmd.env_remove(var);
    }
    for (var, value) in vars {
        cmd.env(var, value);
    }
    cmd.output().unwrap()
}

fn count(out: &Output, needle: &str) -> usize {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains(needle))
        .count()
}

#[test]
fn levels_come_from_cuda_lint_toml() {
    let dir = scratch("levels");
    // As many as the file's annotations say.
    let text = std::fs::read_to_string(dir.join("runtime_api.cu")).unwrap();
    let annotated = |lint: &str| text.lines().filter(|l| l.ends_with(&format!("//~ {lint}"))).count();
    let (copies, syncs) = (annotated("pageable_async_copy"), annotated("missing_sync"));
    assert!(copies > 0 && syncs > 0);
    let before = run(&dir, &["--message-format=short", "."]);
    assert_eq!(before.status.code(), Some(1));
    assert_eq!(count(&before, "warning: asynchronous copy"), copies);
    assert_eq!(count(&before, "[cuda_lint::missing_sync]"), syncs);
    std::fs::write(
        dir.join("cuda-lint.toml"),
        "[lints]\npageable_async_copy = \"deny\"\nmissing_sync = \"allow\"\n",
    )
    .unwrap();
    let after = run(&dir, &["--message-format=short", "."]);
    assert_eq!(count(&after, "error: asynchronous copy"), copies);
    assert_eq!(count(&after, "[cuda_lint::missing_sync]"), 0);
}

#[test]
fn groups_and_perf_options_come_from_cuda_lint_toml() {
    let dir = scratch("groups");
    let text = std::fs::read_to_string(dir.join("runtime_api.cu")).unwrap();
    let copies = text.lines().filter(|l| l.ends_with("//~ pageable_async_copy")).count();
    // `unverified` is allow by default: the read after a kernel of another file is silent.
    let before = run(&dir, &["--message-format=short", "."]);
    assert_eq!(count(&before, "[cuda_lint::unverified]"), 0);
    assert_eq!(count(&before, "warning: asynchronous copy"), copies);
    // The pedantic group turns it on; the perf group silences the copies.
    std::fs::write(
        dir.join("cuda-lint.toml"),
        "[lints]\npedantic = \"warn\"\n\"cuda_lint::perf\" = \"allow\"\n",
    )
    .unwrap();
    let grouped = run(&dir, &["--message-format=short", "."]);
    assert!(count(&grouped, "[cuda_lint::unverified]") >= 1);
    assert_eq!(count(&grouped, "warning: asynchronous copy"), 0);
    // A threshold of 0 bytes reports copies of any size (the file has none under 64 KiB of a
    // known size, so the count stays); a huge one silences every copy of a known size.
    std::fs::write(dir.join("cuda-lint.toml"), "[perf]\nmin-copy-bytes = 0\n").unwrap();
    let all_sizes = run(&dir, &["--message-format=short", "."]);
    assert_eq!(count(&all_sizes, "warning: asynchronous copy"), copies);
}

#[test]
fn lint_flags_on_the_command_line_come_after_the_file() {
    let dir = scratch("flags");
    std::fs::write(dir.join("cuda-lint.toml"), "[lints]\nmissing_sync = \"allow\"\n").unwrap();
    let out = run(
        &dir,
        &[
            "--message-format=short",
            "-D",
            "cuda_lint::missing_sync",
            "-Wunverified",
            ".",
        ],
    );
    assert!(count(&out, "error: host read") >= 1);
    assert!(count(&out, "[cuda_lint::unverified]") >= 1);
    let perf_denied = run(&dir, &["--message-format=short", "-D", "perf", "."]);
    assert!(count(&perf_denied, "error: asynchronous copy") >= 1);
    let bad = run(&dir, &["-D", "cuda_lint::nope", "."]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown lint or group `cuda_lint::nope`"));
}

#[test]
fn a_scalar_copy_is_reported_only_under_a_lower_threshold() {
    let dir = scratch("threshold");
    std::fs::write(
        dir.join("scalar.cu"),
        "#include <cuda_runtime.h>\n\
         double total(const double* d_sum, cudaStream_t s) {\n\
         \x20   double sum = 0.0;\n\
         \x20   cudaMemcpyAsync(&sum, d_sum, sizeof(double), cudaMemcpyDeviceToHost, s);\n\
         \x20   cudaStreamSynchronize(s);\n\
         \x20   return sum;\n\
         }\n",
    )
    .unwrap();
    let quiet = run(&dir, &["--message-format=short", "scalar.cu"]);
    assert_eq!(count(&quiet, "asynchronous copy"), 0);
    std::fs::write(dir.join("cuda-lint.toml"), "[perf]\nmin-copy-bytes = 0\n").unwrap();
    let loud = run(&dir, &["--message-format=short", "scalar.cu"]);
    assert_eq!(count(&loud, "warning: asynchronous copy into pageable host memory"), 1);
}

#[test]
fn a_mistake_in_the_file_stops_with_its_line() {
    let dir = scratch("bad-config");
    std::fs::write(dir.join("cuda-lint.toml"), "[lints]\nmissing_synch = \"deny\"\n").unwrap();
    let out = run(&dir, &["."]);
    // Nothing was analysed: the run failed, with its own status (not findings' 1).
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("error: ") && err.contains("cuda-lint.toml:2:1: unknown lint or group `missing_synch`"),
        "{err}"
    );
}

#[test]
fn ci_formats() {
    let dir = scratch("formats");
    let short = run(&dir, &["--message-format=short", "."]);
    let findings = String::from_utf8_lossy(&short.stdout).lines().count();
    assert!(findings > 10);
    let sarif = run(&dir, &["--message-format=sarif", "."]);
    let log: serde_json::Value = serde_json::from_slice(&sarif.stdout).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), findings);
    assert!(
        results
            .iter()
            .all(|r| { r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "runtime_api.cu" })
    );
    let github = run(&dir, &["--message-format=github", "."]);
    assert_eq!(String::from_utf8_lossy(&github.stdout).lines().count(), findings);
    let gitlab = run(&dir, &["--message-format=gitlab", "."]);
    let entries: serde_json::Value = serde_json::from_slice(&gitlab.stdout).unwrap();
    assert_eq!(entries.as_array().unwrap().len(), findings);
}

#[test]
fn usage_errors_exit_2() {
    let dir = scratch("usage");
    assert_eq!(run(&dir, &["--message-format=xml", "."]).status.code(), Some(2));
    let none = Command::new(env!("CARGO_BIN_EXE_cuda-lint")).output().unwrap();
    assert_eq!(none.status.code(), Some(2));
}

#[test]
fn clean_code_exits_0() {
    let dir = scratch("clean");
    std::fs::remove_file(dir.join("runtime_api.cu")).unwrap();
    std::fs::write(
        dir.join("ok.cu"),
        "int main() { float* h = new float[4]; h[0] = 1; delete[] h; }\n",
    )
    .unwrap();
    let out = run(&dir, &["."]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
}

const VENDOR: &str = r#"#include <cuda_runtime.h>
namespace vendor { void wait_all(); float* staging(size_t n); struct Queue { void finish(); }; }

__global__ void fill(float* x, int n) { if (threadIdx.x < n) x[threadIdx.x] = 1.0f; }

float read_after_the_vendor_waits(int n, cudaStream_t s) {
    float* h;
    float* d;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    fill<<<1, 256, 0, s>>>(d, n);
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    vendor::wait_all();
    return h[0]; // READ-AFTER-FREE-FUNCTION
}

float read_after_the_queue_finishes(int n, cudaStream_t s, vendor::Queue& q) {
    float* h;
    float* d;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    q.finish();
    return h[0]; // READ-AFTER-METHOD
}

void upload_from_the_vendor_staging(int n, cudaStream_t s) {
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    float* h = vendor::staging(n);
    cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s); // STAGED-COPY
    cudaStreamSynchronize(s);
}
// cuda-lint: allow-file(device_memory_leak, uninitialized_device_read, unread_kernel_output)
"#;

#[test]
fn functions_from_cuda_lint_toml_describe_calls_the_file_cannot_see() {
    let dir = scratch("functions");
    std::fs::remove_file(dir.join("runtime_api.cu")).unwrap();
    std::fs::write(dir.join("vendor.cu"), VENDOR).unwrap();
    let line = |marker: &str| VENDOR.lines().position(|l| l.contains(marker)).unwrap() + 1;
    let lines = |out: &Output| -> Vec<String> {
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| {
                let lint = l.rsplit(' ').next().unwrap_or("");
                format!("{}: {}", l.split(": ").take(2).collect::<Vec<_>>().join(": "), lint)
            })
            .collect()
    };
    // Without the file: both reads are unsynchronised, the staging memory is unknown.
    let before = run(&dir, &["--message-format=short", "."]);
    assert_eq!(
        lines(&before),
        [
            format!(
                "./vendor.cu:{}:12: error: [cuda_lint::missing_sync]",
                line("FREE-FUNCTION")
            ),
            format!("./vendor.cu:{}:12: error: [cuda_lint::missing_sync]", line("METHOD")),
        ],
        "{}",
        String::from_utf8_lossy(&before.stdout)
    );
    std::fs::write(
        dir.join("cuda-lint.toml"),
        "[[functions]]\npath = \"vendor::wait_all\"\neffects = [\"sync(all)\"]\n\n\
         [[functions]]\npath = \"vendor::Queue::finish\"\neffects = [\"sync(all)\"]\n\n\
         [[functions]]\npath = \"vendor::staging\"\neffects = [\"returns(pageable)\"]\n\n\
         [[functions]]\npath = \"vendor::launch_it\"\neffects = [\"launch(stream = 0, reads = [1], writes = [1])\"]\n",
    )
    .unwrap();
    let after = run(&dir, &["--message-format=short", "."]);
    assert_eq!(
        lines(&after),
        [format!(
            "./vendor.cu:{}:5: warning: [cuda_lint::pageable_async_copy]",
            line("STAGED-COPY")
        )],
        "{}",
        String::from_utf8_lossy(&after.stdout)
    );
    // What C++ does not take from the file is said, not dropped silently.
    let err = String::from_utf8_lossy(&after.stderr);
    assert!(err.contains("`vendor::launch_it` is not applied to C++ calls"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// Paths in CI reports

/// A checkout `ws` with the sources in `ws/src`, an empty `ws/sub`, and a folder outside it.
fn checkout(name: &str) -> (PathBuf, PathBuf) {
    let ws = scratch(name);
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::create_dir_all(ws.join("sub")).unwrap();
    std::fs::rename(ws.join("runtime_api.cu"), ws.join("src/runtime_api.cu")).unwrap();
    let outside = std::env::temp_dir().join(format!("cuda-lint-cpp-cli-{}-{name}-outside", std::process::id()));
    let _ = std::fs::remove_dir_all(&outside);
    std::fs::create_dir_all(&outside).unwrap();
    (ws, outside)
}

/// The file of every result of a SARIF log (relative to `%SRCROOT%`, `uriBaseId` checked, or
/// absolute); and the log's `%SRCROOT%`.
fn sarif_files(log: &Value) -> (Vec<String>, String) {
    let run = &log["runs"][0];
    let files = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let artifact = &r["locations"][0]["physicalLocation"]["artifactLocation"];
            let uri = percent_decode(artifact["uri"].as_str().unwrap());
            match uri.strip_prefix("file://") {
                // Outside `%SRCROOT%`: the path.
                Some(path) => path.to_string(),
                None => {
                    assert_eq!(artifact["uriBaseId"], "%SRCROOT%", "{artifact}");
                    uri
                }
            }
        })
        .collect();
    let root = run["originalUriBaseIds"]["%SRCROOT%"]["uri"].as_str().unwrap();
    (files, percent_decode(root))
}

/// The file of every entry of each CI format's report (SARIF, GitHub, GitLab), each report
/// validated; `None` when one has no finding.
fn report_files(dir: &Path, arg: &str, var: Option<(&str, &Path)>) -> Vec<(String, Vec<String>)> {
    report_files_in(&["sarif", "github", "gitlab"], dir, arg, var)
}

fn report_files_in(formats: &[&str], dir: &Path, arg: &str, var: Option<(&str, &Path)>) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for &format in formats {
        let flag = format!("--message-format={format}");
        let o = run_with(dir, &[&flag, arg], var.as_slice());
        assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
        let text = String::from_utf8(o.stdout).unwrap();
        let files: Vec<String> = match format {
            "sarif" => {
                let (files, root) = sarif_files(&valid_sarif(&text));
                out.push(("%SRCROOT%".to_string(), vec![root]));
                files
            }
            "github" => text
                .lines()
                .map(|l| {
                    let (_, properties, _) = parse_command(l);
                    property(&properties, "file").to_string()
                })
                .collect(),
            _ => valid_gitlab(&text)
                .iter()
                .map(|e| e["location"]["path"].as_str().unwrap().to_string())
                .collect(),
        };
        assert!(!files.is_empty(), "{format}: {text}");
        out.push((format.to_string(), files));
    }
    out
}

fn all_are(reports: &[(String, Vec<String>)], expected: &str, context: &str) {
    for (format, files) in reports.iter().filter(|(f, _)| f != "%SRCROOT%") {
        assert!(
            files.iter().all(|f| f == expected),
            "{context}: {format} gives {files:?}, expected {expected}"
        );
    }
}

#[test]
fn ci_paths_are_relative_to_the_ci_checkout_wherever_it_runs() {
    let (ws, outside) = checkout("ci-paths");
    let abs = ws.join("src/runtime_api.cu");
    let abs = abs.to_str().unwrap();
    // However the file is named, from wherever: relative to the checkout.
    for var in ["GITHUB_WORKSPACE", "CI_PROJECT_DIR"] {
        for (dir, arg) in [
            (ws.clone(), "src/runtime_api.cu"),
            (ws.clone(), "./src"),
            (ws.join("src"), "runtime_api.cu"),
            (ws.join("sub"), "../src/runtime_api.cu"),
            (ws.join("sub"), ".."),
            (ws.join("sub"), abs),
            (outside.clone(), abs),
        ] {
            let context = format!("{var}, in {}, `{arg}`", dir.display());
            let reports = report_files(&dir, arg, Some((var, &ws)));
            all_are(&reports, "src/runtime_api.cu", &context);
            assert_eq!(reports[0].1, [format!("file://{}/", ws.display())], "{context}");
        }
    }
    // A checkout that holds neither the file nor the working directory is not the root.
    let reports = report_files(&ws, "src/runtime_api.cu", Some(("GITHUB_WORKSPACE", &outside)));
    all_are(&reports, "src/runtime_api.cu", "a checkout elsewhere");
    // Outside CI: relative to the working directory; absolute when the file lies outside it.
    all_are(
        &report_files(&ws, "src/runtime_api.cu", None),
        "src/runtime_api.cu",
        "no CI",
    );
    all_are(
        &report_files(&ws.join("src"), ".", None),
        "runtime_api.cu",
        "no CI, in src",
    );
    // (GitLab asks for paths in the repository: not checked against its rules.)
    all_are(
        &report_files_in(&["sarif", "github"], &ws.join("sub"), "../src/runtime_api.cu", None),
        abs,
        "no CI, a file outside the working directory",
    );
}

// ---------------------------------------------------------------------------------------------
// Runs that could not analyse everything

/// The one invocation of a SARIF log.
fn invocation(log: &Value) -> &Value {
    let invocations = log["runs"][0]["invocations"].as_array().expect("invocations");
    assert_eq!(invocations.len(), 1);
    &invocations[0]
}

fn notifications(log: &Value) -> Vec<Value> {
    invocation(log)["toolExecutionNotifications"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn a_mistake_in_cuda_lint_toml_fails_every_report() {
    let dir = scratch("bad-config-reports");
    std::fs::write(dir.join("cuda-lint.toml"), "[lints]\nmissing_synch = \"deny\"\n").unwrap();
    let why = "unknown lint or group `missing_synch`";

    let sarif = run(&dir, &["--message-format=sarif", "."]);
    assert_eq!(sarif.status.code(), Some(3));
    let log = valid_sarif(std::str::from_utf8(&sarif.stdout).unwrap());
    assert_eq!(log["runs"][0]["results"], serde_json::json!([]));
    assert_eq!(invocation(&log)["executionSuccessful"], false);
    assert_eq!(invocation(&log)["exitCode"], 3);
    let notes = notifications(&log);
    assert_eq!(notes.len(), 1, "{notes:#?}");
    assert_eq!(notes[0]["level"], "error");
    assert!(
        notes[0]["message"]["text"].as_str().unwrap().contains(why),
        "{notes:#?}"
    );
    let location = &notes[0]["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "cuda-lint.toml");
    assert_eq!(location["region"]["startLine"], 2);

    let github = run(&dir, &["--message-format=github", "."]);
    assert_eq!(github.status.code(), Some(3));
    let text = String::from_utf8(github.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    let (command, properties, message) = parse_command(text.trim_end());
    assert_eq!(command, "error");
    assert_eq!(property(&properties, "file"), "cuda-lint.toml");
    assert_eq!(property(&properties, "line"), "2");
    assert!(message.contains(why), "{message}");

    let gitlab = run(&dir, &["--message-format=gitlab", "."]);
    assert_eq!(gitlab.status.code(), Some(3));
    let entries = valid_gitlab(std::str::from_utf8(&gitlab.stdout).unwrap());
    assert_eq!(entries.len(), 1, "{entries:#?}");
    assert_eq!(entries[0]["check_name"], "cuda_lint::not_analysed");
    assert_eq!(entries[0]["location"]["path"], "cuda-lint.toml");
    assert_eq!(entries[0]["location"]["lines"]["begin"], 2);
    assert!(entries[0]["description"].as_str().unwrap().contains(why));
}

#[test]
fn what_could_not_be_read_fails_the_run_and_the_rest_is_analysed() {
    let dir = scratch("unreadable");
    let short = run(&dir, &["--message-format=short", "runtime_api.cu"]);
    let findings = String::from_utf8_lossy(&short.stdout).lines().count();
    assert_eq!(short.status.code(), Some(1));

    let out = run(&dir, &["--message-format=sarif", "runtime_api.cu", "no/such.cu"]);
    // Findings and a failure: the failure's status.
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error: no/such.cu: no such file or directory"), "{err}");
    let log = valid_sarif(std::str::from_utf8(&out.stdout).unwrap());
    assert_eq!(log["runs"][0]["results"].as_array().unwrap().len(), findings);
    assert_eq!(invocation(&log)["executionSuccessful"], false);
    let notes = notifications(&log);
    assert_eq!(notes.len(), 1, "{notes:#?}");
    assert_eq!(notes[0]["level"], "error");
    assert_eq!(
        notes[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "no/such.cu"
    );

    // A folder with no source: nothing analysed is no clean run.
    std::fs::create_dir_all(dir.join("docs")).unwrap();
    std::fs::write(dir.join("docs/README.md"), "# not C++\n").unwrap();
    for format in ["human", "sarif", "github", "gitlab"] {
        let out = run(&dir, &[&format!("--message-format={format}"), "docs"]);
        assert_eq!(out.status.code(), Some(3), "{format}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("docs: no CUDA C++ source file"), "{err}");
        match format {
            "sarif" => {
                let log = valid_sarif(std::str::from_utf8(&out.stdout).unwrap());
                assert_eq!(invocation(&log)["executionSuccessful"], false);
            }
            "github" => assert!(String::from_utf8_lossy(&out.stdout).starts_with("::error file=docs,")),
            "gitlab" => {
                let entries = valid_gitlab(std::str::from_utf8(&out.stdout).unwrap());
                assert_eq!(entries.len(), 1);
                assert_eq!(entries[0]["location"]["path"], "docs");
            }
            _ => assert!(err.contains("0 file(s) checked"), "{err}"),
        }
    }

    // A usage error in a CI format: still a report, saying nothing was analysed.
    let usage = run(&dir, &["--message-format=sarif", "-D", "cuda_lint::nope", "."]);
    assert_eq!(usage.status.code(), Some(2));
    let log = valid_sarif(std::str::from_utf8(&usage.stdout).unwrap());
    assert_eq!(invocation(&log)["executionSuccessful"], false);
    assert!(
        notifications(&log)[0]["message"]["text"]
            .as_str()
            .unwrap()
            .contains("cuda_lint::nope")
    );
}

#[test]
fn complete_runs_say_so_and_parts_not_parsed_are_notes() {
    let dir = scratch("complete");
    let out = run(&dir, &["--message-format=sarif", "."]);
    assert_eq!(out.status.code(), Some(1));
    let log = valid_sarif(std::str::from_utf8(&out.stdout).unwrap());
    assert_eq!(invocation(&log)["executionSuccessful"], true);
    assert_eq!(invocation(&log)["exitCode"], 1);
    assert!(notifications(&log).is_empty());

    // A part tree-sitter cannot parse is said where it is; the rest is analysed, the run is
    // complete (cuda-samples has such parts in 114 of 747 files, mostly macros).
    std::fs::remove_file(dir.join("runtime_api.cu")).unwrap();
    std::fs::write(
        dir.join("odd.cu"),
        "int main() {\n  float* h = new float[4];\n  h[0] = 1;\n  MACRO(a b c) }}} ;\n  delete[] h;\n}\n",
    )
    .unwrap();
    let out = run(&dir, &["--message-format=sarif", "."]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let log = valid_sarif(std::str::from_utf8(&out.stdout).unwrap());
    assert_eq!(invocation(&log)["executionSuccessful"], true);
    let notes = notifications(&log);
    assert_eq!(notes.len(), 1, "{notes:#?}");
    assert_eq!(notes[0]["level"], "warning");
    assert!(
        notes[0]["message"]["text"]
            .as_str()
            .unwrap()
            .contains("could not parse all of it")
    );
    let location = &notes[0]["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "odd.cu");
    assert!(location["region"]["startLine"].as_u64().unwrap() >= 4);
    // GitHub: a notice, not a warning (GitHub shows ten of each: findings keep theirs).
    let github = run(&dir, &["--message-format=github", "."]);
    let text = String::from_utf8(github.stdout).unwrap();
    let (command, properties, _) = parse_command(text.trim_end());
    assert_eq!(command, "notice");
    assert_eq!(property(&properties, "file"), "odd.cu");
    let gitlab = run(&dir, &["--message-format=gitlab", "."]);
    let entries = valid_gitlab(std::str::from_utf8(&gitlab.stdout).unwrap());
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["severity"], "info");
}

// ---------------------------------------------------------------------------------------------
// Binary files

#[test]
fn binary_files_in_a_folder_are_skipped_with_a_note() {
    let dir = scratch("binary");
    let text = std::fs::read(dir.join("runtime_api.cu")).unwrap();
    let short = |dir: &Path| run(dir, &["--message-format=short", "."]);
    let alone = short(&dir);
    let findings = String::from_utf8_lossy(&alone.stdout).lines().count();
    assert!(findings > 0);
    // The same source behind a NUL byte: binary (an object file, an archive, an image named
    // like a header). Parsed, it would report the same findings again.
    let mut binary = b"\x7fELF\x02\x01\x01\x00".to_vec();
    binary.extend_from_slice(&text);
    std::fs::write(dir.join("blob.h"), &binary).unwrap();
    // A NUL byte past the first 8 KiB: text with something odd in it, analysed.
    let mut late = text.clone();
    late.extend(std::iter::repeat_n(b'\n', 8 * 1024));
    late.extend_from_slice(b"// \x00\n");
    std::fs::write(dir.join("late.cu"), &late).unwrap();
    let out = short(&dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("./blob.h")).count(),
        0,
        "{stdout}"
    );
    assert_eq!(stdout.lines().filter(|l| l.starts_with("./late.cu")).count(), findings);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("note: ./blob.h: skipped: a binary file (a NUL byte in its first 8 KiB)"),
        "{err}"
    );
    // In the SARIF log: a note, and the run is complete.
    let sarif = run(&dir, &["--message-format=sarif", "."]);
    let log = valid_sarif(std::str::from_utf8(&sarif.stdout).unwrap());
    assert_eq!(invocation(&log)["executionSuccessful"], true);
    // (tree-sitter takes the late NUL byte for a part it cannot parse: a warning of its own.)
    let notes: Vec<Value> = notifications(&log)
        .into_iter()
        .filter(|n| n["level"] != "warning")
        .collect();
    assert_eq!(notes.len(), 1, "{notes:#?}");
    assert_eq!(notes[0]["level"], "note");
    assert_eq!(
        notes[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "blob.h"
    );
    // A folder of binary files only: nothing analysed.
    for f in ["runtime_api.cu", "late.cu"] {
        std::fs::remove_file(dir.join(f)).unwrap();
    }
    assert_eq!(short(&dir).status.code(), Some(3));
}

/// `--fix` wraps each dropped status in the file's check macro (`unchecked_cuda_result`), leaves
/// what it cannot fix mechanically (an unchecked launch) reported, and changes nothing in a
/// file without a check macro.
#[test]
fn fix_wraps_dropped_statuses_in_the_files_check_macro() {
    let dir = scratch("fix");
    let with_macro = "#include <cuda_runtime.h>\n#include <cstdio>\n#include <cstdlib>\n\
        #define CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
        fprintf(stderr, \"%s\\n\", cudaGetErrorString(e)); exit(1); } } while (0)\n\
        __global__ void k(float* d) { d[threadIdx.x] = 1.0f; }\n\
        int main() {\n    float* d;\n    CHECK(cudaMalloc(&d, 1024));\n    cudaMemset(d, 0, 1024);\n\
        \x20   k<<<1, 256>>>(d);\n    CHECK(cudaDeviceSynchronize());\n    cudaFree(d);\n    return 0;\n}\n";
    let without = "#include <cuda_runtime.h>\nint main() {\n    float* d;\n    cudaMalloc(&d, 1024);\n    cudaFree(d);\n    return 0;\n}\n";
    std::fs::write(dir.join("fixable.cu"), with_macro).unwrap();
    std::fs::write(dir.join("plain.cu"), without).unwrap();
    let out = run(
        &dir,
        &[
            "--fix",
            "-W",
            "cuda_lint::unchecked_cuda_result",
            "fixable.cu",
            "plain.cu",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stderr.contains("fixed 2 findings"), "{stderr}");
    let fixed = std::fs::read_to_string(dir.join("fixable.cu")).unwrap();
    assert!(fixed.contains("    CHECK(cudaMemset(d, 0, 1024));\n"), "{fixed}");
    assert!(fixed.contains("    CHECK(cudaFree(d));\n"), "{fixed}");
    assert!(fixed.contains("    k<<<1, 256>>>(d);\n"), "{fixed}");
    // What is left: the launch, and the statuses of the file with no macro to wrap them in.
    assert_eq!(count(&out, "kernel launch not checked"), 1, "{stdout}");
    assert_eq!(std::fs::read_to_string(dir.join("plain.cu")).unwrap(), without);
    assert_eq!(count(&out, "is dropped"), 2, "{stdout}");
    // Run again: nothing left to fix in the fixed file.
    let again = run(&dir, &["--fix", "-W", "cuda_lint::unchecked_cuda_result", "fixable.cu"]);
    assert!(String::from_utf8_lossy(&again.stderr).contains("fixed 0 findings"));
    assert_eq!(std::fs::read_to_string(dir.join("fixable.cu")).unwrap(), fixed);
}
