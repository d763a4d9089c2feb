//! Baselines (`cuda_lint_protocol::baseline`): keys that survive edits, counted findings, the
//! file's round trip, and what a malformed file says. The CLI end to end is
//! `cpp/tests/baseline.rs`.

use std::path::{Path, PathBuf};

use cuda_lint_protocol::baseline::{Baseline, Key, VERSION, key_path, names_in, root_of};

fn key(file: &str, function: &str, lint: &str, message: &str) -> Key {
    Key::new(lint, file, Some(function), message)
}

#[test]
fn a_key_is_the_lint_file_function_and_quoted_names() {
    let k = key(
        "src/a.cu",
        "main",
        "missing_sync",
        "host read of `h` while an asynchronous copy may still write it on some paths",
    );
    assert_eq!(k.lint, "cuda_lint::missing_sync");
    assert_eq!(k.names, ["h"]);
    // The same finding reworded (a branch added elsewhere took "on some paths" away), or
    // moved to another line, keeps its key; another variable, function or file does not.
    let same = key(
        "src/a.cu",
        "main",
        "cuda_lint::missing_sync",
        "host read of `h` while an asynchronous copy may still write it",
    );
    assert_eq!(k, same);
    assert_ne!(k, key("src/a.cu", "main", "missing_sync", "host read of `g` while ..."));
    assert_ne!(
        k,
        key("src/a.cu", "other", "missing_sync", "host read of `h` while ...")
    );
    assert_ne!(k, key("src/b.cu", "main", "missing_sync", "host read of `h` while ..."));
}

#[test]
fn names_are_what_backticks_quote() {
    assert_eq!(
        names_in("asynchronous copy uses the VMM mapping `va` before `cuMemSetAccess` grants the device access"),
        ["va", "cuMemSetAccess"]
    );
    assert_eq!(names_in("host read of device memory"), Vec::<String>::new());
    assert_eq!(
        names_in("`h[i]` (pinned) is released as `new[]` memory"),
        ["h[i]", "new[]"]
    );
    // An unpaired backtick quotes nothing.
    assert_eq!(names_in("a `b` and `c"), ["b"]);
}

#[test]
fn each_finding_of_a_key_is_counted() {
    let h = key("a.cu", "main", "missing_sync", "host read of `h`");
    let g = key("a.cu", "main", "missing_sync", "host read of `g`");
    let baseline = Baseline::from_keys(&[h.clone(), h.clone()]);
    assert_eq!(baseline.len(), 2);
    assert_eq!(baseline.count(&h), 2);
    // Two findings of `h` are in the baseline; a third one is new, as is `g`.
    let applied = baseline.apply(&[h.clone(), g.clone(), h.clone(), h.clone()]);
    assert_eq!(applied.new, [false, true, false, true]);
    assert_eq!(applied.baselined, 2);
    assert_eq!(applied.unmatched, 0);
    // One of them fixed: the baseline has one left over.
    let applied = baseline.apply(std::slice::from_ref(&h));
    assert_eq!(applied.new, [false]);
    assert_eq!((applied.baselined, applied.unmatched), (1, 1));
}

#[test]
fn the_file_round_trips_sorted_one_finding_a_line() {
    let keys = [
        key(
            "src/b.cu",
            "Pipeline::run",
            "missing_sync",
            "host read of `h_out` while ...",
        ),
        key(
            "src/a.cu",
            "main",
            "pageable_async_copy",
            "asynchronous copy from `h` ...",
        ),
        Key::new("host_deref_device_ptr", "src/a.cu", None, "host read of device memory"),
        key(
            "src/b.cu",
            "Pipeline::run",
            "missing_sync",
            "host read of `h_out` while ...",
        ),
    ];
    let baseline = Baseline::from_keys(&keys);
    let text = baseline.to_json();
    assert_eq!(Baseline::parse(&text).unwrap(), baseline);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "{");
    assert_eq!(lines[1], format!("  \"version\": {VERSION},"));
    let entries: Vec<&str> = lines.iter().copied().filter(|l| l.starts_with("    {")).collect();
    assert_eq!(entries.len(), 3, "{text}");
    assert!(entries[0].contains("\"file\":\"src/a.cu\"") && entries[0].contains("\"function\":null"));
    assert!(entries[2].contains("\"names\":[\"h_out\"]") && entries[2].contains("\"count\":2"));
    // No line or column anywhere.
    assert!(!text.contains("\"line") && !text.contains("\"column"));
    // An empty baseline is a baseline too.
    let empty = Baseline::default().to_json();
    assert_eq!(Baseline::parse(&empty).unwrap(), Baseline::default());
    // `count` may be left out (1), and entries of one key add up.
    let hand = r#"{"version": 1, "findings": [
        {"file": "a.cu", "function": "main", "lint": "missing_sync", "names": ["h"]},
        {"file": "a.cu", "function": "main", "lint": "cuda_lint::missing_sync", "names": ["h"], "count": 2}
    ]}"#;
    let read = Baseline::parse(hand).unwrap();
    assert_eq!(read.count(&key("a.cu", "main", "missing_sync", "`h`")), 3);
}

#[test]
fn a_malformed_baseline_is_an_error_that_says_why() {
    let cases = [
        ("", "not a cuda-lint baseline"),
        ("{\"version\": 1,\n \"findings\": [", "not a cuda-lint baseline"),
        ("[]", "not a cuda-lint baseline"),
        ("{\"findings\": []}", "missing field `version`"),
        ("{\"version\": 1}", "missing field `findings`"),
        ("{\"version\": 2, \"findings\": []}", "version 2"),
        (
            "{\"version\": 1, \"findings\": [{\"file\": \"a.cu\", \"function\": null}]}",
            "missing field `lint`",
        ),
        (
            "{\"version\": 1, \"findings\": [{\"file\": \"a.cu\", \"function\": null, \"lint\": \"x\", \"line\": 3}]}",
            "unknown field `line`",
        ),
        (
            "{\"version\": 1, \"findings\": [{\"file\": \"a.cu\", \"function\": null, \"lint\": \"x\", \"count\": 0}]}",
            "count of 0",
        ),
        (
            "{\"version\": 1, \"findings\": [{\"file\": \"a.cu\", \"function\": null, \"lint\": \"x\", \"count\": -1}]}",
            "not a cuda-lint baseline",
        ),
    ];
    for (text, expected) in cases {
        let e = Baseline::parse(text).expect_err(text);
        assert!(e.to_string().contains(expected), "{text:?}: {e}");
    }
    // Where the JSON breaks, with the file's name.
    let dir = std::env::temp_dir().join(format!("cuda-lint-protocol-baseline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.json");
    std::fs::write(&file, "{\n  \"version\": 1,\n  \"findings\": [,]\n}\n").unwrap();
    let e = Baseline::read(&file).unwrap_err();
    assert_eq!(e.line, Some(3), "{e}");
    assert!(e.to_string().starts_with(&format!("{}:3:", file.display())), "{e}");
    let missing = Baseline::read(&dir.join("none.json")).unwrap_err();
    assert!(missing.to_string().contains("cannot read the baseline"), "{missing}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn paths_are_relative_to_the_baselines_folder() {
    let dir = std::env::temp_dir().join(format!("cuda-lint-protocol-paths-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("project/src")).unwrap();
    std::fs::create_dir_all(dir.join("project/.ci")).unwrap();
    std::fs::write(dir.join("project/src/a.cu"), "").unwrap();
    let project = dir.join("project");
    let root = root_of(Path::new("cuda-lint-baseline.json"), &project);
    assert_eq!(root, std::fs::canonicalize(&project).unwrap());
    // However the file is given and wherever cuda-lint runs, its key is the same.
    assert_eq!(key_path("src/a.cu", &project, &root), "src/a.cu");
    assert_eq!(key_path("./src/../src/a.cu", &project, &root), "src/a.cu");
    assert_eq!(key_path("a.cu", &project.join("src"), &root), "src/a.cu");
    assert_eq!(key_path("../src/a.cu", &project.join(".ci"), &root), "src/a.cu");
    let absolute = project.join("src/a.cu");
    assert_eq!(key_path(absolute.to_str().unwrap(), Path::new("/"), &root), "src/a.cu");
    // A baseline kept in a folder of the project: the files are beside it.
    let in_ci = root_of(Path::new(".ci/baseline.json"), &project);
    assert_eq!(key_path("src/a.cu", &project, &in_ci), "../src/a.cu");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `cargo cuda-lint` finds the driver's function table beside a crate's metadata, and a
/// finding's function is the innermost one that holds it (a function inside a function).
#[test]
fn function_tables() {
    use cuda_lint_protocol::baseline::{FunctionSpan, enclosing_function, functions_file_of, functions_to_jsonl};
    assert_eq!(
        functions_file_of(Path::new("target/debug/deps/libpipe-0123abcd.rmeta")),
        Some(PathBuf::from(
            "target/debug/deps/pipe-0123abcd.cuda-lint-functions.jsonl"
        ))
    );
    assert_eq!(functions_file_of(Path::new("target/debug/deps/pipe-0123abcd.d")), None);
    let span = |file: &str, start, end, function: &str| FunctionSpan {
        file: file.into(),
        start,
        end,
        function: function.into(),
    };
    let table = vec![
        span("src/main.rs", 10, 200, "Pipeline::run"),
        span("src/main.rs", 50, 90, "Pipeline::run::helper"),
        span("src/other.rs", 0, 1000, "other"),
    ];
    assert_eq!(enclosing_function(&table, "src/main.rs", 10), Some("Pipeline::run"));
    assert_eq!(
        enclosing_function(&table, "src/main.rs", 60),
        Some("Pipeline::run::helper")
    );
    assert_eq!(enclosing_function(&table, "src/main.rs", 200), None);
    assert_eq!(enclosing_function(&table, "src/lib.rs", 60), None);
    let dir = std::env::temp_dir().join(format!("cuda-lint-fn-table-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("t.jsonl");
    std::fs::write(&file, functions_to_jsonl(&table) + "not json\n").unwrap();
    assert_eq!(cuda_lint_protocol::baseline::read_functions(&file), table);
    let _ = std::fs::remove_dir_all(&dir);
}
