//! cuda-lint's lints as rustc sees them: one rustc [`Lint`] for each lint the machine declares
//! (`cuda_lint_machine::LINTS`: names, levels and documentation live there, with each lint's
//! decision), and their diagnostics rendered as rustc's. Nothing here decides what to report.

use std::sync::OnceLock;

use clippy_utils::diagnostics::span_lint_hir_and_then;
use cuda_lint_machine::{Child, LintMeta};
use rustc_errors::Applicability;
use rustc_lint::{LateContext, Level, Lint};

use crate::mir::Finding;

/// rustc's lints, in the order of `cuda_lint_machine::LINTS` (made once, for the process).
pub fn rustc_lints() -> &'static [&'static Lint] {
    static LINTS: OnceLock<Vec<&'static Lint>> = OnceLock::new();
    LINTS.get_or_init(|| {
        cuda_lint_machine::LINTS
            .iter()
            .map(|meta| -> &'static Lint {
                Box::leak(Box::new(Lint {
                    // As `declare_tool_lint!` spells it: `cuda_lint::MISSING_SYNC`.
                    name: Box::leak(format!("cuda_lint::{}", meta.name.to_ascii_uppercase()).into_boxed_str()),
                    default_level: match meta.default_level {
                        cuda_lint_machine::Level::Allow => Level::Allow,
                        cuda_lint_machine::Level::Warn => Level::Warn,
                        cuda_lint_machine::Level::Deny => Level::Deny,
                    },
                    desc: meta.desc,
                    edition_lint_opts: None,
                    report_in_external_macro: true,
                    is_externally_loaded: true,
                    crate_level_only: false,
                    ..Lint::default_fields_for_macro()
                }))
            })
            .collect()
    })
}

/// The groups as rustc registers them: `cuda_lint::all` and one per [`cuda_lint_machine::Group`].
pub fn rustc_groups() -> Vec<(&'static str, Vec<rustc_lint::LintId>)> {
    let mut names: Vec<&'static str> = vec!["cuda_lint::all"];
    names.extend(
        cuda_lint_machine::Group::ALL
            .iter()
            .map(|g| -> &'static str { Box::leak(format!("cuda_lint::{}", g.name()).into_boxed_str()) }),
    );
    names
        .into_iter()
        .map(|name| {
            let members = cuda_lint_machine::lints::lints_named(name)
                .unwrap_or_default()
                .into_iter()
                .map(|meta| rustc_lint::LintId::of(rustc_lint(meta)))
                .collect();
            (name, members)
        })
        .collect()
}

/// The rustc lint of a machine lint.
fn rustc_lint(meta: &'static LintMeta) -> &'static Lint {
    let i = cuda_lint_machine::LINTS
        .iter()
        .position(|m| std::ptr::eq(*m, meta))
        .expect("every finding's lint is in LINTS");
    rustc_lints()[i]
}

/// Renders a finding as rustc's diagnostic, at its lint level.
pub fn report(cx: &LateContext<'_>, finding: &Finding) {
    let d = &finding.inner.diagnostic;
    let lint = rustc_lint(finding.inner.lint);
    span_lint_hir_and_then(cx, lint, finding.lint_root, finding.span(), d.message.clone(), |diag| {
        for (span, text) in &d.labels {
            diag.span_label(*span, text.clone());
        }
        for child in &d.children {
            match child {
                Child::Note(text) => {
                    diag.note(text.clone());
                }
                Child::Help(text) => {
                    diag.help(text.clone());
                }
                Child::Via { what } => {
                    if let Some(via) = &finding.via {
                        diag.span_note(via.inner, format!("{what} inside {} here", via.callee));
                    }
                }
                Child::WaitBefore(fix) => match crate::wait_fix::statement_before(cx, finding, fix) {
                    Some((at, text)) => {
                        diag.span_suggestion_verbose(at, fix.message.clone(), text, Applicability::MachineApplicable);
                    }
                    None => {
                        diag.help(fix.help.clone());
                    }
                },
            }
        }
    });
}
