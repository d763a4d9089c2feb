//! The C functions a CUDA host program calls, and what each does to memory, streams and
//! events, as data: the CUDA runtime API (`runtime.rs`), the driver API (`driver.rs`) and the C
//! allocator and memory functions (`c_heap.rs`), and CUDA-aware MPI (`mpi.rs`).
//!
//! Both front ends read this one table: the C++ front end applies it to calls by name, and the
//! Rust front end to `extern "C"` functions and the bindings named after the C symbols
//! (`cudarc::driver::sys::cuMemAlloc_v2`), translated into its own vocabulary
//! (`lint/src/api/c_functions.rs`). A function's semantics is written here once, and both front
//! ends know the same set.
//!
//! Argument positions follow the C signatures of `cuda_runtime_api.h`, `cuda.h` and the C
//! library, counted from 0. A function is listed under every name a program may call it by:
//! `cuda.h` makes `cuMemAlloc` a macro for the symbol `cuMemAlloc_v2`, so both are listed.

mod c_heap;
mod driver;
mod libraries;
mod mpi;
mod runtime;

use std::collections::HashMap;
use std::sync::OnceLock;

pub use cuda_lint_machine::{Advice, Allocator, Dir, MemKind};

/// An argument position.
pub type Arg = usize;

/// Which API a function belongs to (its advice, in the front ends' words, follows it).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// The CUDA runtime API (`cudaMalloc`, `cudaMemcpyAsync`).
    Runtime,
    /// The CUDA driver API (`cuMemAlloc`, `cuMemcpyHtoDAsync`, VMM).
    Driver,
    /// The C library's allocator and memory functions (`malloc`, `free`, `memcpy`).
    CHeap,
    /// CUDA-aware MPI (`MPI_Send`, `MPI_Irecv`, `MPI_Wait`).
    Mpi,
    /// The CUDA libraries whose routines are work on a stream (cuBLAS, cuBLASLt, cuFFT, cuRAND,
    /// cuDNN, NCCL).
    Library,
}

/// One thing a call does; a call may do several, in order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Effect {
    /// Touches no memory, stream or event the lints follow (device queries, error strings,
    /// prefetches and advice, destroying a stream or event, which waits for nothing).
    NoAccess,
    /// Stores new memory of this kind where argument `out` points (`cudaMalloc(&p, n)`).
    AllocOut {
        out: Arg,
        kind: MemKind,
        by: Allocator,
    },
    /// Returns new memory of this kind (`malloc(n)`).
    AllocRet {
        kind: MemKind,
        by: Allocator,
    },
    /// Returns memory of this kind whose allocator is not known (a user's function described by
    /// `cuda-lint.toml`; never in the C tables).
    Returns {
        kind: MemKind,
    },
    /// The memory just made belongs to the stream `Arg` (`cudaMallocAsync`): made and freed in
    /// its order.
    AllocatedOn(Arg),
    /// The pinned memory just made is write-combined when the constant flags argument `flags`
    /// has `cudaHostAllocWriteCombined` / `CU_MEMHOSTALLOC_WRITECOMBINED` (4) set.
    WriteCombinedIf {
        flags: Arg,
    },
    /// The managed memory just made is attached as the constant flags argument `flags` says
    /// (`cudaMemAttachGlobal` = 1: to all streams; `cudaMemAttachHost` = 2: to the host).
    AttachNew {
        flags: Arg,
    },
    /// Managed memory `mem` is attached (`cudaStreamAttachMemAsync`) as the `flags` argument
    /// says: to the host or one stream (`...AttachHost`, `...AttachSingle`), or to all
    /// (`...Global`), in the order of `stream`.
    AttachMem {
        mem: Arg,
        flags: Arg,
        stream: Arg,
    },
    /// Releases the memory of argument `mem`, which `by` must have made; `waits_implicitly`:
    /// after the device's work, by a synchronization the driver performs but no documentation
    /// promises (`cudaFree`: "may perform implicit synchronization"), else at once (`free`).
    Free {
        mem: Arg,
        by: Allocator,
        waits_implicitly: bool,
    },
    /// Releases device memory in the order of `stream` (`cudaFreeAsync`).
    FreeOnStream {
        mem: Arg,
        stream: Arg,
    },
    /// The host reads (`write`: writes) the memory argument `mem` points to (`memcpy`,
    /// `memset`).
    HostAccess {
        mem: Arg,
        write: bool,
    },
    /// A library that takes host and device memory alike reads (`write`: writes) the memory
    /// argument `mem` points to on the host's timeline, before the call returns, in no stream's
    /// order (CUDA-aware MPI's `MPI_Send`, `MPI_Recv`, collectives).
    UsedByLibrary {
        mem: Arg,
        write: bool,
    },
    /// Starts a nonblocking library operation (`MPI_Isend`, `MPI_Irecv`, `MPI_Iallreduce`) that
    /// reads the memory argument `reads` points to and writes what `writes` points to, from the
    /// call until the request stored where `request` points is completed.
    StartsRequest {
        reads: Option<Arg>,
        writes: Option<Arg>,
        request: Arg,
    },
    /// Completes the requests argument `requests` points to: one (`MPI_Wait`), or, with
    /// `array`, the elements of an array of them (`MPI_Waitall(count, requests, ..)`).
    CompletesRequests {
        requests: Arg,
        array: bool,
    },
    /// Asks whether the requests argument `requests` points to are complete (`MPI_Test`), setting
    /// the flag `flag` points to: polled in a loop until the flag says they are, a completion.
    TestsRequests {
        requests: Arg,
        flag: Arg,
    },
    /// The device's address of mapped pinned memory `host` is stored where `out` points
    /// (`cudaHostGetDevicePointer`): the same memory, seen from the device.
    DevicePointerOf {
        out: Arg,
        host: Arg,
    },
    /// A copy from `src` to `dst`. The direction is the `cudaMemcpyKind` argument `kind` where
    /// there is one and `dir` is [`Dir::Unknown`]; else `dir`. On `stream`, returning before it
    /// completes; `None`: on the legacy default stream, after that stream's earlier work, and
    /// the call returns once the copy is done.
    Copy {
        dst: Arg,
        src: Arg,
        kind: Option<Arg>,
        dir: Dir,
        stream: Option<Arg>,
    },
    /// A batch of copies (`cudaMemcpyBatchAsync`): `dsts` and `srcs` point to arrays of
    /// pointers, `attrs` to the copies' attributes; the stream is the last argument.
    BatchCopy {
        dsts: Arg,
        srcs: Arg,
        attrs: Arg,
    },
    /// Every allocation of the context is released (`cudaDeviceReset`, `cuCtxDestroy`).
    ReleasesAll,
    /// The memory just made holds argument `bytes` bytes, times argument `times` where there
    /// is one (`calloc(n, size)`).
    Holds {
        bytes: Arg,
        times: Option<Arg>,
    },
    /// The copy or memset covers argument `count` elements of `unit` bytes, from the start of
    /// its destination and of its source (`cudaMemcpy`'s `count`, `cuMemsetD32`'s `N`).
    Covers {
        count: Arg,
        unit: u8,
    },
    /// A memset of `dst` on `stream` (`None`: blocking, on the legacy default stream).
    Memset {
        dst: Arg,
        stream: Option<Arg>,
    },
    /// Creates a stream where `out` points; `flags`: the flags argument, whose
    /// `cudaStreamNonBlocking` / `CU_STREAM_NON_BLOCKING` (1) makes it non-blocking (`None`: a
    /// blocking stream).
    StreamCreate {
        out: Arg,
        flags: Option<Arg>,
    },
    /// Creates an event where `out` points.
    EventCreate {
        out: Arg,
    },
    /// Creates (or retains) a context where `out` points.
    ContextOut {
        out: Arg,
    },
    /// Waits for all work on a stream.
    SyncStream(Arg),
    /// Waits for the work recorded before an event.
    SyncEvent(Arg),
    /// Waits for all work of the device (the current context).
    SyncDevice,
    /// Asks whether a stream's / an event's work is done, without waiting: polled in a loop
    /// until it is, a wait.
    QueryStream(Arg),
    QueryEvent(Arg),
    /// Records an event on a stream.
    RecordEvent {
        event: Arg,
        stream: Arg,
    },
    /// Makes a stream wait for an event (orders the device, not the host).
    StreamWaitEvent {
        stream: Arg,
        event: Arg,
    },
    /// A library handle (`cublasHandle_t`, `cufftHandle`, `cudnnHandle_t`, `curandGenerator_t`)
    /// is stored where `out` points; its routines run on the legacy default stream until
    /// [`Effect::SetHandleStream`].
    HandleOut {
        out: Arg,
    },
    /// The handle's routines run on `stream` from here on (`cublasSetStream`).
    SetHandleStream {
        handle: Arg,
        stream: Arg,
    },
    /// The handle's scalar results go where `mode` says (`cublasSetPointerMode`:
    /// `CUBLAS_POINTER_MODE_DEVICE`, 1, makes them device memory written on the stream).
    SetPointerMode {
        handle: Arg,
        mode: Arg,
    },
    /// A library routine: work on the handle's stream or on an explicit stream (`on`), that
    /// reads the memory `reads` point to and writes what `writes` point to, asynchronously.
    /// `result`: a scalar result written where it points, on the stream when that is device
    /// memory; into host memory the call returns only once it is written (cuBLAS's host
    /// pointer mode), which waits for the stream.
    LibraryWork {
        on: On,
        reads: &'static [Arg],
        writes: &'static [Arg],
        result: Option<Arg>,
    },
    /// Work on the stream is captured into a graph from here / until here (not run).
    BeginCapture(Arg),
    EndCapture(Arg),
    /// The graph the capture just ended made is stored where `out` points
    /// (`cudaStreamEndCapture(stream, &graph)`).
    GraphOut {
        out: Arg,
    },
    /// An executable graph of `graph` is stored where `out` points (`cudaGraphInstantiate`).
    Instantiate {
        out: Arg,
        graph: Arg,
    },
    /// The executable graph `exec` is launched on `stream`: its captured work runs there.
    GraphLaunch {
        exec: Arg,
        stream: Arg,
    },
    /// The thread's capture mode is exchanged with the one `Arg` points to
    /// (`cudaThreadExchangeStreamCaptureMode`: relaxed, mostly).
    CaptureModeExchange(Arg),
    /// A kernel launch on `stream`, with its arguments in the array `args`.
    Launch {
        kernel: Arg,
        stream: Arg,
        args: Arg,
    },
    /// A module is loaded where `out` points, from the image in `image` (PTX text or cubin; `None`:
    /// from a file).
    LoadModule {
        out: Arg,
        image: Option<Arg>,
    },
    /// The kernel named `name` of `module` is stored where `out` points.
    GetFunction {
        out: Arg,
        module: Arg,
        name: Arg,
    },
    /// Page-locks host memory in place / undoes it (which waits for the work using it).
    Register(Arg),
    Unregister(Arg),
    /// A VMM physical allocation is stored where `out` points (`cuMemCreate`).
    PhysicalOut {
        out: Arg,
    },
    /// A VMM address range is stored where `out` points (`cuMemAddressReserve`).
    ReserveOut {
        out: Arg,
    },
    /// The range at `va` maps the physical allocation `physical` (`cuMemMap`).
    MapAt {
        va: Arg,
        physical: Arg,
    },
    /// The device is granted access to the mappings at `va` (`cuMemSetAccess`); a mapping
    /// starts with none.
    SetAccess {
        va: Arg,
    },
    /// The mappings at `va` are unmapped (`cuMemUnmap`); it does not wait for the device.
    Unmap {
        va: Arg,
    },
    /// The range at `va` is freed (`cuMemAddressFree`): it must no longer be mapped.
    AddressFree {
        va: Arg,
    },
}

/// Where a library routine runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum On {
    /// On the stream of the handle argument (cuBLAS, cuFFT, cuRAND, cuDNN).
    Handle(Arg),
    /// On the stream argument (NCCL, `cublasLtMatmul`).
    Stream(Arg),
}

impl On {
    pub fn arg(self) -> Arg {
        match self {
            On::Handle(a) | On::Stream(a) => a,
        }
    }
}

/// A C function: the names it is called by, its API, its greatest number of arguments (C++
/// overloads included), and what a call does.
#[derive(Debug)]
pub struct Function {
    pub names: &'static [&'static str],
    pub family: Family,
    pub arity: usize,
    pub effects: &'static [Effect],
}

/// Every function of the tables.
pub fn functions() -> impl Iterator<Item = &'static Function> {
    runtime::FUNCTIONS
        .iter()
        .chain(driver::FUNCTIONS)
        .chain(c_heap::FUNCTIONS)
        .chain(mpi::FUNCTIONS)
        .chain(libraries::FUNCTIONS)
}

/// The function called `name` (any of its names), if the tables know it.
pub fn lookup(name: &str) -> Option<&'static Function> {
    static BY_NAME: OnceLock<HashMap<&'static str, &'static Function>> = OnceLock::new();
    BY_NAME
        .get_or_init(|| functions().flat_map(|f| f.names.iter().map(move |n| (*n, f))).collect())
        .get(name)
        .copied()
}

/// What a call to `name` does, if the tables know it.
pub fn effects(name: &str) -> Option<&'static [Effect]> {
    lookup(name).map(|f| f.effects)
}

/// A `cudaMemcpyKind` by name: `cudaMemcpyDefault` leaves the direction to the kinds of the two
/// sides.
pub fn memcpy_kind(name: &str) -> Option<Dir> {
    match name {
        "cudaMemcpyHostToDevice" => Some(Dir::HostToDevice),
        "cudaMemcpyDeviceToHost" => Some(Dir::DeviceToHost),
        "cudaMemcpyDeviceToDevice" => Some(Dir::DeviceToDevice),
        "cudaMemcpyHostToHost" => Some(Dir::HostToHost),
        "cudaMemcpyDefault" => Some(Dir::Unknown),
        _ => None,
    }
}

/// How MPI's findings tell the fix, in both front ends: MPI's calls are the same C functions in
/// C++ and through Rust's bindings. Operations it starts run "on" their request, which
/// `sync_stream` completes.
pub const MPI_ADVICE: Advice = Advice {
    pinned: "",
    pinned_readback: "",
    sync_stream: "`MPI_Wait` on the request `{stream}` (or `MPI_Waitall` over its array)",
    order_streams: "complete its request (`MPI_Wait`, `MPI_Waitall`) before enqueuing the work: CUDA \
                    waits do not complete MPI requests",
    copy_to_host: "",
    copy_to_device: "",
    sync_statement: None,
    error_type: "",
};

/// `cudaHostAllocWriteCombined`, `CU_MEMHOSTALLOC_WRITECOMBINED`.
pub const WRITE_COMBINED_BIT: u32 = 0x04;
/// `cudaStreamNonBlocking`, `CU_STREAM_NON_BLOCKING`.
pub const NON_BLOCKING_BIT: u32 = 0x01;

impl Effect {
    /// The argument positions the effect names.
    pub fn args(&self) -> Vec<Arg> {
        use Effect::*;
        match *self {
            NoAccess | AllocRet { .. } | Returns { .. } | SyncDevice | ReleasesAll => vec![],
            AllocOut { out, .. }
            | StreamCreate { out, flags: None }
            | EventCreate { out }
            | ContextOut { out }
            | PhysicalOut { out }
            | ReserveOut { out }
            | HandleOut { out }
            | LoadModule { out, image: None } => vec![out],
            SetHandleStream { handle, stream } => vec![handle, stream],
            SetPointerMode { handle, mode } => vec![handle, mode],
            Instantiate { out, graph } => vec![out, graph],
            GraphLaunch { exec, stream } => vec![exec, stream],
            LibraryWork {
                on,
                reads,
                writes,
                result,
            } => std::iter::once(on.arg())
                .chain(reads.iter().copied())
                .chain(writes.iter().copied())
                .chain(result)
                .collect(),
            StreamCreate { out, flags: Some(f) } => vec![out, f],
            LoadModule { out, image: Some(i) } => vec![out, i],
            AllocatedOn(a)
            | SyncStream(a)
            | SyncEvent(a)
            | QueryStream(a)
            | QueryEvent(a)
            | BeginCapture(a)
            | EndCapture(a)
            | CaptureModeExchange(a)
            | GraphOut { out: a }
            | Register(a)
            | Unregister(a)
            | CompletesRequests { requests: a, .. } => vec![a],
            TestsRequests { requests, flag } => vec![requests, flag],
            WriteCombinedIf { flags } | AttachNew { flags } => vec![flags],
            AttachMem { mem, flags, stream } => vec![mem, flags, stream],
            Free { mem, .. } | HostAccess { mem, .. } | UsedByLibrary { mem, .. } => vec![mem],
            StartsRequest { reads, writes, request } => [reads, writes, Some(request)].into_iter().flatten().collect(),
            FreeOnStream { mem, stream } => vec![mem, stream],
            DevicePointerOf { out, host } => vec![out, host],
            Copy {
                dst, src, kind, stream, ..
            } => [Some(dst), Some(src), kind, stream].into_iter().flatten().collect(),
            BatchCopy { dsts, srcs, attrs } => vec![dsts, srcs, attrs],
            Memset { dst, stream } => [Some(dst), stream].into_iter().flatten().collect(),
            Holds { bytes, times } => [Some(bytes), times].into_iter().flatten().collect(),
            Covers { count, .. } => vec![count],
            RecordEvent { event, stream } | StreamWaitEvent { stream, event } => vec![event, stream],
            Launch { kernel, stream, args } => vec![kernel, stream, args],
            GetFunction { out, module, name } => vec![out, module, name],
            MapAt { va, physical } => vec![va, physical],
            SetAccess { va } | Unmap { va } | AddressFree { va } => vec![va],
        }
    }
}

const fn function(
    family: Family,
    names: &'static [&'static str],
    arity: usize,
    effects: &'static [Effect],
) -> Function {
    Function {
        names,
        family,
        arity,
        effects,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_listed_once_and_every_effect_names_an_argument_the_function_has() {
        let mut seen = std::collections::HashSet::new();
        for f in functions() {
            assert!(!f.effects.is_empty(), "{:?} has no effect", f.names);
            for n in f.names {
                assert!(seen.insert(*n), "{n} is listed twice");
            }
            for e in f.effects {
                for a in e.args() {
                    assert!(a < f.arity, "{:?}: {e:?} names argument {a} of {}", f.names, f.arity);
                }
            }
        }
        assert!(seen.len() > 190, "{} names", seen.len());
    }

    #[test]
    fn aliases_of_the_driver_api_are_one_function() {
        assert!(std::ptr::eq(
            lookup("cuMemAlloc").unwrap(),
            lookup("cuMemAlloc_v2").unwrap()
        ));
        assert_eq!(lookup("cuMemAlloc").unwrap().family, Family::Driver);
        assert_eq!(lookup("malloc").unwrap().family, Family::CHeap);
        assert!(lookup("cudaLaunchKernelEx_not_a_function").is_none());
    }
}
