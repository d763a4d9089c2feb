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
