//! What the analysis found, structured; the lint files turn findings into diagnostics.

use rustc_hir::HirId;
use rustc_hir::def_id::DefId;
use rustc_span::Span;

use crate::api::{Advice, Dir, MemKind};

/// A memory region as the user sees it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Region {
    /// How to name it in source (`host`, `self.staging`), when it has a name.
    pub name: Option<String>,
    pub kind: MemKind,
    /// Where it comes from: the call that created it, or the variable or parameter declared
    /// with it (see [`Origin`]).
    pub origin: Span,
    pub origin_kind: Origin,
    /// The type of what owns it (`Vec<f32>`, `PinnedBuffer<f32>`), when known.
    pub ty: Option<String>,
    /// How users of the API that made it (or, if unknown, of the API in use) work with it.
    pub advice: &'static Advice,
}

/// What a region's origin span shows.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    /// The call that allocated it (`vec![..]`, `ctx.alloc_pinned(..)`).
    Allocated,
    /// The call that mapped it (`range.map(&physical, 0)`).
    Mapped,
    /// A call that returned it (`queue.pop()`): where it comes from, not where it was made.
    Returned,
    /// The variable or parameter that holds it.
    Declared,
}

/// An operation that may still be running.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InFlight {
    /// "asynchronous copy", "kernel launch", ...
    pub what: &'static str,
    /// The call that enqueued it.
    pub span: Span,
    /// The stream it runs on, by name.
    pub stream: Option<String>,
    /// How users of the API that enqueued it wait for it.
    pub advice: &'static Advice,
    /// cudarc recorded no event for it because its context did not manage stream
    /// synchronization (see `OpInfo::unrecorded_by_cudarc`).
    pub unrecorded_by_cudarc: bool,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    Read,
    Write,
    /// Freed or dropped.
    Free,
    /// Reused by an operation on another stream.
    Reuse,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// Its CUDA source is visible and has no `fence.proxy.alias`.
    Unfenced { name: String },
    /// Its source is not visible to the analysis.
    SourceNotVisible { name: Option<String> },
    /// Its source is visible but the kernel's name is not a constant.
    NameNotConstant,
    /// No kernel of this name is defined in the source the analysis sees.
    NotInSource { name: String },
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FindingKind {
    /// An asynchronous copy whose host side may be pageable.
    PageableAsyncCopy {
        host: Region,
        dir: Dir,
        host_arg: Option<Span>,
        advice: &'static Advice,
    },
    /// The host dereferences device memory.
    HostDerefDevicePtr {
        target: Region,
        write: bool,
        made_into_slice: bool,
    },
    /// The host accesses memory an operation may still be using.
    MissingSync {
        access: Access,
        target: Region,
        op: InFlight,
    },
    /// One kernel uses two mappings of one physical allocation without `fence.proxy.alias`.
    AliasInOneKernel {
        first: Region,
        second: Region,
        kernel: Kernel,
    },
    /// Unordered operations on two streams use two mappings of one physical allocation.
    AliasAcrossStreams {
        first: Region,
        second: Region,
        other: InFlight,
    },
}

/// A call of a helper through which a finding was reached, outermost first.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Via {
    pub callee: String,
    /// The function the event happened in (the innermost helper).
    pub helper: DefId,
    /// The function the linted body calls, on the way to `helper` (the outermost helper).
    pub outer: DefId,
    /// Where the event happened inside the helper.
    pub inner: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Finding {
    pub kind: FindingKind,
    /// The statement the diagnostic points at: the copy, the access, the launch (or the call
    /// of the helper that does it).
    pub span: Span,
    /// The node whose lint level applies.
    pub lint_root: HirId,
    /// True when the finding holds only on some paths through the body.
    pub some_paths: bool,
    pub via: Option<Via>,
}
