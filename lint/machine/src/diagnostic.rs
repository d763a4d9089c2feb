//! Diagnostics as lints write them, for any front end to render (rustc's `Diag`, or
//! codespan-reporting for C++): a message at a site, labels at other sites, then notes, help and
//! fixes in the order given.

use crate::lints::LintMeta;

/// One finding of a lint.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Finding<S> {
    pub lint: &'static LintMeta,
    /// Which of the lint's findings it is (`alias_in_one_kernel`), for front ends that keep one
    /// report per kind and site.
    pub kind: &'static str,
    /// Where it points.
    pub span: S,
    /// True when it holds only on some paths through the code.
    pub some_paths: bool,
    pub diagnostic: Diagnostic<S>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Diagnostic<S> {
    pub message: String,
    /// Secondary sites and what each shows, rendered under the primary one.
    pub labels: Vec<(S, String)>,
    pub children: Vec<Child>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Child {
    Note(String),
    Help(String),
    /// Where the front end says "`what` inside `helper` here", when the event happened inside a
    /// function the linted code calls.
    Via {
        what: &'static str,
    },
    /// A statement to insert before the one that made the access, when a front end can show it
    /// compiles; otherwise `help` is given.
    WaitBefore(WaitFix),
    /// The finding's primary site, a call, wrapped in the function-like macro `with`
    /// (`CUDA_CHECK(cudaMemcpy(..))`): a fix a front end may apply (`cuda-lint check --fix`);
    /// `help` says it in words.
    Wrap {
        with: String,
        help: String,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WaitFix {
    /// The statement (`{stream}.synchronize()?;`) with the stream's name put in.
    pub statement: String,
    /// The error type the statement's `?` propagates (the API's own).
    pub error_type: &'static str,
    /// The stream's name as written.
    pub stream: String,
    /// The suggestion's message.
    pub message: String,
    /// What to say instead when the statement cannot be offered.
    pub help: String,
}

impl<S> Diagnostic<S> {
    pub fn new(message: String) -> Self {
        Diagnostic {
            message,
            labels: Vec::new(),
            children: Vec::new(),
        }
    }

    pub fn label(&mut self, at: S, text: String) -> &mut Self {
        self.labels.push((at, text));
        self
    }

    pub fn note(&mut self, text: impl Into<String>) -> &mut Self {
        self.children.push(Child::Note(text.into()));
        self
    }

    pub fn help(&mut self, text: impl Into<String>) -> &mut Self {
        self.children.push(Child::Help(text.into()));
        self
    }

    pub fn via(&mut self, what: &'static str) -> &mut Self {
        self.children.push(Child::Via { what });
        self
    }
}

/// Which findings to report, one per mistake in a scope (a function): of
/// `host_deref_device_ptr`'s, the first host access of each allocation (a slice made of device
/// memory and then read is one mistake, with one fix); of `missing_sync`'s, the first access
/// racing each operation in flight (reading a result twice before the wait is one missing
/// wait); of `write_combined_host_read`'s, the first host read of each write-combined
/// allocation (one allocation to make cached); of `managed_concurrent_access`'s, the first host
/// access of each managed allocation while a kernel runs (filling a struct's fields is one
/// missing wait); of `unfenced_vmm_alias`'s, the first of each pair of works that meet (the
/// next round of a loop meeting the last one is the same missing order between two streams). The subject is the finding's first label (the
/// memory, or the operation's site);
/// `scope` and `position` place a finding's site. Other findings are all kept.
pub fn first_per_mistake<S: Copy + Eq + std::hash::Hash, K: Eq + std::hash::Hash>(
    findings: &[Finding<S>],
    scope: impl Fn(S) -> K,
    position: impl Fn(S) -> u64,
) -> Vec<bool> {
    let once = [
        &crate::lints::host_deref_device_ptr::HOST_DEREF_DEVICE_PTR,
        &crate::lints::missing_sync::MISSING_SYNC,
        &crate::lints::relies_on_implicit_sync::RELIES_ON_IMPLICIT_SYNC,
        &crate::lints::write_combined_host_read::WRITE_COMBINED_HOST_READ,
        &crate::lints::managed_concurrent_access::MANAGED_CONCURRENT_ACCESS,
        // Memory nothing wrote: one missing upload, however many reads meet it.
        &crate::lints::uninitialized_device_read::UNINITIALIZED_DEVICE_READ,
        // Two mappings used by unordered work: one missing order between the streams, however
        // many launches (a loop's next round) meet it again.
        &crate::lints::unfenced_vmm_alias::UNFENCED_VMM_ALIAS,
    ];
    let named = |f: &Finding<S>| {
        once.iter()
            .any(|l| std::ptr::eq(f.lint, *l))
            .then(|| {
                // A finding on work started at its own site (a call racing its previous round:
                // `MPI_Ibcast(d, .., &req)` again before `req` completed) names no other site: its
                // subject is that site, the operation's.
                let own_site = std::ptr::eq(f.lint, &crate::lints::missing_sync::MISSING_SYNC)
                    || std::ptr::eq(f.lint, &crate::lints::relies_on_implicit_sync::RELIES_ON_IMPLICIT_SYNC);
                let mut subject = match f.diagnostic.labels.first() {
                    Some(l) => l.0,
                    None if own_site => f.span,
                    None => return None,
                };
                // Of `unfenced_vmm_alias`'s, the two pieces of work that meet (its site and its
                // last label, the other work), in either order: the race of `a` with `b` and the
                // next round's of `b` with `a` are one missing order.
                let pair = if std::ptr::eq(f.lint, &crate::lints::unfenced_vmm_alias::UNFENCED_VMM_ALIAS) {
                    subject = f.span;
                    f.diagnostic.labels.last().map(|(s, _)| *s)
                } else {
                    None
                };
                // Ordered by a hash: label sites need not have a position in the scope.
                let key = |s: &S| {
                    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
                    BuildHasherDefault::<DefaultHasher>::default().hash_one(s)
                };
                let (subject, other) = match pair {
                    Some(p) if key(&p) < key(&subject) => (p, Some(subject)),
                    p => (subject, p),
                };
                Some((f.lint.name, subject, other, scope(f.span)))
            })
            .flatten()
    };
    let mut first: std::collections::HashMap<(&'static str, S, Option<S>, K), S> = std::collections::HashMap::new();
    for f in findings {
        if let Some(key) = named(f) {
            let at = first.entry(key).or_insert(f.span);
            if position(f.span) < position(*at) {
                *at = f.span;
            }
        }
    }
    findings
        .iter()
        .map(|f| named(f).is_none_or(|key| first.get(&key) == Some(&f.span)))
        .collect()
}
