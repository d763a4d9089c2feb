//! cuda-lint's lints as rustc sees them: one rustc [`Lint`] for each lint the machine declares
//! (`cuda_lint_machine::LINTS`: names, levels and documentation live there, with each lint's
//! decision), and their diagnostics rendered as rustc's. Nothing here decides what to report.

use std::sync::OnceLock;

use cuda_lint_machine::{Child, LintMeta};
use rustc_errors::{Applicability, DiagDecorator};
use rustc_lint::{LateContext, Level, Lint};
use rustc_middle::lint::{LintLevelSource, emit_lint_base};
use rustc_session::Session;
use rustc_span::{BytePos, Span, Symbol};

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

/// The levels `cuda-lint.toml` sets, where the file writes them. The driver passes them to
/// rustc as command-line flags, before the flags after `--`; rustc would then say a level the
/// file sets was "requested on the command line", and the diagnostic says where it is written
/// instead.
#[derive(Default)]
pub struct ConfigLevels {
    /// Per lint of `cuda_lint_machine::LINTS`: the entry that sets its level (its key as the
    /// flag names it, `cuda_lint::perf`, and its span in the file), when no later flag does.
    by_lint: Vec<Option<(String, Span)>>,
}

impl ConfigLevels {
    /// The entries of the file at `path` (`entries`, its `[lints]`) that decide a lint's level,
    /// `flags` (the flags after `--`) coming after them and winning. The file is added to the
    /// session's source map (its spans must resolve when rustc replays cached diagnostics, so
    /// this runs before the analysis, in every session that lints).
    pub fn new(
        sess: &Session,
        path: &std::path::Path,
        entries: &[cuda_lint_protocol::config::LevelEntry],
        flags: &[String],
    ) -> ConfigLevels {
        if entries.is_empty() {
            return ConfigLevels::default();
        }
        // Named as rustc names the crate's files: relative to its working directory.
        let here = std::env::current_dir().unwrap_or_default();
        let shown = path.strip_prefix(&here).unwrap_or(path);
        let Ok(file) = sess.source_map().load_file(shown) else {
            return ConfigLevels::default();
        };
        // Which lints each flag after `--` sets: those lints' levels are not the file's.
        let mut by_flags = std::collections::HashSet::new();
        let mut args = flags.iter();
        while let Some(flag) = args.next() {
            let Some(attached) = ["-A", "-W", "-D", "-F", "--force-warn"]
                .iter()
                .find_map(|f| flag.strip_prefix(f))
            else {
                continue;
            };
            let attached = attached.trim_start_matches('=');
            let name = if attached.is_empty() {
                args.next().map(String::as_str).unwrap_or_default()
            } else {
                attached
            };
            if let Some(name) = name.trim().strip_prefix("cuda_lint::") {
                by_flags.extend(
                    cuda_lint_machine::lints::lints_named(name)
                        .unwrap_or_default()
                        .iter()
                        .map(|l| l.name),
                );
            }
        }
        let by_lint = cuda_lint_machine::LINTS
            .iter()
            .map(|meta| {
                if by_flags.contains(meta.name) {
                    return None;
                }
                // The last entry that names the lint or one of its groups, as rustc applies them.
                let entry = entries.iter().rev().find(|e| {
                    cuda_lint_machine::lints::lints_named(&e.name)
                        .is_some_and(|ls| ls.iter().any(|l| l.name == meta.name))
                })?;
                let (lo, hi) = (entry.span.start.min(entry.span.end), entry.span.end);
                let span = Span::with_root_ctxt(
                    file.start_pos + BytePos(u32::try_from(lo).ok()?),
                    file.start_pos + BytePos(u32::try_from(hi).ok()?),
                );
                Some((format!("cuda_lint::{}", entry.name), span))
            })
            .collect();
        ConfigLevels { by_lint }
    }

    /// The entry that set `meta`'s level, when rustc has it from the command line.
    fn entry(&self, meta: &'static LintMeta) -> Option<&(String, Span)> {
        let i = cuda_lint_machine::LINTS.iter().position(|m| std::ptr::eq(*m, meta))?;
        self.by_lint.get(i)?.as_ref()
    }
}

/// Renders a finding as rustc's diagnostic, at its lint level.
pub fn report(cx: &LateContext<'_>, finding: &Finding, levels: &ConfigLevels) {
    let d = &finding.inner.diagnostic;
    let lint = rustc_lint(finding.inner.lint);
    let mut level = cx.tcx.lint_level_spec_at_node(lint, finding.lint_root);
    // A level `cuda-lint.toml` sets is noted at its line there, as an attribute's level is at
    // the attribute, not as "requested on the command line".
    if let LintLevelSource::CommandLine(flag, _) = level.src
        && let Some((name, span)) = levels.entry(finding.inner.lint)
        && flag.as_str() == name
    {
        level.src = LintLevelSource::Node {
            name: Symbol::intern(name),
            span: *span,
            reason: None,
        };
    }
    let message = d.message.clone();
    emit_lint_base(
        cx.tcx.sess,
        lint,
        level,
        Some(finding.span().into()),
        DiagDecorator(|diag| {
            diag.primary_message(message);
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
                    // A C++ fix (no Rust lint gives it).
                    Child::Wrap { help, .. } => {
                        diag.help(help.clone());
                    }
                    Child::Via { what } => {
                        if let Some(via) = &finding.via {
                            diag.span_note(via.inner, format!("{what} inside {} here", via.callee));
                        }
                    }
                    Child::WaitBefore(fix) => match crate::wait_fix::statement_before(cx, finding, fix) {
                        Some((at, text)) => {
                            diag.span_suggestion_verbose(
                                at,
                                fix.message.clone(),
                                text,
                                Applicability::MachineApplicable,
                            );
                        }
                        None => {
                            diag.help(fix.help.clone());
                        }
                    },
                }
            }
        }),
    );
}
