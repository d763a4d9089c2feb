//! LINTS.md, at the repository root, is the lints' documentation generated from their doc
//! comments (`cuda_lint_machine::lints::lints_markdown`): this test fails when it is stale.
//! `CUDA_LINT_BLESS=1 cargo test -p cuda-lint-machine --test lints_md` rewrites it.

use std::path::Path;

#[test]
fn lints_md_is_generated_from_the_lint_docs() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../LINTS.md");
    let want = cuda_lint_machine::lints::lints_markdown();
    if std::env::var_os("CUDA_LINT_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "LINTS.md is stale: run `CUDA_LINT_BLESS=1 cargo test -p cuda-lint-machine --test lints_md` and commit it"
    );
    // Each lint's section is what `--explain` prints.
    for info in cuda_lint_machine::LINTS {
        let text = cuda_lint_machine::lints::explain(info.name).unwrap();
        assert!(
            have.contains(&format!("#{text}")),
            "{} differs from --explain",
            info.name
        );
    }
}
