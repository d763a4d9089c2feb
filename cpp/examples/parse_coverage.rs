//! How much of a tree tree-sitter-cuda parses, as `cuda-lint check` reads it (the same
//! blanking of what the grammar cannot read, and of the `#if` arms the default build leaves
//! out where that parses more): the share of non-blank lines with no token an
//! `ERROR` node holds itself (what it skipped, not the whole constructs recovered inside it)
//! and no missing node, over every C/C++/CUDA file under the given folders
//! (`cargo run --release --example parse_coverage -p cuda-lint-cpp -- TREE...`).
use std::path::Path;

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p
            .extension()
            .and_then(|x| x.to_str())
            .is_some_and(|x| cuda_lint_cpp::EXTENSIONS.contains(&x))
        {
            out.push(p);
        }
    }
}

fn main() {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&tree_sitter_cuda::LANGUAGE.into()).unwrap();
    for tree in std::env::args().skip(1) {
        let mut all = Vec::new();
        files(Path::new(&tree), &mut all);
        let (mut lines, mut lost, mut partly) = (0usize, 0usize, 0usize);
        let mut worst: Vec<(usize, String, usize)> = Vec::new();
        for f in &all {
            let Ok(bytes) = std::fs::read(f) else { continue };
            if cuda_lint_cpp::is_binary(&bytes) {
                continue;
            }
            let src = String::from_utf8_lossy(&bytes);
            let Some((_, t)) = cuda_lint_cpp::parse_configured(&mut parser, &src, &Default::default(), f.parent())
            else {
                continue;
            };
            let code = src.lines().filter(|l| !l.trim().is_empty()).count();
            lines += code;
            let skipped = cuda_lint_cpp::skipped_lines(&t, &src);
            let here = skipped.len();
            lost += here;
            partly += usize::from(here > 0);
            if let Some(first) = skipped.first() {
                worst.push((here, f.display().to_string(), first + 1));
            }
        }
        println!(
            "{tree}: {} files, {partly} with skipped parts; {lines} non-blank lines, {lost} skipped: {:.2}% parsed",
            all.len(),
            100.0 * (lines - lost) as f64 / lines.max(1) as f64
        );
        // `PARSE_COVERAGE_WORST=N`: the N files with the most skipped lines, and the first.
        let n: usize = std::env::var("PARSE_COVERAGE_WORST")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        worst.sort_by_key(|w| std::cmp::Reverse(w.0));
        for (here, f, first) in worst.into_iter().take(n) {
            println!("  {here:>6} lines skipped in {f} (from line {first})");
        }
    }
}
