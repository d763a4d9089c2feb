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

const DEVICE: MemKind = MemKind::Device;
const PINNED: MemKind = MemKind::Pinned;
const MANAGED: MemKind = MemKind::Managed;
const PAGEABLE: MemKind = MemKind::Pageable;

/// The functions known, by name (C names: no namespaces, no overloading).
pub fn effects(name: &str) -> Option<&'static [Effect]> {
    let e: &'static [Effect] = match name {
        "cudaMalloc" | "cudaMallocPitch" => &[AllocOut {
            out: 0,
            kind: DEVICE,
            by: Allocator::Device,
        }],
        "cudaMallocAsync" => &[AllocOut {
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
        "cuMemAlloc" | "cuMemAlloc_v2" => &[AllocOut {
            out: 0,
            kind: DEVICE,
            by: Allocator::Device,
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
        "malloc" | "calloc" | "realloc" | "aligned_alloc" => &[AllocRet {
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
        "cudaMemset" => &[Memset { dst: 0, stream: None }],
        "cudaMemsetAsync" => &[Memset {
            dst: 0,
            stream: Some(3),
        }],
        "cudaStreamCreate" => &[StreamCreate { out: 0, flags: None }],
        "cudaStreamCreateWithFlags" => &[StreamCreate { out: 0, flags: Some(1) }],
        "cuStreamCreate" => &[StreamCreate { out: 0, flags: Some(1) }],
        "cudaEventCreate" | "cudaEventCreateWithFlags" | "cuEventCreate" => &[EventCreate { out: 0 }],
        "cudaStreamSynchronize" | "cuStreamSynchronize" => &[SyncStream(0)],
        "cudaEventSynchronize" | "cuEventSynchronize" => &[SyncEvent(0)],
        "cudaDeviceSynchronize" | "cudaThreadSynchronize" | "cuCtxSynchronize" | "cudaDeviceReset" => &[SyncDevice],
        "cudaEventRecord" | "cuEventRecord" => &[RecordEvent { event: 0, stream: 1 }],
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
