//! The lints, one per file. Each file holds the lint's declaration and documentation (what
//! `--explain` prints), the condition under which it fires (a check of the events a front end
//! reports against the machine's state), and its diagnostic. A front end renders the
//! diagnostics; it decides nothing.
//!
//! A lint may read the event, the [`State`], the [`Machine`]'s operations, the front end's
//! [`Regions`] and [`Describe`] answers. It may not change any of them: the state is the
//! machine's, the descriptions are the front end's.
//!
//! Adding a lint: a file here with `declare_lint!` and `pub fn check`, one line in `lints!`
//! below, and its UI tests.

use crate::diagnostic::Finding;
use crate::events::{Describe, Event, Region};
use crate::machine::Machine;
use crate::regions::Regions;
use crate::state::{Ext, State};

/// A lint's default level.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    Allow,
    Warn,
    Deny,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Allow => "allow",
            Level::Warn => "warn",
            Level::Deny => "deny",
        }
    }
}

/// A lint group, as clippy's: a name that stands for several lints in `-W/-A/-D`, `#[allow]`,
/// `cuda-lint.toml`'s `[lints]` and `// cuda-lint: allow(..)`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Group {
    /// Code that is wrong: stale or corrupted data, a crash, a fault.
    Correctness,
    /// Code that is right today only because of what an implementation happens to do.
    Suspicious,
    /// Code that is right but slower than it needs to be.
    Perf,
    /// Findings a careful reviewer wants and others do not (allow by default).
    Pedantic,
}

impl Group {
    /// Every group but `all`, in the order `--list` shows them.
    pub const ALL: &'static [Group] = &[Group::Correctness, Group::Suspicious, Group::Perf, Group::Pedantic];

    /// `correctness` (the tool prefix `cuda_lint::` is not part of it).
    pub fn name(self) -> &'static str {
        match self {
            Group::Correctness => "correctness",
            Group::Suspicious => "suspicious",
            Group::Perf => "perf",
            Group::Pedantic => "pedantic",
        }
    }

    /// What its lints have in common.
    pub fn desc(self) -> &'static str {
        match self {
            Group::Correctness => "code that gives stale or corrupted data, crashes or faults",
            Group::Suspicious => "code that is right today only because a CUDA call happens to do more than documented",
            Group::Perf => "code that is right but slower than it needs to be",
            Group::Pedantic => "what the analysis could not verify, for careful reviewers (allow by default)",
        }
    }

    /// Whether `cuda_lint::all` holds it (as `clippy::all`, every group but `pedantic`).
    pub fn in_all(self) -> bool {
        !matches!(self, Group::Pedantic)
    }

    /// The lints of the group.
    pub fn lints(self) -> Vec<&'static LintMeta> {
        LINTS.iter().copied().filter(|l| l.group == self).collect()
    }
}

/// The name of the group of every lint but the pedantic ones: `cuda_lint::all`.
pub const ALL_GROUP: &str = "all";

/// The lints a name stands for: one lint, a group (`correctness`, `perf`, `pedantic`) or `all`.
/// `name` may carry the `cuda_lint::` prefix, dashes or capitals. `None`: no such lint or group.
pub fn lints_named(name: &str) -> Option<Vec<&'static LintMeta>> {
    let lower = name.trim().replace('-', "_").to_ascii_lowercase();
    let wanted = lower.trim_start_matches("cuda_lint::");
    if wanted == ALL_GROUP {
        return Some(LINTS.iter().copied().filter(|l| l.group.in_all()).collect());
    }
    if let Some(group) = Group::ALL.iter().find(|g| g.name() == wanted) {
        return Some(group.lints());
    }
    find(wanted).map(|l| vec![l])
}

/// Every name a lint or group may be called by, for error messages: `missing_sync, ..., all`.
pub fn lint_and_group_names() -> String {
    let mut names: Vec<&str> = LINTS.iter().map(|l| l.name).collect();
    names.extend(Group::ALL.iter().map(|g| g.name()));
    names.push(ALL_GROUP);
    names.join(", ")
}

/// A lint and its documentation.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct LintMeta {
    /// `missing_sync` (the tool prefix `cuda_lint::` is not part of it).
    pub name: &'static str,
    pub default_level: Level,
    /// The group it belongs to (besides `all`, unless the group is `pedantic`).
    pub group: Group,
    /// One line: what it catches.
    pub desc: &'static str,
    /// The lint's doc comment: What it does / Why is this bad / Example / Use instead.
    pub explanation: &'static str,
}

impl LintMeta {
    /// `cuda_lint::name`.
    pub fn full_name(&self) -> String {
        format!("cuda_lint::{}", self.name)
    }
}

/// Declares a lint's [`LintMeta`] from its doc comment.
macro_rules! declare_lint {
    ($(#[doc = $doc:literal])* pub $upper:ident = $name:literal, $level:ident, $group:ident, $desc:literal) => {
        $(#[doc = $doc])*
        pub static $upper: $crate::lints::LintMeta = $crate::lints::LintMeta {
            name: $name,
            default_level: $crate::lints::Level::$level,
            group: $crate::lints::Group::$group,
            desc: $desc,
            explanation: concat!($($doc, "\n"),*),
        };
    };
}

/// What the user's configuration tells the lints themselves (`cuda-lint.toml`'s `[perf]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Asynchronous copies whose byte count is known and below this are not reported by
    /// `pageable_async_copy` (a scalar never is). The default, 64 KiB, is where pinned memory
    /// starts to pay on an H200 (`lint/benches/pinned-threshold/`).
    pub min_copy_bytes: u64,
    /// Whether the `perf` lints report in tests, benches and examples (as clippy: yes).
    pub perf_in_tests: bool,
}

/// `Options::min_copy_bytes` when the configuration does not say.
pub const DEFAULT_MIN_COPY_BYTES: u64 = 64 * 1024;

impl Default for Options {
    fn default() -> Self {
        Options {
            min_copy_bytes: DEFAULT_MIN_COPY_BYTES,
            perf_in_tests: true,
        }
    }
}

/// What a lint's check is given besides the event.
pub struct Cx<'c, S, X> {
    pub machine: &'c Machine,
    pub state: &'c State<X>,
    pub regions: &'c dyn Regions,
    pub describe: &'c dyn Describe<S>,
    /// Where the event happened, as the diagnostic points at it.
    pub span: S,
    /// Whether it happened inside a function the linted code calls (reported at the call).
    pub in_helper: bool,
    /// The user's options for the lints.
    pub options: &'c Options,
    /// Whether the code is a test, a bench or an example (a `#[test]` function, a
    /// `#[cfg(test)]` module, an integration test, bench or example target).
    pub in_test: bool,
}

impl<S: Copy, X: Ext> Cx<'_, S, X> {
    /// Whether the `perf` lints speak here: not in tests, benches and examples when the user
    /// said so (`[perf] in-tests = false`).
    pub(crate) fn perf_applies(&self) -> bool {
        self.options.perf_in_tests || !self.in_test
    }

    fn finding(
        &self,
        lint: &'static LintMeta,
        kind: &'static str,
        some_paths: bool,
        diagnostic: crate::Diagnostic<S>,
    ) -> Finding<S> {
        Finding {
            lint,
            kind,
            span: self.span,
            some_paths,
            diagnostic,
        }
    }
}

/// The lints: each name is a module here that declares a static of the same name in capitals
/// and a `check` function. One line per lint.
macro_rules! lints {
    ($($module:ident: $upper:ident),* $(,)?) => {
        $(pub mod $module;)*

        /// Every lint, in the order the documentation lists them.
        pub static LINTS: &[&LintMeta] = &[$(&$module::$upper),*];

        /// Asks every lint about one event.
        pub fn check_all<S: Copy + PartialEq, X: Ext>(event: &Event<'_, S>, cx: &Cx<'_, S, X>, out: &mut Vec<Finding<S>>) {
            $($module::check(event, cx, out);)*
        }
    };
}

lints! {
    pageable_async_copy: PAGEABLE_ASYNC_COPY,
    host_deref_device_ptr: HOST_DEREF_DEVICE_PTR,
    missing_sync: MISSING_SYNC,
    unfenced_vmm_alias: UNFENCED_VMM_ALIAS,
    write_combined_host_read: WRITE_COMBINED_HOST_READ,
    vmm_lifecycle: VMM_LIFECYCLE,
    mismatched_free: MISMATCHED_FREE,
    managed_concurrent_access: MANAGED_CONCURRENT_ACCESS,
    memcpy_kind_mismatch: MEMCPY_KIND_MISMATCH,
    copy_out_of_bounds: COPY_OUT_OF_BOUNDS,
    unallocated_pointer: UNALLOCATED_POINTER,
    uninitialized_device_read: UNINITIALIZED_DEVICE_READ,
    unread_kernel_output: UNREAD_KERNEL_OUTPUT,
    device_memory_leak: DEVICE_MEMORY_LEAK,
    relies_on_implicit_sync: RELIES_ON_IMPLICIT_SYNC,
    unverified: UNVERIFIED,
    unchecked_cuda_result: UNCHECKED_CUDA_RESULT,
    graph_uses_freed_memory: GRAPH_USES_FREED_MEMORY,
    uncapturable_call: UNCAPTURABLE_CALL,
}

/// The lints the Rust front end does not report (their tests and examples are C++ ones):
/// `unchecked_cuda_result`, C++'s alone, since Rust's results are `#[must_use]`.
pub const NOT_IN_RUST_YET: &[&str] = &["unchecked_cuda_result"];

/// A lint by name; `name` may carry the `cuda_lint::` prefix, dashes or capitals.
pub fn find(name: &str) -> Option<&'static LintMeta> {
    let lower = name.replace('-', "_").to_ascii_lowercase();
    let wanted = lower.trim_start_matches("cuda_lint::");
    LINTS.iter().copied().find(|l| l.name == wanted)
}

/// The documentation of a lint, as `--explain` prints it.
pub fn explain(name: &str) -> Option<String> {
    let info = find(name)?;
    let mut text = format!(
        "# cuda_lint::{}\n\nDefault level: {}; group: `cuda_lint::{}`\n\n",
        info.name,
        info.default_level.as_str(),
        info.group.name()
    );
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
/// prints it (its heading one level down).
pub fn lints_markdown() -> String {
    let mut md = String::from(
        "# cuda-lint's lints\n\n\
         Generated from the doc comments of `lint/machine/src/lints/*.rs`; `cargo cuda-lint --explain NAME` prints the \
         same text for one lint. Do not edit: `CUDA_LINT_BLESS=1 cargo test -p cuda-lint-machine --test lints_md` \
         rewrites it.\n\n\
         | lint | default level | group | what it catches |\n|---|---|---|---|\n",
    );
    for info in LINTS {
        let name = info.full_name();
        let anchor = name.replace("::", "");
        md.push_str(&format!(
            "| [`{name}`](#{anchor}) | {} | {} | {} |\n",
            info.default_level.as_str(),
            info.group.name(),
            info.desc
        ));
    }
    md.push_str(
        "\nGroups work wherever a lint name does (`-W`/`-A`/`-D`, `#[allow(..)]`, `cuda-lint.toml`'s \
         `[lints]`, `// cuda-lint: allow(..)`):\n\n| group | lints | what |\n|---|---|---|\n",
    );
    for group in Group::ALL {
        let names: Vec<String> = group.lints().iter().map(|l| format!("`{}`", l.name)).collect();
        md.push_str(&format!(
            "| `cuda_lint::{}` | {} | {} |\n",
            group.name(),
            names.join(", "),
            group.desc()
        ));
    }
    md.push_str("| `cuda_lint::all` | every lint of the groups above but `pedantic` | as `clippy::all` |\n");
    for info in LINTS {
        let text = explain(info.name).expect("every lint explains itself");
        md.push('\n');
        md.push('#');
        md.push_str(&text);
    }
    md
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
pub(crate) fn origin_label<S>(region: &Region<S>, fallback: &str) -> String {
    use crate::events::Origin;
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
pub(crate) fn paths_suffix(some_paths: bool) -> &'static str {
    if some_paths { " on some paths" } else { "" }
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
                assert!(info.explanation.contains(section), "{} lacks `{section}`", info.name);
            }
            assert!(explain(info.name).is_some());
            assert!(explain(&info.full_name().to_uppercase()).is_some());
        }
        assert!(explain("no_such_lint").is_none());
    }

    #[test]
    fn groups_partition_the_lints() {
        let all = lints_named("all").unwrap();
        for info in LINTS {
            let in_groups = Group::ALL.iter().filter(|g| g.lints().contains(info)).count();
            assert_eq!(in_groups, 1, "{} is in one group", info.name);
            assert_eq!(all.contains(info), info.group != Group::Pedantic, "{}", info.name);
            assert_eq!(lints_named(&info.full_name()).unwrap(), vec![*info]);
        }
        assert_eq!(lints_named("cuda_lint::perf").unwrap(), Group::Perf.lints());
        assert!(
            lints_named("Correctness")
                .unwrap()
                .iter()
                .all(|l| l.group == Group::Correctness)
        );
        assert!(lints_named("no_such_group").is_none());
        assert!(LINTS.iter().all(|l| Group::ALL.iter().all(|g| g.name() != l.name)));
    }

    #[test]
    fn names_are_unique_snake_case() {
        let mut seen = std::collections::HashSet::new();
        for info in LINTS {
            assert!(seen.insert(info.name), "{} declared twice", info.name);
            assert!(info.name.chars().all(|c| c.is_ascii_lowercase() || c == '_'));
        }
    }
}
