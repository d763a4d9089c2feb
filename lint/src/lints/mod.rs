//! The lints, one per file. Each file declares its lint with its documentation (the text
//! `cargo cuda-lint --explain` prints) and turns the analysis' findings into diagnostics.

pub mod host_deref_device_ptr;
pub mod missing_sync;
pub mod pageable_async_copy;
pub mod unfenced_vmm_alias;

use rustc_lint::{LateContext, Level, Lint};

use crate::analysis::{Finding, FindingKind};

/// A lint and its documentation.
pub struct LintInfo {
    pub lint: &'static Lint,
    /// The lint's doc comment: What it does / Why is this bad / Example / Use instead.
    pub explanation: &'static str,
}

impl LintInfo {
    /// `cuda_lint::name`.
    pub fn name(&self) -> String {
        self.lint.name_lower()
    }

    /// The name without the tool prefix.
    pub fn short_name(&self) -> String {
        self.name().trim_start_matches("cuda_lint::").to_string()
    }

    pub fn default_level(&self) -> &'static str {
        match self.lint.default_level {
            Level::Deny | Level::Forbid => "deny",
            Level::Warn | Level::ForceWarn => "warn",
            _ => "allow",
        }
    }
}

/// Declares a tool lint `cuda_lint::NAME` and its [`LintInfo`] (`INFO`) from one doc comment.
macro_rules! declare_cuda_lint {
    ($(#[doc = $doc:literal])* pub $name:ident, $level:ident, $desc:literal) => {
        rustc_session::declare_tool_lint! {
            $(#[doc = $doc])*
            pub cuda_lint::$name, $level, $desc, report_in_external_macro: true
        }
        pub static INFO: $crate::lints::LintInfo =
            $crate::lints::LintInfo { lint: $name, explanation: concat!($($doc, "\n"),*) };
    };
}
pub(crate) use declare_cuda_lint;

/// Every lint, in the order the documentation lists them.
pub static LINTS: &[&LintInfo] = &[
    &pageable_async_copy::INFO,
    &host_deref_device_ptr::INFO,
    &missing_sync::INFO,
    &unfenced_vmm_alias::INFO,
];

/// The documentation of a lint, as `--explain` prints it; `name` may carry the `cuda_lint::`
/// prefix, dashes or capitals.
pub fn explain(name: &str) -> Option<String> {
    let wanted = name
        .trim_start_matches("cuda_lint::")
        .replace('-', "_")
        .to_ascii_lowercase();
    let info = LINTS.iter().find(|l| l.short_name() == wanted)?;
    let mut text = format!("# cuda_lint::{wanted}\n\nDefault level: {}\n\n", info.default_level());
    for line in info.explanation.lines() {
        let line = line.strip_prefix(' ').unwrap_or(line);
        // Doc tests are marked `rust,ignore` in source; readers want plain Rust.
        let line = if line.starts_with("```rust") { "```rust" } else { line };
        text.push_str(line);
        text.push('\n');
    }
    Some(text)
}

/// LINTS.md: a table of the lints, then each lint's documentation exactly as `--explain`
/// prints it (its heading one level down). `lint/tests/lints_md.rs` keeps the file current.
pub fn lints_markdown() -> String {
    let mut md = String::from(
        "# cuda-lint's lints\n\n\
         Generated from the doc comments of `lint/src/lints/*.rs`; `cargo cuda-lint --explain NAME` prints the \
         same text for one lint. Do not edit: `CUDA_LINT_BLESS=1 cargo test -p cuda-lint --test lints_md` \
         rewrites it.\n\n\
         | lint | default level | what it catches |\n|---|---|---|\n",
    );
    for info in LINTS {
        let name = info.name();
        let anchor = name.replace("::", "");
        md.push_str(&format!(
            "| [`{name}`](#{anchor}) | {} | {} |\n",
            info.default_level(),
            info.lint.desc
        ));
    }
    for info in LINTS {
        let text = explain(&info.name()).expect("every lint explains itself");
        md.push('\n');
        md.push('#');
        md.push_str(&text);
    }
    md
}

/// Hands a finding to the lint it belongs to.
pub fn report(cx: &LateContext<'_>, finding: &Finding) {
    match &finding.kind {
        FindingKind::PageableAsyncCopy { .. } => pageable_async_copy::report(cx, finding),
        FindingKind::HostDerefDevicePtr { .. } => host_deref_device_ptr::report(cx, finding),
        FindingKind::MissingSync { .. } => missing_sync::report(cx, finding),
        FindingKind::AliasInOneKernel { .. } | FindingKind::AliasAcrossStreams { .. } => {
            unfenced_vmm_alias::report(cx, finding);
        }
    }
}

/// "`name`" or a fallback description.
pub(crate) fn named(name: &Option<String>, fallback: &str) -> String {
    match name {
        Some(n) => format!("`{n}`"),
        None => fallback.to_string(),
    }
}

/// The label at a region's origin: where it was allocated, mapped or returned, or the
/// variable or parameter that holds it.
pub(crate) fn origin_label(region: &crate::analysis::Region, fallback: &str) -> String {
    use crate::analysis::Origin;
    let name = named(&region.name, fallback);
    let kind = region.kind.describe();
    let ty = region.ty.as_deref().map(|t| format!(" (`{t}`)")).unwrap_or_default();
    match region.origin_kind {
        Origin::Allocated => format!("{name} is allocated here as {kind}"),
        Origin::Mapped => format!("{name} maps the physical allocation here"),
        Origin::Returned => format!("{name} comes from here: {kind}{ty}"),
        Origin::Declared => format!("{name} is {kind}{ty}"),
    }
}

/// The suffix for findings that hold on some paths only.
pub(crate) fn paths_suffix(finding: &Finding) -> &'static str {
    if finding.some_paths { " on some paths" } else { "" }
}

/// Adds the note that points into a helper, when the finding was reached through one.
pub(crate) fn note_via(diag: &mut rustc_errors::Diag<'_, ()>, finding: &Finding, what: &str) {
    if let Some(via) = &finding.via {
        diag.span_note(via.inner, format!("{what} inside {} here", via.callee));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lint_is_documented_in_clippy_shape() {
        for info in LINTS {
            for section in [
                "### What it does",
                "### Why is this bad?",
                "### Example",
                "Use instead:",
            ] {
                assert!(info.explanation.contains(section), "{} lacks `{section}`", info.name());
            }
            assert!(explain(&info.name()).is_some());
            assert!(explain(&info.short_name().to_uppercase()).is_some());
        }
        assert!(explain("no_such_lint").is_none());
    }

    #[test]
    fn correctness_lints_deny_and_the_performance_lint_warns() {
        let levels: Vec<(String, &str)> = LINTS.iter().map(|l| (l.short_name(), l.default_level())).collect();
        assert_eq!(
            levels,
            [
                ("pageable_async_copy".to_string(), "warn"),
                ("host_deref_device_ptr".to_string(), "deny"),
                ("missing_sync".to_string(), "deny"),
                ("unfenced_vmm_alias".to_string(), "deny"),
            ]
        );
    }
}
