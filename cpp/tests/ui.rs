//! The C++ front end over `tests/ui/*.cu` and the seeds' own samples (`tests/seeds/*.cu`):
//! every expected finding is reported on its line with its lint, and nothing else is.
//! In `tests/ui`, a line that must be reported ends with `//~ lint_name`; a seed's expectations
//! are in `NAME.cu.expected`-style files next to it (`LINE lint  # why`), since the seeds are
//! kept exactly as printed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

type Expected = BTreeSet<(usize, String)>;

/// The default levels, and a pedantic lint turned on in the files named after it
/// (`tests/ui/unread_kernel_output.cu`), as `-W` would.
fn settings(path: &Path) -> cuda_lint_cpp::Settings {
    let mut settings = cuda_lint_cpp::Settings::default();
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = stem.trim_end_matches("_bug").trim_end_matches("_fixed");
    if cuda_lint_machine::lints::find(stem).is_some_and(|l| l.default_level == cuda_lint_machine::Level::Allow) {
        settings.levels = cuda_lint_cpp::Levels::from_flags(&["-W".to_string(), format!("cuda_lint::{stem}")]);
    }
    settings
}

fn found(path: &Path) -> Expected {
    let report = cuda_lint_cpp::check_files_with(&[path.to_path_buf()], &settings(path));
    assert!(!report.not_analysed(), "{:?}", report.problems);
    report
        .findings
        .iter()
        .map(|r| {
            let (_, line, _) = cuda_lint_cpp::position(&report, r.finding.span);
            (line, r.finding.lint.name.to_string())
        })
        .collect()
}

fn annotated(text: &str) -> Expected {
    let mut out = Expected::new();
    for (i, line) in text.lines().enumerate() {
        let Some(rest) = line.split("//~").nth(1) else { continue };
        let lints: Vec<&str> = rest.split(',').map(str::trim).collect();
        // An annotation names lints only (prose that mentions the marker is not one).
        if lints
            .iter()
            .all(|l| !l.is_empty() && l.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
        {
            for lint in lints {
                out.insert((i + 1, lint.to_string()));
            }
        }
    }
    out
}

fn expectations_file(text: &str) -> Expected {
    let mut out = Expected::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        let mut parts = line.split_whitespace();
        if let (Some(n), Some(lint)) = (parts.next(), parts.next())
            && let Ok(n) = n.parse()
        {
            out.insert((n, lint.to_string()));
        }
    }
    out
}

fn files(dir: &str, ext: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == ext));
    v.sort();
    v
}

#[test]
fn ui_files_report_exactly_their_annotations() {
    let files = files("tests/ui", "cu");
    assert!(!files.is_empty());
    let mut failures = Vec::new();
    for f in files {
        let want = annotated(&std::fs::read_to_string(&f).unwrap());
        let got = found(&f);
        if want != got {
            failures.push(format!(
                "{}:\n  missing: {:?}\n  unexpected: {:?}",
                f.display(),
                want.difference(&got).collect::<Vec<_>>(),
                got.difference(&want).collect::<Vec<_>>()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Each `tests/ui/NAME.cu` renders exactly as `tests/ui/NAME.stderr` (rustc's style: spans,
/// labels, notes, help), like clippy's UI tests. `CUDA_LINT_BLESS=1` rewrites the `.stderr` files.
#[test]
fn ui_files_render_as_their_stderr_files() {
    let bless = std::env::var_os("CUDA_LINT_BLESS").is_some();
    let mut failures = Vec::new();
    for f in files("tests/ui", "cu") {
        // Relative to the package, as a user's `cuda-lint check tests/ui` prints them.
        let rel = f.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(&f);
        let rel = rel.to_path_buf();
        let report = cuda_lint_cpp::check_files_with(std::slice::from_ref(&rel), &settings(&rel));
        let got = cuda_lint_cpp::render_human(&report, false);
        let stderr = f.with_extension("stderr");
        if bless {
            if got.is_empty() {
                let _ = std::fs::remove_file(&stderr);
            } else {
                std::fs::write(&stderr, &got).unwrap();
            }
            continue;
        }
        let want = std::fs::read_to_string(&stderr).unwrap_or_default();
        if want != got {
            failures.push(format!(
                "{} differs from {} (CUDA_LINT_BLESS=1 rewrites it):\n{}",
                rel.display(),
                stderr.display(),
                first_difference(&want, &got)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn first_difference(want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    let i = (0..w.len().max(g.len())).find(|&i| w.get(i) != g.get(i)).unwrap_or(0);
    format!(
        "  line {}:\n  expected: {}\n  got:      {}",
        i + 1,
        w.get(i).unwrap_or(&"<end>"),
        g.get(i).unwrap_or(&"<end>")
    )
}

#[test]
fn seeds_report_exactly_their_expected_misuses() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for f in files("tests/seeds", "cu") {
        let exp = f.with_extension("cu.expected");
        let exp = if exp.exists() {
            exp
        } else {
            f.with_extension("expected")
        };
        let Ok(text) = std::fs::read_to_string(&exp) else {
            failures.push(format!("{}: no expectations file", f.display()));
            continue;
        };
        checked += 1;
        let (want, got) = (expectations_file(&text), found(&f));
        if want != got {
            failures.push(format!(
                "{}:\n  missing: {:?}\n  unexpected: {:?}",
                f.display(),
                want.difference(&got).collect::<Vec<_>>(),
                got.difference(&want).collect::<Vec<_>>()
            ));
        }
    }
    println!("{checked} seed samples checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn anything_parses_without_a_panic() {
    for src in [
        "",
        "}}}{{{",
        "int main( { cudaMemcpyAsync(",
        "\u{0}\u{1}",
        "#if\n#endif\nvoid f(){ *(*(*p)); }",
    ] {
        let _ = cuda_lint_cpp::check_source(src, 0);
    }
    let deep = format!("void f() {{ {} }}", "(".repeat(5000));
    let _ = cuda_lint_cpp::check_source(&deep, 0);
    // Nesting that parses: declarators, expressions, blocks, thousands deep.
    let declarator = format!("void f() {{ float {}p{}; }}", "(*".repeat(3000), ")".repeat(3000));
    let _ = cuda_lint_cpp::check_source(&declarator, 0);
    let expr = format!(
        "void f(float* p) {{ float x = {}p[0]{}; }}",
        "(".repeat(3000),
        ")".repeat(3000)
    );
    let blocks = format!("void f() {{ {} *p = 0; {} }}", "{ ".repeat(3000), "} ".repeat(3000));
    // What lies deeper than the analysis follows is said, not skipped silently.
    for deep in [expr, blocks] {
        let (_, problem) = cuda_lint_cpp::check_source(&deep, 0);
        let problem = problem.unwrap_or_default();
        assert!(
            problem.contains("nested more than 200 deep (from line 1) is not checked"),
            "{problem}"
        );
    }
}

/// `examples/cpp/`: each `<lint>_bug.cu` (run on a GPU by `examples/cpp/run.sh`) is reported
/// for its own lint and nothing else; each `<lint>_fixed.cu` for nothing.
#[test]
fn cpp_examples_report_their_own_lint_only() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/cpp");
    let mut failures = Vec::new();
    let mut pairs = 0;
    for f in files("../examples/cpp", "cu") {
        let stem = f.file_stem().unwrap().to_string_lossy().into_owned();
        let got = found(&f);
        let lints: BTreeSet<&str> = got.iter().map(|(_, l)| l.as_str()).collect();
        if let Some(lint) = stem.strip_suffix("_bug") {
            pairs += 1;
            if lints != BTreeSet::from([lint]) {
                failures.push(format!("{stem}: expected only `{lint}`, got {got:?}"));
            }
            if !dir.join(format!("{lint}_fixed.cu")).exists() {
                failures.push(format!("{stem}: no {lint}_fixed.cu"));
            }
        } else if !got.is_empty() {
            failures.push(format!("{stem}: expected nothing, got {got:?}"));
        }
    }
    // One pair per lint (but `unverified`, which reports what could not be checked: no misuse
    // to show on a GPU).
    let shown = cuda_lint_machine::LINTS
        .iter()
        .filter(|l| l.name != "unverified")
        .count();
    assert_eq!(pairs, shown, "{failures:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `examples/cpp/libraries/`: misuse through the CUDA libraries (run on a GPU by hand, figures in
/// `runtime/gpu-results/`), whose findings are `missing_sync`'s: each `_bug.cu` is reported for
/// it alone, each `_fixed.cu` for nothing.
#[test]
fn library_examples_report_missing_sync_only() {
    let mut seen = 0;
    for f in files("../examples/cpp/libraries", "cu") {
        let stem = f.file_stem().unwrap().to_string_lossy().into_owned();
        let lints: BTreeSet<String> = found(&f).into_iter().map(|(_, l)| l).collect();
        if stem.ends_with("_bug") {
            seen += 1;
            assert_eq!(lints, BTreeSet::from(["missing_sync".to_string()]), "{stem}");
        } else {
            assert!(lints.is_empty(), "{stem}: {lints:?}");
        }
    }
    assert!(seen > 0, "no library example");
}

/// Calls of the file's functions run inline, each calling the next a hundred times: millions
/// of statements. The analysis stops running calls inline past its budget, says so, and ends.
#[test]
fn a_function_past_the_work_budget_is_cut_short_and_said_so() {
    let leaf = format!("int x = 0;\n{}", "x++;\n".repeat(100));
    let mid = "leaf(p);\n".repeat(100);
    let top = "mid(p);\n".repeat(100);
    let src = format!(
        "void leaf(float* p) {{ {leaf} }}\nvoid mid(float* p) {{ {mid} }}\nvoid top(float* p) {{ {top} }}\n\
         int main() {{ float* d = (float*)malloc(64);\ntop(d);\ntop(d);\nreturn 0; }}\n"
    );
    let start = std::time::Instant::now();
    let (_, problem) = cuda_lint_cpp::check_source(&src, 0);
    let problem = problem.unwrap_or_default();
    assert!(problem.contains("are not followed into"), "{problem}");
    // Not a timing test: a guard against a hang (the budget's whole point).
    assert!(start.elapsed() < std::time::Duration::from_secs(120));
}
