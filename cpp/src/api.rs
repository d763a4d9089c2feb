//! What the C and C++ functions a host program calls do to memory, as data: the CUDA runtime
//! API, the driver API's copies and allocations, the C allocator. The interpreter reads only
//! this vocabulary.

use cuda_lint_machine::{Advice, Allocator, Dir, MemKind};

/// An argument position.
pub type Arg = usize;

/// What a call does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Effect {
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
    /// Returns memory of this kind whose allocator is not known (a function `cuda-lint.toml`
    /// describes with `returns(..)`).
    Returns {
        kind: MemKind,
    },
    /// Releases the memory of argument `mem`, made by `by`; `waits`: after the device's work.
    Free {
        mem: Arg,
        by: Allocator,
        waits: bool,
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
    /// Managed memory `mem` is attached (`cudaStreamAttachMemAsync`) as the `flags` argument says:
    /// to the host or one stream (`...AttachHost`, `...AttachSingle`), or to all (`...Global`).
    AttachMem {
        mem: Arg,
        flags: Arg,
        stream: Arg,
    },
    /// Asks whether a stream's / an event's work is done: polled in a loop, a wait.
    QueryStream(Arg),
    QueryEvent(Arg),
    /// Work on the stream is captured into a graph from here / until here (not run).
    BeginCapture(Arg),
    EndCapture(Arg),
    /// A copy: `dst`, `src`, the `cudaMemcpyKind` argument (`None`: the direction is fixed by
    /// `dir`), the stream (`None`: a blocking copy on the legacy stream, which the host waits for).
    Copy {
        dst: Arg,
        src: Arg,
        kind: Option<Arg>,
        dir: Dir,
        stream: Option<Arg>,
    },
    /// A memset of `dst` on `stream` (`None`: blocking).
    Memset {
        dst: Arg,
        stream: Option<Arg>,
    },
    /// Creates a stream where `out` points; `non_blocking_flags`: the flags argument.
    StreamCreate {
        out: Arg,
        flags: Option<Arg>,
    },
    /// Creates an event where `out` points.
    EventCreate {
        out: Arg,
    },
    SyncStream(Arg),
    SyncEvent(Arg),
    SyncDevice,
    RecordEvent {
        event: Arg,
        stream: Arg,
    },
    StreamWaitEvent {
        stream: Arg,
        event: Arg,
    },
    /// Page-locks host memory in place / undoes it.
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
    /// The device is granted access to the mappings at `va` (`cuMemSetAccess`).
    SetAccess {
        va: Arg,
    },
    /// The mappings at `va` are unmapped (`cuMemUnmap`); it does not wait for the device.
    Unmap {
        va: Arg,
    },
    /// The range at `va` is freed (`cuMemAddressFree`).
    AddressFree {
        va: Arg,
    },
}

use Effect::*;

/// The functions `cuda-lint.toml` describes (`[[functions]]`), for C++: a path matches a call
/// when the segments written at the call (`vendor::wait_all`, `wait_all`, `q.finish` as
/// `finish`) and the path's segments end alike, the shorter being the tail of the longer.
/// Argument positions count the call's arguments from 0; in a method call the object is 0.
#[derive(Clone, Debug, Default)]
pub struct Functions {
    by_path: Vec<(Vec<String>, Vec<Effect>)>,
}

impl Functions {
    /// The functions of a configuration, and a note for each effect C++ calls cannot take
    /// (`launch(..)`: a launch is the `<<<>>>` syntax, read with the kernel's source).
    pub fn from_config(
        functions: &std::collections::BTreeMap<String, Vec<cuda_lint_protocol::summary::Summary>>,
    ) -> (Functions, Vec<String>) {
        use cuda_lint_protocol::summary::{CopyDir, Summary};
        let mut out = Functions::default();
        let mut skipped = Vec::new();
        for (path, summaries) in functions {
            let mut effects = Vec::new();
            for summary in summaries {
                effects.push(match summary {
                    Summary::SyncStream(a) => SyncStream(*a as Arg),
                    Summary::SyncAll => SyncDevice,
                    Summary::Copy { dst, src, stream, dir } => Copy {
                        dst: *dst as Arg,
                        src: *src as Arg,
                        kind: None,
                        dir: match dir {
                            CopyDir::Infer => Dir::Unknown,
                            CopyDir::HostToDevice => Dir::HostToDevice,
                            CopyDir::DeviceToHost => Dir::DeviceToHost,
                            CopyDir::DeviceToDevice => Dir::DeviceToDevice,
                        },
                        stream: Some(*stream as Arg),
                    },
                    Summary::Returns(kind) => Returns { kind: *kind },
                    Summary::Launch { .. } => {
                        skipped.push(format!(
                            "cuda-lint.toml: `{summary}` of `{path}` is not applied to C++ calls (a C++ launch is read from its `<<<>>>` and the kernel's source)"
                        ));
                        continue;
                    }
                });
            }
            let segments = path.split("::").map(|s| s.trim().to_string()).collect();
            out.by_path.push((segments, effects));
        }
        (out, skipped)
    }

    /// The effects of the function written `written` at a call (`a::b::f`, `f`), if described.
    pub fn lookup(&self, written: &str) -> Option<&[Effect]> {
        let written: Vec<&str> = written.split("::").map(str::trim).collect();
        self.by_path
            .iter()
            .find(|(path, _)| {
                let n = path.len().min(written.len());
                n > 0
                    && path[path.len() - n..]
                        .iter()
                        .zip(&written[written.len() - n..])
                        .all(|(a, b)| a == b)
            })
            .map(|(_, e)| e.as_slice())
    }
}

const DEVICE: MemKind = MemKind::Device;
const PINNED: MemKind = MemKind::Pinned;
const MANAGED: MemKind = MemKind::Managed;
const PAGEABLE: MemKind = MemKind::Pageable;

/// The algorithms of the C++ standard library that read or write host memory through the
/// iterators (or pointers) they are given, called as `std::NAME`: `std::fill(v.begin(), ..)`
/// writes `v`'s memory, `std::accumulate(v.begin(), ..)` reads it.
pub fn std_algorithm(name: &str) -> Option<&'static [Effect]> {
    let e: &'static [Effect] = match name {
        "fill" | "fill_n" | "generate" | "generate_n" | "iota" | "uninitialized_fill" | "uninitialized_fill_n" => {
            &[HostAccess { mem: 0, write: true }]
        }
        "accumulate"
        | "reduce"
        | "count"
        | "count_if"
        | "find"
        | "find_if"
        | "find_if_not"
        | "max_element"
        | "min_element"
        | "minmax_element"
        | "all_of"
        | "any_of"
        | "none_of"
        | "for_each"
        | "equal"
        | "inner_product"
        | "transform_reduce"
        | "is_sorted"
        | "lexicographical_compare"
        | "mismatch" => &[HostAccess { mem: 0, write: false }],
        "copy" | "copy_n" | "copy_if" | "move" | "transform" | "uninitialized_copy" | "uninitialized_copy_n" => {
            &[HostAccess { mem: 0, write: false }, HostAccess { mem: 2, write: true }]
        }
        "sort" | "stable_sort" | "partial_sort" | "nth_element" | "reverse" | "shuffle" | "rotate" | "unique" => {
            &[HostAccess { mem: 0, write: false }, HostAccess { mem: 0, write: true }]
        }
        _ => return None,
    };
    Some(e)
}

/// The functions known, by name (C names: no namespaces, no overloading).
pub fn effects(name: &str) -> Option<&'static [Effect]> {
    let e: &'static [Effect] = match name {
        "cudaMalloc" | "cudaMallocPitch" => &[AllocOut {
            out: 0,
            kind: DEVICE,
            by: Allocator::Device,
        }],
        "cudaMallocAsync" | "cuMemAllocAsync" | "cudaMallocFromPoolAsync" | "cuMemAllocFromPoolAsync" => &[AllocOut {
            out: 0,
            kind: DEVICE,
            by: Allocator::Device,
        }],
        "cudaMallocManaged" => &[AllocOut {
            out: 0,
            kind: MANAGED,
            by: Allocator::Device,
        }],
        "cudaMallocHost" | "cudaHostAlloc" => &[AllocOut {
            out: 0,
            kind: PINNED,
            by: Allocator::PinnedHost,
        }],
        "cuMemAlloc" | "cuMemAlloc_v2" | "cuMemAllocPitch" | "cuMemAllocPitch_v2" => &[AllocOut {
            out: 0,
            kind: DEVICE,
            by: Allocator::Device,
        }],
        // The address of a `__device__` variable: device memory no one may free.
        "cudaGetSymbolAddress" | "cuModuleGetGlobal" | "cuModuleGetGlobal_v2" => &[AllocOut {
            out: 0,
            kind: DEVICE,
            by: Allocator::ModuleGlobal,
        }],
        "cuMemAllocHost" | "cuMemAllocHost_v2" | "cuMemHostAlloc" => &[AllocOut {
            out: 0,
            kind: PINNED,
            by: Allocator::PinnedHost,
        }],
        "cuMemAllocManaged" => &[AllocOut {
            out: 0,
            kind: MANAGED,
            by: Allocator::Device,
        }],
        "malloc" | "calloc" | "realloc" | "aligned_alloc" | "memalign" | "valloc" | "pvalloc" | "_aligned_malloc" => {
            &[AllocRet {
                kind: PAGEABLE,
                by: Allocator::CHeap,
            }]
        }
        // `posix_memalign(&p, alignment, size)`: C heap memory, released by `free`.
        "posix_memalign" => &[AllocOut {
            out: 0,
            kind: PAGEABLE,
            by: Allocator::CHeap,
        }],
        "cudaFree" | "cuMemFree" | "cuMemFree_v2" => &[Free {
            mem: 0,
            by: Allocator::Device,
            waits: true,
        }],
        "cudaFreeAsync" | "cuMemFreeAsync" => &[FreeOnStream { mem: 0, stream: 1 }],
        "cudaStreamQuery" | "cuStreamQuery" => &[QueryStream(0)],
        "cudaEventQuery" | "cuEventQuery" => &[QueryEvent(0)],
        "cudaStreamBeginCapture"
        | "cudaStreamBeginCaptureToGraph"
        | "cuStreamBeginCapture"
        | "cuStreamBeginCapture_v2" => &[BeginCapture(0)],
        "cudaStreamEndCapture" | "cuStreamEndCapture" => &[EndCapture(0)],
        "cudaFreeHost" | "cuMemFreeHost" => &[Free {
            mem: 0,
            by: Allocator::PinnedHost,
            waits: true,
        }],
        "free" => &[Free {
            mem: 0,
            by: Allocator::CHeap,
            waits: false,
        }],
        "cudaMemcpy" => &[Copy {
            dst: 0,
            src: 1,
            kind: Some(3),
            dir: Dir::Unknown,
            stream: None,
        }],
        "cudaMemcpyAsync" => &[Copy {
            dst: 0,
            src: 1,
            kind: Some(3),
            dir: Dir::Unknown,
            stream: Some(4),
        }],
        "cuMemcpyHtoD" | "cuMemcpyHtoD_v2" => &[Copy {
            dst: 0,
            src: 1,
            kind: None,
            dir: Dir::HostToDevice,
            stream: None,
        }],
        "cuMemcpyDtoH" | "cuMemcpyDtoH_v2" => &[Copy {
            dst: 0,
            src: 1,
            kind: None,
            dir: Dir::DeviceToHost,
            stream: None,
        }],
        "cuMemcpyHtoDAsync" | "cuMemcpyHtoDAsync_v2" => &[Copy {
            dst: 0,
            src: 1,
            kind: None,
            dir: Dir::HostToDevice,
            stream: Some(3),
        }],
        "cuMemcpyDtoHAsync" | "cuMemcpyDtoHAsync_v2" => &[Copy {
            dst: 0,
            src: 1,
            kind: None,
            dir: Dir::DeviceToHost,
            stream: Some(3),
        }],
        "cudaMemcpy2D" => &[Copy {
            dst: 0,
            src: 2,
            kind: Some(6),
            dir: Dir::Unknown,
            stream: None,
        }],
        "cudaMemcpy2DAsync" => &[Copy {
            dst: 0,
            src: 2,
            kind: Some(6),
            dir: Dir::Unknown,
            stream: Some(7),
        }],
        // The symbol is a `__device__` variable; the kind may be left out (its default).
        "cudaMemcpyToSymbol" => &[Copy {
            dst: 0,
            src: 1,
            kind: Some(4),
            dir: Dir::HostToDevice,
            stream: None,
        }],
        "cudaMemcpyToSymbolAsync" => &[Copy {
            dst: 0,
            src: 1,
            kind: Some(4),
            dir: Dir::HostToDevice,
            stream: Some(5),
        }],
        "cudaMemcpyFromSymbol" => &[Copy {
            dst: 0,
            src: 1,
            kind: Some(4),
            dir: Dir::DeviceToHost,
            stream: None,
        }],
        "cudaMemcpyFromSymbolAsync" => &[Copy {
            dst: 0,
            src: 1,
            kind: Some(4),
            dir: Dir::DeviceToHost,
            stream: Some(5),
        }],
        "cudaMemcpyPeer" => &[Copy {
            dst: 0,
            src: 2,
            kind: None,
            dir: Dir::DeviceToDevice,
            stream: None,
        }],
        "cudaMemcpyPeerAsync" => &[Copy {
            dst: 0,
            src: 2,
            kind: None,
            dir: Dir::DeviceToDevice,
            stream: Some(5),
        }],
        "cuMemcpy" => &[Copy {
            dst: 0,
            src: 1,
            kind: None,
            dir: Dir::Unknown,
            stream: None,
        }],
        "cuMemcpyAsync" => &[Copy {
            dst: 0,
            src: 1,
            kind: None,
            dir: Dir::Unknown,
            stream: Some(3),
        }],
        "cuMemcpyDtoD" | "cuMemcpyDtoD_v2" => &[Copy {
            dst: 0,
            src: 1,
            kind: None,
            dir: Dir::DeviceToDevice,
            stream: None,
        }],
        "cuMemcpyDtoDAsync" | "cuMemcpyDtoDAsync_v2" => &[Copy {
            dst: 0,
            src: 1,
            kind: None,
            dir: Dir::DeviceToDevice,
            stream: Some(3),
        }],
        "cuMemsetD8" | "cuMemsetD8_v2" | "cuMemsetD16" | "cuMemsetD16_v2" | "cuMemsetD32" | "cuMemsetD32_v2"
        | "cuMemsetD2D8" | "cuMemsetD2D8_v2" | "cuMemsetD2D16" | "cuMemsetD2D16_v2" | "cuMemsetD2D32"
        | "cuMemsetD2D32_v2" | "cudaMemset2D" => &[Memset { dst: 0, stream: None }],
        "cuMemsetD8Async" | "cuMemsetD16Async" | "cuMemsetD32Async" => &[Memset {
            dst: 0,
            stream: Some(3),
        }],
        "cuMemsetD2D8Async" | "cuMemsetD2D16Async" | "cuMemsetD2D32Async" | "cudaMemset2DAsync" => &[Memset {
            dst: 0,
            stream: Some(5),
        }],
        // The C library on the host: reads and writes of host memory.
        "memcpy" | "memmove" => &[HostAccess { mem: 1, write: false }, HostAccess { mem: 0, write: true }],
        "memset" => &[HostAccess { mem: 0, write: true }],
        "cudaStreamAttachMemAsync" | "cuStreamAttachMemAsync" => &[AttachMem {
            mem: 1,
            flags: 3,
            stream: 0,
        }],
        "cudaMemset" => &[Memset { dst: 0, stream: None }],
        "cudaMemsetAsync" => &[Memset {
            dst: 0,
            stream: Some(3),
        }],
        "cudaStreamCreate" => &[StreamCreate { out: 0, flags: None }],
        "cudaStreamCreateWithFlags" | "cudaStreamCreateWithPriority" => &[StreamCreate { out: 0, flags: Some(1) }],
        "cuStreamCreate" | "cuStreamCreateWithPriority" => &[StreamCreate { out: 0, flags: Some(1) }],
        "cudaEventCreate" | "cudaEventCreateWithFlags" | "cuEventCreate" => &[EventCreate { out: 0 }],
        "cudaStreamSynchronize" | "cuStreamSynchronize" => &[SyncStream(0)],
        "cudaEventSynchronize" | "cuEventSynchronize" => &[SyncEvent(0)],
        "cudaDeviceSynchronize" | "cudaThreadSynchronize" | "cuCtxSynchronize" | "cudaDeviceReset" => &[SyncDevice],
        "cudaEventRecord" | "cuEventRecord" | "cudaEventRecordWithFlags" | "cuEventRecordWithFlags" => {
            &[RecordEvent { event: 0, stream: 1 }]
        }
        "cudaStreamWaitEvent" | "cuStreamWaitEvent" => &[StreamWaitEvent { stream: 0, event: 1 }],
        "cudaHostRegister" | "cuMemHostRegister" | "cuMemHostRegister_v2" => &[Register(0)],
        "cudaHostUnregister" | "cuMemHostUnregister" => &[Unregister(0)],
        "cuMemCreate" => &[PhysicalOut { out: 0 }],
        "cuMemAddressReserve" => &[ReserveOut { out: 0 }],
        "cuMemMap" => &[MapAt { va: 0, physical: 3 }],
        "cuMemSetAccess" => &[SetAccess { va: 0 }],
        "cuMemUnmap" => &[Unmap { va: 0 }],
        "cuMemAddressFree" => &[AddressFree { va: 0 }],
        _ => return None,
    };
    Some(e)
}

/// `cudaMemcpyKind` by name.
pub fn copy_kind(name: &str) -> Option<Dir> {
    match name {
        "cudaMemcpyHostToDevice" => Some(Dir::HostToDevice),
        "cudaMemcpyDeviceToHost" => Some(Dir::DeviceToHost),
        "cudaMemcpyDeviceToDevice" => Some(Dir::DeviceToDevice),
        "cudaMemcpyDefault" | "cudaMemcpyHostToHost" => Some(Dir::Unknown),
        _ => None,
    }
}

/// How CUDA C++ programs fix what the lints find.
pub static ADVICE: Advice = Advice {
    pinned: "allocate the host buffer with `cudaMallocHost` (or `cudaHostAlloc`), or page-lock it in \
             place with `cudaHostRegister`",
    pinned_readback: "read back into pinned memory that is not write-combined: `cudaMallocHost`, or \
                      `cudaHostAlloc` without `cudaHostAllocWriteCombined`",
    sync_stream: "`cudaStreamSynchronize({stream})`",
    order_streams: "record an event after the first work (`cudaEventRecord`) and make the other stream \
                    wait for it (`cudaStreamWaitEvent`)",
    copy_to_host: "copy it to host memory first (`cudaMemcpy(..., cudaMemcpyDeviceToHost)`)",
    copy_to_device: "copy host data to it with `cudaMemcpy(..., cudaMemcpyHostToDevice)`",
    sync_statement: None,
    error_type: "",
};
