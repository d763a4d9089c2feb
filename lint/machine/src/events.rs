//! What a front end reports to the lints while it drives the machine: host accesses, views,
//! asynchronous copies, enqueued work, launches and frees, each at a site of the front end's
//! (`S`: a rustc `Span`, a C++ file position). Lints judge each event against the state the
//! machine is in when it happens.

use crate::advice::Advice;
use crate::memory::{Access, Allocator, Dir, MemKind};
use crate::ops::{OpId, OpSet};
use crate::regions::LocSet;

#[derive(Clone, Debug)]
pub enum Event<'e, S> {
    /// The host reads, writes or frees (at once: `free`, a `Vec` dropped) the memory at `regions`.
    HostAccess { regions: &'e LocSet, access: Access },
    /// A library that takes host and device memory alike (CUDA-aware MPI) reads or writes the
    /// memory at `regions` on the host's timeline, in no stream's order: before `call` returns
    /// (`MPI_Send`, `MPI_Recv`), or from the call on (`MPI_Isend`: its request's operation
    /// follows as [`Event::Enqueue`]).
    LibraryAccess {
        regions: &'e LocSet,
        access: Access,
        call: &'static str,
    },
    /// A raw pointer to `regions` is made into a slice (`slice::from_raw_parts`) or, with
    /// `reference`, a reference (`&*p`, which `println!("{}", *p)` makes too) the host will use.
    HostView {
        regions: &'e LocSet,
        write: bool,
        reference: bool,
    },
    /// An asynchronous copy whose host side is `host`, made through an API whose `advice` the
    /// diagnostic gives; `host_arg` is where the host side is written; `bytes`, when the front
    /// end knows it, how many bytes it copies at most (a scalar's size, an array's, a constant
    /// byte count).
    AsyncCopy {
        host: &'e LocSet,
        dir: Dir,
        host_arg: Option<S>,
        bytes: Option<u64>,
        advice: &'static Advice,
    },
    /// A copy whose direction the code states (a `cudaMemcpyKind` argument, or a function of one
    /// direction: `cuMemcpyHtoD`, cudarc's `memcpy_htod`): what its destination and source may
    /// be. `dir` is the stated direction, never inferred from the memory.
    StatedCopy { dst: &'e LocSet, src: &'e LocSet, dir: Dir },
    /// Operation `op` (its uses already added) is about to start, against the work in flight.
    Enqueue { op: OpId },
    /// A kernel launch whose arguments reach `slots` (one set per argument when `apart`, else
    /// one set for all); `written`, when known, says which of them the kernel may write through
    /// (the others it only loads from); `kernel` is what is known of its fencing (`None`: it
    /// fences).
    Launch {
        slots: &'e [LocSet],
        apart: bool,
        written: Option<&'e [bool]>,
        kernel: Option<&'e Kernel>,
    },
    /// `regions` are freed in the order of `streams` (`cuMemFreeAsync`, a cudarc slice
    /// dropped): work on other streams not ordered before, and not in `exempt` (work the API
    /// family orders by itself), may still use them.
    FreeOnStreams {
        regions: &'e LocSet,
        streams: &'e LocSet,
        exempt: &'e OpSet,
    },
    /// A VMM address range is freed (`cuMemAddressFree`); `regions` is where the call points.
    AddressFree { regions: &'e LocSet },
    /// `regions` are released by a function of `by` (`cuMemFree`: [`Allocator::Device`]),
    /// before the release itself.
    Dealloc { regions: &'e LocSet, by: Allocator },
    /// A free that makes the host wait for the device only because the driver happens to
    /// (`cudaFree`, `cuMemFree`, `cudaFreeHost`, `cuMemFreeHost`), before the machine takes the
    /// work in flight as waited for ([`crate::Machine::wait_implicitly`]): `regions` is the
    /// memory it frees.
    ImplicitWait { regions: &'e LocSet },
    /// Host memory is unregistered (`cuMemHostUnregister`), before the machine unregisters it.
    Unregister { regions: &'e LocSet },
    /// A copy, a memset or a kernel will dereference the memory an argument names (`regions`):
    /// `role` says how. `bytes`: how many bytes from the start of that memory, where the
    /// count is known and the argument names the start of its memory (`p`, `v.data()`, `&x`,
    /// an array), not a place inside it.
    Deref {
        regions: &'e LocSet,
        role: DerefRole,
        bytes: Option<u64>,
    },
    /// A function ends and its locals with it (`program_end`: `main` returns, and every
    /// allocation with it): `lost` are the allocations nothing holds any longer (no variable
    /// of a caller, no object, no returned value; not handed to code the analysis cannot see).
    ScopeExit { lost: &'e LocSet, program_end: bool },
    /// An allocation call stores its new memory where the only pointer to memory made before
    /// was (the call itself run again, in a loop's next round, or another allocation into the
    /// same variable): `lost` is that earlier memory, if nothing released it.
    Reallocated { lost: &'e LocSet },
    /// Memory is mapped at the VMM mappings `views` (`cuMemMap`), before the machine marks them
    /// mapped.
    Map { views: &'e LocSet },
    /// The status a CUDA API function `call` returns is dropped: the call is a statement of its
    /// own (`cudaMemcpy(..);`). `check`: the macro the file checks statuses with, if any.
    StatusDropped { call: &'e str, check: Option<&'e str> },
    /// A kernel launch after which its function reaches the synchronizing call `sync` (at
    /// `sync_at`) with no `cudaGetLastError`/`cudaPeekAtLastError` in between. `check`: the
    /// macro the file checks statuses with, if any.
    LaunchUnchecked {
        sync: &'e str,
        sync_at: S,
        check: Option<&'e str>,
    },
    /// A graph is launched (`cudaGraphLaunch`) whose captured work uses, through each of its
    /// arguments, what one set of `slots` holds (an argument whose value is not known for sure
    /// holds several); `captured`: where its capture began.
    GraphLaunch { slots: &'e [LocSet], captured: Option<S> },
    /// The call `call`, made while a stream captures, is of a kind stream capture restricts
    /// (`rule`). `strict`: the capture is in global or thread-local mode on every path (not
    /// relaxed, nor switched to relaxed by `cudaThreadExchangeStreamCaptureMode`); `blocking`:
    /// a capturing stream is a blocking stream. `captured`: where the capture began.
    DuringCapture {
        call: &'e str,
        rule: CaptureRule,
        strict: bool,
        blocking: bool,
        captured: Option<S>,
    },
}

/// What stream capture says of a kind of call (CUDA programming guide, "Prohibited and
/// Unhandled Operations"; `cudaStreamBeginCapture`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CaptureRule {
    /// Synchronizes or queries what is being captured: a capturing stream, the device, an
    /// event recorded in the capture. Invalid in every mode.
    SyncsCapture,
    /// A call that may synchronize implicitly (`cudaMalloc`, `cudaFree`, a synchronous copy or
    /// memset): prohibited in global and thread-local mode.
    PotentiallyUnsafe,
    /// Work on the legacy default stream: it would make the legacy stream depend on a
    /// capturing blocking stream (`cudaErrorStreamCaptureImplicit`).
    LegacyStreamWork,
    /// A synchronous copy or memset: potentially unsafe, and work on the legacy stream.
    SynchronousWork,
    /// Capture begun on the legacy default stream.
    CaptureOnLegacy,
    /// A call stream capture does not support (`cudaMemcpyBatchAsync`).
    Unsupported,
}

/// How a [`Event::Deref`] uses its memory.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DerefRole {
    /// The destination of a copy.
    CopyDestination,
    /// The source of a copy.
    CopySource,
    /// The destination of a memset.
    MemsetDestination,
    /// A kernel argument whose parameter the kernel's source only loads through.
    KernelReads,
    /// A kernel argument whose parameter the kernel's source may write through (or use
    /// otherwise), never testing it against null.
    KernelUses,
}

impl DerefRole {
    /// "the destination of this copy", for diagnostics.
    pub fn describe(self) -> &'static str {
        match self {
            DerefRole::CopyDestination => "the destination of this copy",
            DerefRole::CopySource => "the source of this copy",
            DerefRole::MemsetDestination => "the destination of this memset",
            DerefRole::KernelReads => "an argument this kernel reads through",
            DerefRole::KernelUses => "an argument this kernel dereferences",
        }
    }

    /// Whether the memory is read (a copy's source, a kernel's loads).
    pub fn reads(self) -> bool {
        matches!(self, DerefRole::CopySource | DerefRole::KernelReads)
    }
}

/// What is known of a launched kernel's fencing (`fence.proxy.alias`), when it does not fence.
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

/// A memory region as the user sees it (the front end describes it).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Region<S> {
    /// How to name it in source (`host`, `self.staging`), when it has a name.
    pub name: Option<String>,
    pub kind: MemKind,
    /// Where it comes from: the call that created it, or the variable or parameter declared
    /// with it (see [`Origin`]).
    pub origin: S,
    pub origin_kind: Origin,
    /// The type of what owns it (`Vec<f32>`, `PinnedBuffer<f32>`), when known.
    pub ty: Option<String>,
    /// How users of the API that made it (or, if unknown, of the API in use) work with it.
    pub advice: &'static Advice,
}

/// What a region's origin site shows.
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

/// An operation that may still be running, as the user sees it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InFlight<S> {
    /// "asynchronous copy", "kernel launch", ...
    pub what: &'static str,
    /// Where it was enqueued.
    pub span: S,
    /// The stream it runs on, by name.
    pub stream: Option<String>,
    /// How users of the API that enqueued it wait for it.
    pub advice: &'static Advice,
    /// What its API family says of it (see [`crate::Op::notes`]).
    pub notes: Vec<&'static str>,
}

/// The front end's descriptions of regions and operations, for diagnostics.
pub trait Describe<S> {
    fn region(&self, root: crate::Loc) -> Region<S>;
    fn in_flight(&self, op: OpId) -> InFlight<S>;
}
