//! What each known API does to memory, as data.
//!
//! One file per API family. Each family lists functions by their definition path and the
//! [`Effect`]s a call has, and types by the [`TypeRole`] their values play. The analysis reads
//! only this vocabulary: adding a family means adding a table here, not touching the analysis.
//!
//! Paths are definition paths, not re-export paths: `crate::module::Type::method` for inherent
//! methods and free functions, `crate::module::Trait::method` for trait methods that apply to
//! every implementation, and `[]::method`, `*const::method`, `*mut::method`, `str::method` for
//! methods of primitive types.

pub mod c_functions;
pub mod cuda_driver;
pub mod cuda_runtime;
pub mod cudarc_safe;
pub mod libraries;
pub mod mpi;
pub mod runtime;
pub mod std_lib;
pub mod user;

pub use user::UserFunctions;

use std::collections::HashMap;
use std::sync::OnceLock;

/// An argument position; `RET` names the return value.
pub type Arg = u8;
/// The return value, where an [`Effect`] takes an argument position.
pub const RET: Arg = u8::MAX;
/// The legacy default stream (the null stream of the current context), where an [`Effect`]
/// takes a stream argument: what blocking copies and memsets run on.
pub const LEGACY: Arg = u8::MAX - 1;

pub use cuda_lint_machine::{Advice, Allocator, FreeKind, MemKind};

/// CUDA objects that are not memory.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ObjKind {
    Stream,
    Event,
    Context,
    /// A compiled program or loaded module (carries its CUDA source when known).
    Module,
    /// A kernel function of a module.
    Kernel,
    /// A VMM physical allocation (`cuMemCreate`).
    Physical,
    /// A VMM virtual address range (`cuMemAddressReserve`).
    AddressRange,
    /// A guard that, dropped, records the work enqueued with a device pointer (cudarc's
    /// `SyncOnDrop`).
    Guard,
    /// A kernel launch being built (cudarc's `LaunchArgs`).
    LaunchBuilder,
    /// A nonblocking MPI operation's request (`MPI_Irecv(.., &mut req)`), a handle copied by
    /// value.
    Request,
    /// A CUDA library's handle (`cublasHandle_t`, cudarc's `CudaBlas`): its routines run on
    /// the stream it holds (see [`Effect::NewHandle`]).
    LibraryHandle,
    /// A graph made by stream capture (`CUgraph`, `CUgraphExec`, cudarc's `CudaGraph`): the
    /// work captured into it runs at each launch.
    Graph,
}

/// What a handle refers to.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    Mem(MemKind),
    Obj(ObjKind),
}

/// When a pinned allocation is write-combined (`CU_MEMHOSTALLOC_WRITECOMBINED`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WriteCombined {
    /// Always (cudarc 0.19.10's `CudaContext::alloc_pinned`).
    Always,
    /// When the constant flags argument `flags` has `bit` set (`cuMemHostAlloc`, `cudaHostAlloc`).
    FlagBit { flags: Arg, bit: u32 },
    /// When field `field` (a `bool`) of the struct argument `arg` is a constant `true` (the
    /// runtime layer's `PinnedFlags { write_combined: true, .. }`).
    BoolField { arg: Arg, field: u8 },
}

/// Where managed memory is attached (`CU_MEM_ATTACH_HOST`/`_SINGLE`: kernels of other streams
/// do not take it; `CU_MEM_ATTACH_GLOBAL`: every kernel may).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Attach {
    /// The memory the call makes, by the constant flags argument `flags` (`cuMemAllocManaged`,
    /// `cudaMallocManaged`).
    NewByFlags { flags: Arg },
    /// The memory the call makes, attached to all when the `bool` argument `global` is a
    /// constant `true`, else to the host (cudarc's `alloc_unified(len, attach_global)`).
    NewGlobalIf { global: Arg },
    /// The memory `mem` refers to, by the constant flags argument `flags`
    /// (`cuStreamAttachMemAsync`, `cudaStreamAttachMemAsync`, cudarc's `UnifiedSlice::attach`).
    Mem { mem: Arg, flags: Arg, stream: Arg },
}

/// `CU_MEM_ATTACH_SINGLE`, `cudaMemAttachSingle`.
pub const ATTACH_SINGLE: u128 = 0x04;

/// `CU_MEM_ATTACH_GLOBAL`, `cudaMemAttachGlobal`.
pub const ATTACH_GLOBAL: u128 = 0x01;

/// `CU_MEMHOSTALLOC_WRITECOMBINED`, `cudaHostAllocWriteCombined`.
pub const WRITE_COMBINED_BIT: u32 = 0x04;

/// Where a library routine runs (see [`Effect::LibraryWork`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LibraryStream {
    /// On the stream of the handle argument.
    Handle(Arg),
    /// On the stream argument (NCCL).
    Stream(Arg),
}

/// The direction of a copy, which decides which side is host memory.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    HostToDevice,
    DeviceToHost,
    DeviceToDevice,
    /// Decided by the kinds of the two sides (`cudaMemcpyDefault`, unified addressing).
    Infer,
    /// Given by a `cudaMemcpyKind` argument (`cudaMemcpyHostToDevice` = 1, `..DeviceToHost` = 2,
    /// `..DeviceToDevice` = 3, `..Default` = 4).
    KindArg(Arg),
}

/// One thing a call does. A call may do several, in order.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// The return value holds a new object (through `Result`/`Option` as well).
    New(Target),
    /// The return value refers to the memory or object `Arg` refers to (a view, a pointer).
    Derive(Arg),
    /// Derives like [`Effect::Derive`] and is a host access of the memory: the pointer is made
    /// into a slice or reference the host will use (`slice::from_raw_parts`, `_mut` to write).
    HostView { arg: Arg, write: bool },
    /// The host reads (`write`: writes) the memory the pointer `arg` points to, here, in the
    /// call (the C library's `memcpy`, `memset`).
    HostAccess { arg: Arg, write: bool },
    /// A library that takes host and device memory alike (CUDA-aware MPI's `call`) reads
    /// (`write`: writes) the memory the pointer `arg` points to on the host's timeline, before
    /// the call returns.
    UsedByLibrary { arg: Arg, write: bool, call: &'static str },
    /// `call` starts a nonblocking library operation (`MPI_Irecv`) that reads the memory `reads`
    /// points to and writes what `writes` points to until the request stored where `request`
    /// points is completed.
    StartsRequest {
        reads: Option<Arg>,
        writes: Option<Arg>,
        request: Arg,
        call: &'static str,
    },
    /// Completes the requests `arg` points to (`MPI_Wait`; with `array`, an array's elements:
    /// `MPI_Waitall`).
    CompletesRequests { arg: Arg, array: bool },
    /// Asks whether the requests `Arg` points to are complete (`MPI_Test`): taken as a
    /// completion, as a query is a wait.
    TestsRequests(Arg),
    /// The return value is what `Arg` points at refers to (an iterator's next item).
    Contents(Arg),
    /// Another handle to what the handle `Arg` points at refers to (`Arc::clone(&a)`): its value
    /// where the state knows one, else the handle itself (a field made elsewhere).
    SharedClone(Arg),
    /// The return value is `Some` of the argument (`cond.then_some(x)`), its fields kept.
    SomeOf(Arg),
    /// Derives like [`Effect::Derive`] an iterator over parts of the memory (`chunks_mut`):
    /// each item is a part of it, another one at each step.
    Parts(Arg),
    /// Reads the memory `Arg` refers to (iterating over it, say).
    Read(Arg),
    /// Stores `value` as an element of the collection `vec` points to (`Vec::push`).
    Push { vec: Arg, value: Arg },
    /// The return value is new memory (a `Vec` from `vec![a, b]`) whose elements are what the
    /// memory `Arg` refers to holds (the boxed array): device pointers stored there stay known.
    Elements(Arg),
    /// The return value is an element taken out of the collection `Arg` points to
    /// (`Vec::pop`): what the elements refer to, not the collection's own memory (a pool's
    /// `Vec<*mut T>` of pinned buffers hands out pinned buffers).
    Element(Arg),
    /// The return value is the argument values moved through (`?`, `unwrap`, `into`).
    Transparent,
    /// Touches no memory contents (lengths, sizes, pointers as numbers).
    NoAccess,
    /// A copy on a stream; `is_async` copies return before it completes.
    Copy {
        dst: Arg,
        src: Arg,
        dir: Dir,
        stream: Arg,
        is_async: bool,
    },
    /// A memset on a stream.
    Memset { dst: Arg, stream: Arg, is_async: bool },
    /// A batch of copies (`cuMemcpyBatchAsync`): `dsts` and `srcs` point to arrays of
    /// pointers, `attrs` to the copies' attributes, whose `srcAccessOrder` says when the
    /// sources are read; the stream is the last argument (in every version of the call).
    /// Destinations are written in stream order, and so are sources read unless the order is
    /// "during the API call": host memory, pageable or not, stays in use after the call.
    BatchCopy { dsts: Arg, srcs: Arg, attrs: Arg },
    /// A kernel launch on a stream, with its arguments in `args`.
    Launch { kernel: Arg, stream: Arg, args: Arg },
    /// Waits for all work on a stream.
    SyncStream(Arg),
    /// Waits for the work recorded before an event.
    SyncEvent(Arg),
    /// The memory the call's `New`/`NewOut` made is write-combined pinned memory when the
    /// flags say so (see [`WriteCombined`]).
    WriteCombined(WriteCombined),
    /// Managed memory attached to the host, one stream or all (see [`Attach`]).
    Attach(Attach),
    /// Runs the closure `Arg` here, on another thread (`thread::spawn`, `Scope::spawn`): what
    /// it enqueues is in flight from here on; the return value (a join handle) holds what the
    /// closure returns, which `join` hands back.
    Spawn(Arg),
    /// The value `Arg` is handed to another thread (`Sender::send`): the receiver may read it
    /// at once. Unless it carries something to wait on (an event, a stream), that is a host
    /// read here; otherwise the value is only moved.
    HandOff(Arg),
    /// The return value is an `Option` of a reference to the `Some` of the `Option` `Arg`
    /// points to (`Option::as_ref`, `as_mut`, `as_deref`).
    SomeRef(Arg),
    /// The return value is the two disjoint halves of the slice `Arg` (`split_at_mut`).
    SplitAt(Arg),
    /// Reads the memory `Arg` refers to, unless the items the call returns are references
    /// (`Iterator::next` of a `Vec`'s `IntoIter` moves elements out; of `iter()`, it does not).
    ReadOwnedItems(Arg),
    /// The return value is an iterator over pairs of the items of the two arguments
    /// (`Iterator::zip`): field 0 refers to what the first does, field 1 to the second's. With
    /// one argument (`Iterator::enumerate`), pairs of a count (field 0, no memory) and its items.
    Zip,
    /// The return value is `Ok` of what the `Some` at `Arg` holds (`Option::ok_or`): the value
    /// moves with its fields and variant.
    OkOfSome(Arg),
    /// Joins the thread of the join handle `Arg`: the return value is `Ok` of what its closure
    /// returned (`JoinHandle::join`).
    Join(Arg),
    /// Waits for all work in the context.
    SyncContext,
    /// Waits for the work of the context `Arg` (cudarc's `CudaContext::synchronize`): work on
    /// streams of other contexts (another device) goes on.
    SyncContextOf(Arg),
    /// Asks whether the work on a stream is done, without waiting (`cuStreamQuery`). Taken as
    /// a wait: programs poll until it is (`while query() != SUCCESS {}`), or use the memory only
    /// where it said so. Code that goes on after a query that said "not ready" is not reported.
    QueryStream(Arg),
    /// The same for the work recorded before an event (`cuEventQuery`, `is_complete`).
    QueryEvent(Arg),
    /// Records an event on a stream.
    RecordEvent { event: Arg, stream: Arg },
    /// Makes a stream wait for an event (orders the device, not the host).
    StreamWaitEvent { stream: Arg, event: Arg },
    /// Page-locks host memory; the return value refers to it, now pinned.
    Register { host: Arg },
    /// Frees (or unregisters) memory.
    Free { mem: Arg, kind: FreeKind },
    /// Drops an argument (`mem::drop`): the effect of its type's drop.
    DropArg(Arg),
    /// The collection a reference argument points to drops its elements and stays
    /// (`Vec::clear`, `truncate`, `HashMap::clear`): what their `Drop` does happens here.
    DropElements(Arg),
    /// Exchanges what two `&mut` arguments refer to (`mem::swap`).
    Swap(Arg, Arg),
    /// Moves the value `dst` points to out as the return value, and leaves `value` in its place
    /// (`mem::replace`), inside `Some` with `some` (`Option::replace`), or nothing (`None`:
    /// `Option::take`, `mem::take`).
    Replace { dst: Arg, value: Option<Arg>, some: bool },
    /// Stores `value` in the `Some` of the `Option` `dst` points to and returns a reference to
    /// it (`Option::insert`); with `keep`, only where it was `None` (`get_or_insert`).
    InsertSome { dst: Arg, value: Arg, keep: bool },
    /// The return value is a module compiled from the CUDA source in `Arg` (a `&str`).
    CompileSource(Arg),
    /// The return value is a module loaded from the program or module in `Arg`.
    LoadModule(Arg),
    /// The return value is the kernel named by `name` (a `&str`) in `module`.
    GetFunction { module: Arg, name: Arg },
    /// The return value is a new mapping of the physical allocation in `physical`.
    Map { physical: Arg },
    /// A new object is stored where `out` points (`cuMemAlloc(&mut ptr, bytes)`).
    NewOut { out: Arg, target: Target },
    /// The memory at the address `va` (from `cuMemAddressReserve`) becomes a mapping of the
    /// physical allocation `physical` (`cuMemMap(va, size, 0, handle, 0)`).
    MapAt { va: Arg, physical: Arg },
    /// The device is granted access to the mappings at the address `va` (`cuMemSetAccess`);
    /// a mapping starts with none.
    SetAccess { va: Arg },
    /// The mappings at the address `va` are unmapped (`cuMemUnmap`); the memory itself is freed
    /// by a [`Effect::Free`] beside it.
    Unmap { va: Arg },
    /// The new memory this call returns (or stores, [`Effect::NewOut`]) was made by this
    /// allocator, which decides what must release it.
    AllocatedBy(Allocator),
    /// The memory `mem` is released by a function of this allocator (`cuMemFree`: device).
    FreedBy { mem: Arg, by: Allocator },
    /// The new memory this call returns (or stores, [`Effect::NewOut`]) has unspecified
    /// contents (cudarc's `unsafe alloc`: not cleared) until something writes it.
    Uninitialized,
    /// The new memory this call returns (or stores, [`Effect::NewOut`]) holds `bytes` bytes,
    /// times `times` (`calloc`'s count): its size, where the arguments are constants.
    Holds { bytes: Arg, times: Option<Arg> },
    /// The owner `Arg` gives its memory up to the program, which must now release it (cudarc's
    /// `CudaSlice::leak`: the raw pointer, freed by nothing on drop).
    GivesUp(Arg),
    /// The memory the pointer `Arg` points to is taken over by the owner the call returns
    /// (cudarc's `upgrade_device_ptr`), which releases it on drop.
    Adopts(Arg),
    /// The new memory this call returns holds `count` elements of the returned owner's element
    /// type (cudarc's `alloc_zeros::<T>(n)`: a `CudaSlice<T>` of `n`), where `count` is a
    /// constant.
    HoldsElements { count: Arg },
    /// The copy covers all of the slice argument `Arg`, whatever the other side holds
    /// (cudarc's `memcpy_htod(src, dst)` copies `src.len()` elements and asserts `dst` has room;
    /// `result::memcpy_dtoh_sync(dst, src)` copies `size_of_val(dst)` bytes).
    CoversWhole(Arg),
    /// The copy or memset covers `count` elements of `unit` bytes from the start of its
    /// destination and of its source (`cuMemcpyHtoD`'s `ByteCount`, `cuMemsetD32`'s `N`).
    Covers { count: Arg, unit: u8 },
    /// The reserved range at the address `va` is freed (`cuMemAddressFree`): it must no longer
    /// be mapped.
    AddressFree { va: Arg },
    /// The new memory this call returns belongs to the stream `Arg` (freed in its order).
    AllocatedOn(Arg),
    /// Returns a launch being built for `kernel` on `stream`; arguments are added with
    /// [`Effect::Push`], and [`Effect::LaunchBuilt`] launches it.
    LaunchBuilder { kernel: Arg, stream: Arg },
    /// Launches what the builder `Arg` holds.
    LaunchBuilt(Arg),
    /// Frees the memory `mem` in the order of `stream` (`cuMemFreeAsync`).
    FreeOnStream { mem: Arg, stream: Arg },
    /// Page-locks the host memory `Arg` points at, in place (`cuMemHostRegister`).
    RegisterInPlace(Arg),
    /// Unregisters it (`cuMemHostUnregister`), which waits for the work using it.
    UnregisterInPlace(Arg),
    /// The return value is the default stream of the context `Arg` (the same stream each time):
    /// the legacy default stream.
    DefaultStream(Arg),
    /// The return value is the per-thread default stream of the context `Arg` (the same stream
    /// each time: two handles of it are one stream); a blocking stream.
    PerThreadStream(Arg),
    /// The stream just made is non-blocking: always (`None`), or when the constant flags
    /// argument has `CU_STREAM_NON_BLOCKING`/`cudaStreamNonBlocking` (1) set.
    NonBlocking { flags: Option<Arg> },
    /// The return value is the primary context of the device whose ordinal is `Arg`: the
    /// same context for every call with the same constant ordinal.
    DeviceContext(Arg),
    /// The streams the return value holds belong to the context `Arg` refers to (or, for a
    /// stream, to its context).
    StreamOfContext(Arg),
    /// A copy on `stream` from memory of another context first makes `stream` wait for the
    /// work enqueued so far on the stream the source was allocated on (cudarc's cross-context
    /// `memcpy_dtod`).
    WaitForSourceOfOtherContext { stream: Arg, src: Arg },
    /// The return value is the stream the memory `Arg` was allocated on, when known.
    StreamOf(Arg),
    /// New work on `stream` waits for the work enqueued on `other` so far (`join`, `fork`).
    StreamJoin { stream: Arg, other: Arg },
    /// What the effects before it return is stored where `Arg` points instead
    /// (`cuModuleGetFunction(&mut f, module, name)`).
    RetInto(Arg),
    /// Work enqueued on `stream` that reads the memory the arguments `reads` refer to and
    /// writes what `writes` refer to (a user's wrapper, or a typed kernel launch, summarised by
    /// an effect attribute). A typed kernel also gives its name and whether it executes
    /// `fence.proxy.alias`.
    Work {
        stream: Arg,
        reads: &'static [Arg],
        writes: &'static [Arg],
        kernel: Option<&'static str>,
        fenced: Option<bool>,
    },
    /// Work on the stream `stream` is captured into a graph from here (`cuStreamBeginCapture`,
    /// cudarc's `begin_capture`): recorded, not run. `mode`: the capture mode argument
    /// (`CU_STREAM_CAPTURE_MODE_GLOBAL` = 0, `_THREAD_LOCAL` = 1, `_RELAXED` = 2).
    BeginCapture { stream: Arg, mode: Option<Arg> },
    /// The capture on the stream `Arg` ends: the return value is the graph it made.
    EndCapture(Arg),
    /// The graph `graph` is launched, on `stream` (`None`: the stream it was captured on,
    /// cudarc's `CudaGraph::launch`): its captured work runs there.
    GraphLaunch { graph: Arg, stream: Option<Arg> },
    /// The thread's capture mode is exchanged (`cuThreadExchangeStreamCaptureMode`): relaxed,
    /// mostly.
    CaptureModeExchange,
    /// The return value is a new library handle whose routines run on the stream `stream`
    /// ([`LEGACY`] for a handle made with none: `cublasCreate`).
    NewHandle { stream: Arg },
    /// The handle `handle` runs its routines on `stream` from here on (`cublasSetStream`).
    SetHandleStream { handle: Arg, stream: Arg },
    /// The handle's scalar results are device memory written on its stream when the constant
    /// `mode` is 1 (`CUBLAS_POINTER_MODE_DEVICE`), host variables written before the call
    /// returns when it is 0.
    SetPointerMode { handle: Arg, mode: Arg },
    /// A library routine (`cublasSgemm`, `CudaBlas::gemm`): work on the stream of the handle
    /// `on` (or on the stream `on`, see [`LibraryStream`]) that reads the memory `reads` refer
    /// to and writes what `writes` refer to. `result`: a scalar result written where it points;
    /// into host memory the call returns once it is written, which waits for the stream.
    LibraryWork {
        on: LibraryStream,
        reads: &'static [Arg],
        writes: &'static [Arg],
        result: Option<Arg>,
    },
    /// What cudarc's calls do beyond this vocabulary: its event-tracking policy
    /// ([`cudarc_safe::model`]).
    Cudarc(cudarc_safe::CudarcEffect),
}

/// The API families' own state, in the machine's family slot (see `cuda_lint_machine::Ext`).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct FamilyState {
    pub cudarc: cudarc_safe::model::CudarcState,
}

impl cuda_lint_machine::Ext for FamilyState {
    fn join(&mut self, other: &Self) -> bool {
        self.cudarc.join(&other.cudarc)
    }
    fn started(&mut self, op: cuda_lint_machine::OpId) {
        self.cudarc.started(op);
    }
    fn finished(&mut self, ops: &cuda_lint_machine::OpSet) {
        self.cudarc.finished(ops);
    }
}

/// A function and what a call to it does.
#[derive(Debug)]
pub struct ApiFn {
    pub path: &'static str,
    pub effects: &'static [Effect],
}

/// A table entry (for the family files).
const fn f(path: &'static str, effects: &'static [Effect]) -> ApiFn {
    ApiFn { path, effects }
}

/// A type whose values refer to `target`, and what dropping one does (for the family files).
const fn handle(path: &'static str, target: Target, on_drop: Option<FreeKind>) -> ApiType {
    ApiType {
        path,
        role: TypeRole { target, on_drop },
    }
}

/// The role values of a type play.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TypeRole {
    /// What a value of the type refers to.
    pub target: Target,
    /// What dropping a value does to its memory (`None`: nothing the lints care about).
    pub on_drop: Option<FreeKind>,
}

/// A type and its role.
#[derive(Debug)]
pub struct ApiType {
    pub path: &'static str,
    pub role: TypeRole,
}

/// One API family: a crate (or part of one) and its tables.
#[derive(Debug)]
pub struct ApiFamily {
    pub name: &'static str,
    pub advice: Advice,
    /// Crate names whose items this family describes (as `extern crate` names).
    pub crates: &'static [&'static str],
    pub functions: &'static [ApiFn],
    pub types: &'static [ApiType],
    /// Modules whose functions are bindings named after the C symbols they call
    /// (`cudarc::driver::sys`). The C functions themselves are the shared table's
    /// ([`c_functions`]).
    pub symbol_modules: &'static [&'static str],
}

impl ApiFamily {
    /// Whether the family is a CUDA API (not the standard library).
    pub fn is_cuda(&self) -> bool {
        !std::ptr::eq(self, &std_lib::FAMILY)
    }

    /// Whether its advice is the one diagnostics give for the CUDA API in use: a CUDA API's
    /// (not the standard library's, not MPI's, whose operations carry their own, not the CUDA
    /// libraries', whose routines are waited for as the API in use waits for its streams).
    pub fn advises(&self) -> bool {
        self.is_cuda() && !std::ptr::eq(self, &mpi::FAMILY) && !std::ptr::eq(self, &libraries::FAMILY)
    }
}

/// Modules of bindings named after their C symbols that only older versions of a modelled crate
/// have (cudarc <= 0.19.4 put its dynamically loaded runtime API in `sys::loaded`): matched like
/// a family's `symbol_modules`, but not checked against the version the tables model
/// (`ui-tests/ui/table_paths/`).
pub static OLDER_SYMBOL_MODULES: &[&str] = &["cudarc::runtime::sys::loaded"];

/// Every family the analysis knows.
pub static FAMILIES: &[&ApiFamily] = &[
    &runtime::FAMILY,
    &cudarc_safe::FAMILY,
    &cuda_driver::FAMILY,
    &cuda_runtime::FAMILY,
    &std_lib::FAMILY,
    &mpi::FAMILY,
    &libraries::FAMILY,
];

/// All families, indexed by path.
/// A function's effects, and the family whose table lists it.
#[derive(Copy, Clone, Debug)]
pub struct Entry {
    pub effects: &'static [Effect],
    pub family: &'static ApiFamily,
}

pub struct Tables {
    functions: HashMap<&'static str, Entry>,
    types: HashMap<&'static str, TypeRole>,
    symbols: HashMap<&'static str, Entry>,
    symbol_modules: Vec<&'static str>,
    cuda_crates: Vec<&'static str>,
}

impl Tables {
    /// The tables of [`FAMILIES`], built once.
    pub fn get() -> &'static Tables {
        static TABLES: OnceLock<Tables> = OnceLock::new();
        TABLES.get_or_init(|| Tables::new(FAMILIES))
    }

    fn new(families: &[&'static ApiFamily]) -> Tables {
        let mut tables = Tables {
            functions: HashMap::new(),
            types: HashMap::new(),
            symbols: HashMap::new(),
            symbol_modules: Vec::new(),
            cuda_crates: Vec::new(),
        };
        for family in families {
            for f in family.functions {
                let entry = Entry {
                    effects: f.effects,
                    family,
                };
                let previous = tables.functions.insert(f.path, entry);
                debug_assert!(previous.is_none(), "{} is listed twice", f.path);
            }
            for t in family.types {
                tables.types.insert(t.path, t.role);
            }
            tables.symbol_modules.extend(family.symbol_modules);
            if family.is_cuda() {
                tables.cuda_crates.extend(family.crates);
            }
        }
        tables.symbol_modules.extend(OLDER_SYMBOL_MODULES);
        // The C functions, from the table the C++ front end reads too; built once, so their
        // effects live as long as the tables.
        for function in cuda_lint_c_api::functions() {
            let family = c_functions::family(function.family);
            for name in function.names {
                // Per name: a library's effects name the function called.
                let Some(effects) = c_functions::effects(function.effects, name) else {
                    continue;
                };
                let effects: &'static [Effect] = Vec::leak(effects);
                tables.symbols.insert(name, Entry { effects, family });
            }
        }
        tables
    }

    pub fn function(&self, path: &str) -> Option<Entry> {
        self.functions.get(path).copied()
    }

    /// A C function by its symbol name.
    pub fn symbol(&self, name: &str) -> Option<Entry> {
        self.symbols.get(name).copied()
    }

    /// Whether functions of the module at `path` are bindings named after C symbols.
    pub fn is_symbol_module(&self, path: &str) -> bool {
        self.symbol_modules.contains(&path)
    }

    pub fn type_role(&self, path: &str) -> Option<TypeRole> {
        self.types.get(path).copied()
    }

    /// Crates whose use makes a body worth analysing.
    pub fn is_cuda_crate(&self, name: &str) -> bool {
        self.cuda_crates.contains(&name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_effect_names_arguments_the_function_can_have() {
        // Argument numbers are checked against the paths' shapes by the UI tests; here, that the
        // tables build and that no path is listed twice across families.
        let mut seen = std::collections::HashSet::new();
        for family in FAMILIES {
            for f in family.functions {
                assert!(seen.insert(f.path), "{} listed twice", f.path);
                assert!(!f.effects.is_empty(), "{} has no effect", f.path);
            }
        }
        assert!(Tables::get().is_cuda_crate("cuda_lint_runtime"));
        // The C functions of the shared table, under each of their names.
        assert!(Tables::get().symbol("cuMemAlloc_v2").is_some());
        assert!(Tables::get().symbol("cudaMemcpy2DAsync").is_some());
        assert!(Tables::get().symbol("malloc").is_some_and(|e| !e.family.is_cuda()));
        assert!(!Tables::get().is_cuda_crate("alloc"));
    }
}
