//! Every lint has at least 15 UI cases that must fire (`fn fires_*`, each with a `//~`
//! annotation) and 15 near-misses that must not (`fn ok_*`, with none), and every API family
//! other than this project's runtime (`cudarc.rs`, `driver_ffi.rs`, `runtime_api.rs` in each
//! lint's directory) at least 3 of each: see ui-tests/README.md.
use std::path::Path;

const MIN_CASES: usize = 15;
/// Cases of each kind per lint for each API family's file.
const MIN_FAMILY_CASES: usize = 3;
/// The file of each API family's cases in every lint's directory.
const FAMILY_FILES: &[&str] = &["cudarc.rs", "driver_ffi.rs", "runtime_api.rs"];

/// (firing cases, near-misses) of one lint's directory; panics on a case that breaks the rules.
fn count(dir: &Path) -> (usize, usize) {
    let (mut fires, mut ok) = (0, 0);
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let (f, o) = count_file(&path);
        fires += f;
        ok += o;
    }
    (fires, ok)
}

/// (firing cases, near-misses) of one file.
fn count_file(path: &Path) -> (usize, usize) {
    let (mut fires, mut ok) = (0, 0);
    {
        let text = std::fs::read_to_string(path).unwrap();
        // Split the file into top-level functions (and the methods of impl blocks).
        let mut current: Option<(String, bool)> = None;
        let mut current_indent = 0;
        let mut finish = |case: Option<(String, bool)>| {
            if let Some((name, annotated)) = case {
                if name.starts_with("fires_") {
                    assert!(
                        annotated,
                        "{}: `{name}` must fire but has no `//~` annotation",
                        path.display()
                    );
                    fires += 1;
                } else if name.starts_with("ok_") {
                    assert!(
                        !annotated,
                        "{}: near-miss `{name}` carries an annotation",
                        path.display()
                    );
                    ok += 1;
                }
            }
        };
        for line in text.lines() {
            let trimmed = line.trim_start();
            let indent = line.len() - trimmed.len();
            // Another item at the top level (a struct, an impl block) ends the case before it:
            // the methods of an impl that follows are cases of their own.
            if indent == 0
                && [
                    "struct ", "impl ", "impl<", "enum ", "trait ", "const ", "static ", "mod ", "use ", "type ",
                ]
                .iter()
                .any(|item| {
                    trimmed.starts_with(item) || trimmed.strip_prefix("pub ").is_some_and(|t| t.starts_with(item))
                })
            {
                finish(current.take());
            }
            // A function nested in a case (a local helper) belongs to that case.
            let nested = current.is_some() && indent > current_indent;
            if let Some(rest) = trimmed
                .strip_prefix("fn ")
                .or_else(|| trimmed.strip_prefix("async fn "))
                && !nested
            {
                let name = rest
                    .split(|c: char| !c.is_alphanumeric() && c != '_')
                    .next()
                    .unwrap_or_default();
                finish(current.take());
                current = Some((name.to_string(), false));
                current_indent = indent;
            } else if trimmed.contains("//~")
                && let Some((_, annotated)) = current.as_mut()
            {
                *annotated = true;
            }
        }
        finish(current.take());
    }
    (fires, ok)
}

#[test]
fn every_lint_has_enough_firing_cases_and_near_misses() {
    let ui = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui-tests/ui");
    for info in cuda_lint_machine::LINTS {
        // Reported by the C++ front end only so far: its cases are in `cpp/tests/ui`.
        if cuda_lint_machine::lints::NOT_IN_RUST_YET.contains(&info.name) {
            println!("{}: C++ only so far (cpp/tests/ui)", info.full_name());
            continue;
        }
        let (fires, ok) = count(&ui.join(info.name));
        assert!(
            fires >= MIN_CASES,
            "{}: {fires} firing cases, want {MIN_CASES}",
            info.full_name()
        );
        assert!(
            ok >= MIN_CASES,
            "{}: {ok} near-misses, want {MIN_CASES}",
            info.full_name()
        );
        println!("{}: {fires} firing cases, {ok} near-misses", info.full_name());
        for family in FAMILY_FILES {
            let path = ui.join(info.name).join(family);
            assert!(path.exists(), "{} has no {family}", info.full_name());
            let (fires, ok) = count_file(&path);
            assert!(
                fires >= MIN_FAMILY_CASES && ok >= MIN_FAMILY_CASES,
                "{}/{family}: {fires} firing cases and {ok} near-misses, want {MIN_FAMILY_CASES} of each",
                info.full_name()
            );
            println!("  {family}: {fires} firing cases, {ok} near-misses");
        }
    }
}
