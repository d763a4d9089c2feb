//! The CUDA runtime API (`cuda_runtime_api.h`): argument positions of its C signatures (and of
//! the C++ overloads of `cuda_runtime.h`, where they add arguments).

use crate::Effect::*;
use crate::{Allocator, Dir, Family, Function, MemKind};

const fn rt(names: &'static [&'static str], arity: usize, effects: &'static [crate::Effect]) -> Function {
    crate::function(Family::Runtime, names, arity, effects)
}

const DEVICE: MemKind = MemKind::Device;

pub(crate) static FUNCTIONS: &[Function] = &[
    // Devices, errors, queries: nothing the lints follow.
    rt(&["cudaSetDevice"], 1, &[NoAccess]),
    rt(&["cudaGetDevice"], 1, &[NoAccess]),
    rt(&["cudaGetDeviceCount"], 1, &[NoAccess]),
    rt(&["cudaSetDeviceFlags"], 1, &[NoAccess]),
    rt(
        &["cudaGetDeviceProperties", "cudaGetDeviceProperties_v2"],
        2,
        &[NoAccess],
    ),
    rt(&["cudaDeviceGetAttribute"], 3, &[NoAccess]),
    rt(&["cudaDeviceSetLimit"], 2, &[NoAccess]),
    rt(&["cudaDeviceCanAccessPeer"], 3, &[NoAccess]),
    rt(&["cudaDeviceEnablePeerAccess"], 2, &[NoAccess]),
    rt(&["cudaFuncSetAttribute"], 3, &[NoAccess]),
    rt(&["cudaGetLastError"], 0, &[NoAccess]),
    rt(&["cudaPeekAtLastError"], 0, &[NoAccess]),
    rt(&["cudaGetErrorString"], 1, &[NoAccess]),
    rt(&["cudaGetErrorName"], 1, &[NoAccess]),
    rt(&["cudaMemGetInfo"], 2, &[NoAccess]),
    rt(&["cudaPointerGetAttributes"], 2, &[NoAccess]),
    // Hints: where managed memory should live; they move pages, not contents.
    rt(&["cudaMemPrefetchAsync", "cudaMemPrefetchAsync_v2"], 5, &[NoAccess]),
    rt(&["cudaMemAdvise", "cudaMemAdvise_v2"], 4, &[NoAccess]),
    // The whole device waits.
    rt(&["cudaDeviceSynchronize", "cudaThreadSynchronize"], 0, &[SyncDevice]),
    rt(&["cudaDeviceReset", "cudaThreadExit"], 0, &[SyncDevice, ReleasesAll]),
    // Allocation and release.
    rt(
        &["cudaMalloc"],
        2,
        &[
            AllocOut {
                out: 0,
                kind: DEVICE,
                by: Allocator::Device,
            },
            Holds { bytes: 1, times: None },
        ],
    ),
    rt(
        &["cudaMallocPitch"],
        4,
        &[AllocOut {
            out: 0,
            kind: DEVICE,
            by: Allocator::Device,
        }],
    ),
    rt(
        &["cudaMallocAsync"],
        3,
        &[
            AllocOut {
                out: 0,
                kind: DEVICE,
                by: Allocator::Device,
            },
            AllocatedOn(2),
            Holds { bytes: 1, times: None },
        ],
    ),
    rt(
        &["cudaMallocFromPoolAsync"],
        4,
        &[
            AllocOut {
                out: 0,
                kind: DEVICE,
                by: Allocator::Device,
            },
            AllocatedOn(3),
            Holds { bytes: 1, times: None },
        ],
    ),
    rt(
        &["cudaMallocManaged"],
        3,
        &[
            AllocOut {
                out: 0,
                kind: MemKind::Managed,
                by: Allocator::Device,
            },
            AttachNew { flags: 2 },
            Holds { bytes: 1, times: None },
        ],
    ),
    // `cudaMallocHost(&p, n, flags)` is `cuda_runtime.h`'s C++ overload: `cudaHostAlloc`.
    rt(
        &["cudaMallocHost", "cudaHostAlloc"],
        3,
        &[
            AllocOut {
                out: 0,
                kind: MemKind::Pinned,
                by: Allocator::PinnedHost,
            },
            WriteCombinedIf { flags: 2 },
            Holds { bytes: 1, times: None },
        ],
    ),
    // The address of a `__device__` variable: device memory no one may free.
    rt(
        &["cudaGetSymbolAddress"],
        2,
        &[AllocOut {
            out: 0,
            kind: DEVICE,
            by: Allocator::ModuleGlobal,
        }],
    ),
    rt(
        &["cudaFree"],
        1,
        &[Free {
            mem: 0,
            by: Allocator::Device,
            waits_implicitly: true,
        }],
    ),
    rt(
        &["cudaFreeHost"],
        1,
        &[Free {
            mem: 0,
            by: Allocator::PinnedHost,
            waits_implicitly: true,
        }],
    ),
    rt(&["cudaFreeAsync"], 2, &[FreeOnStream { mem: 0, stream: 1 }]),
    rt(&["cudaHostRegister"], 3, &[Register(0)]),
    rt(&["cudaHostUnregister"], 1, &[Unregister(0)]),
    rt(&["cudaHostGetDevicePointer"], 3, &[DevicePointerOf { out: 0, host: 1 }]),
    rt(
        &["cudaStreamAttachMemAsync"],
        4,
        &[AttachMem {
            mem: 1,
            flags: 3,
            stream: 0,
        }],
    ),
    // Copies: the direction is the `cudaMemcpyKind` argument.
    rt(
        &["cudaMemcpy"],
        4,
        &[
            Copy {
                dst: 0,
                src: 1,
                kind: Some(3),
                dir: Dir::Unknown,
                stream: None,
            },
            Covers { count: 2, unit: 1 },
        ],
    ),
    rt(
        &["cudaMemcpyAsync"],
        5,
        &[
            Copy {
                dst: 0,
                src: 1,
                kind: Some(3),
                dir: Dir::Unknown,
                stream: Some(4),
            },
            Covers { count: 2, unit: 1 },
        ],
    ),
    // `(dst, dpitch, src, spitch, width, height, kind[, stream])`.
    rt(
        &["cudaMemcpy2D"],
        7,
        &[Copy {
            dst: 0,
            src: 2,
            kind: Some(6),
            dir: Dir::Unknown,
            stream: None,
        }],
    ),
    rt(
        &["cudaMemcpy2DAsync"],
        8,
        &[Copy {
            dst: 0,
            src: 2,
            kind: Some(6),
            dir: Dir::Unknown,
            stream: Some(7),
        }],
    ),
    // The symbol is a `__device__` variable; the kind may be left out (its default).
    rt(
        &["cudaMemcpyToSymbol"],
        5,
        &[
            Copy {
                dst: 0,
                src: 1,
                kind: Some(4),
                dir: Dir::HostToDevice,
                stream: None,
            },
            // From the symbol's start when the offset (argument 3) is 0; past it, within it.
            Covers { count: 2, unit: 1 },
        ],
    ),
    rt(
        &["cudaMemcpyToSymbolAsync"],
        6,
        &[
            Copy {
                dst: 0,
                src: 1,
                kind: Some(4),
                dir: Dir::HostToDevice,
                stream: Some(5),
            },
            // From the symbol's start when the offset (argument 3) is 0; past it, within it.
            Covers { count: 2, unit: 1 },
        ],
    ),
    rt(
        &["cudaMemcpyFromSymbol"],
        5,
        &[
            Copy {
                dst: 0,
                src: 1,
                kind: Some(4),
                dir: Dir::DeviceToHost,
                stream: None,
            },
            Covers { count: 2, unit: 1 },
        ],
    ),
    rt(
        &["cudaMemcpyFromSymbolAsync"],
        6,
        &[
            Copy {
                dst: 0,
                src: 1,
                kind: Some(4),
                dir: Dir::DeviceToHost,
                stream: Some(5),
            },
            Covers { count: 2, unit: 1 },
        ],
    ),
    // `(dst, dstDevice, src, srcDevice, count[, stream])`.
    rt(
        &["cudaMemcpyPeer"],
        5,
        &[
            Copy {
                dst: 0,
                src: 2,
                kind: None,
                dir: Dir::DeviceToDevice,
                stream: None,
            },
            Covers { count: 4, unit: 1 },
        ],
    ),
    rt(
        &["cudaMemcpyPeerAsync"],
        6,
        &[
            Copy {
                dst: 0,
                src: 2,
                kind: None,
                dir: Dir::DeviceToDevice,
                stream: Some(5),
            },
            Covers { count: 4, unit: 1 },
        ],
    ),
    // `(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs[, failIdx], stream)`.
    rt(
        &["cudaMemcpyBatchAsync"],
        9,
        &[BatchCopy {
            dsts: 0,
            srcs: 1,
            attrs: 4,
        }],
    ),
    rt(
        &["cudaMemset"],
        3,
        &[Memset { dst: 0, stream: None }, Covers { count: 2, unit: 1 }],
    ),
    rt(
        &["cudaMemsetAsync"],
        4,
        &[
            Memset {
                dst: 0,
                stream: Some(3),
            },
            Covers { count: 2, unit: 1 },
        ],
    ),
    // `(ptr, pitch, value, width, height[, stream])`.
    rt(&["cudaMemset2D"], 5, &[Memset { dst: 0, stream: None }]),
    rt(
        &["cudaMemset2DAsync"],
        6,
        &[Memset {
            dst: 0,
            stream: Some(5),
        }],
    ),
    // Streams and events.
    rt(&["cudaStreamCreate"], 1, &[StreamCreate { out: 0, flags: None }]),
    rt(
        &["cudaStreamCreateWithFlags"],
        2,
        &[StreamCreate { out: 0, flags: Some(1) }],
    ),
    rt(
        &["cudaStreamCreateWithPriority"],
        3,
        &[StreamCreate { out: 0, flags: Some(1) }],
    ),
    rt(&["cudaStreamSynchronize"], 1, &[SyncStream(0)]),
    rt(&["cudaStreamQuery"], 1, &[QueryStream(0)]),
    // Returns at once; the stream's resources go once its work is done.
    rt(&["cudaStreamDestroy"], 1, &[NoAccess]),
    rt(&["cudaStreamWaitEvent"], 3, &[StreamWaitEvent { stream: 0, event: 1 }]),
    rt(
        &["cudaEventCreate", "cudaEventCreateWithFlags"],
        2,
        &[EventCreate { out: 0 }],
    ),
    rt(&["cudaEventRecord"], 2, &[RecordEvent { event: 0, stream: 1 }]),
    rt(&["cudaEventRecordWithFlags"], 3, &[RecordEvent { event: 0, stream: 1 }]),
    rt(&["cudaEventSynchronize"], 1, &[SyncEvent(0)]),
    rt(&["cudaEventQuery"], 1, &[QueryEvent(0)]),
    rt(&["cudaEventElapsedTime"], 3, &[NoAccess]),
    rt(&["cudaEventDestroy"], 1, &[NoAccess]),
    // Host code run after the stream's earlier work; the analysis does not follow it.
    rt(&["cudaLaunchHostFunc"], 3, &[NoAccess]),
    rt(&["cudaStreamAddCallback"], 4, &[NoAccess]),
    // Graph capture: `(stream, mode)`, `(stream, graph, deps, edgeData, numDeps, mode)`,
    // `(stream, &graph)`.
    rt(&["cudaStreamBeginCapture"], 2, &[BeginCapture(0)]),
    rt(&["cudaStreamBeginCaptureToGraph"], 6, &[BeginCapture(0)]),
    rt(&["cudaStreamEndCapture"], 2, &[EndCapture(0), GraphOut { out: 1 }]),
    // `cudaGraphInstantiate(&exec, graph, flags)` (CUDA 11's five arguments too),
    // `cudaGraphInstantiateWithFlags(&exec, graph, flags)`, `cudaGraphLaunch(exec, stream)`.
    rt(
        &["cudaGraphInstantiate", "cudaGraphInstantiateWithFlags"],
        5,
        &[Instantiate { out: 0, graph: 1 }],
    ),
    rt(&["cudaGraphLaunch"], 2, &[GraphLaunch { exec: 0, stream: 1 }]),
    rt(&["cudaThreadExchangeStreamCaptureMode"], 1, &[CaptureModeExchange(0)]),
    rt(
        &[
            "cudaGraphUpload",
            "cudaGraphExecDestroy",
            "cudaGraphDestroy",
            "cudaStreamIsCapturing",
            "cudaStreamGetCaptureInfo",
            "cudaGraphCreate",
            "cudaGraphDebugDotPrint",
        ],
        3,
        &[NoAccess],
    ),
    // The library API (CUDA 12): `(&library, image, jitOptions, jitValues, numJit,
    // libraryOptions, libraryValues, numLibrary)`, `(&kernel, library, name)`. A `cudaKernel_t`
    // is launched with `cudaLaunchKernel`.
    rt(&["cudaLibraryLoadData"], 8, &[LoadModule { out: 0, image: Some(1) }]),
    rt(&["cudaLibraryLoadFromFile"], 8, &[LoadModule { out: 0, image: None }]),
    rt(&["cudaLibraryUnload"], 1, &[NoAccess]),
    rt(
        &["cudaLibraryGetKernel"],
        3,
        &[GetFunction {
            out: 0,
            module: 1,
            name: 2,
        }],
    ),
    // Launches: `(func, grid, block, args, sharedMem, stream)`.
    rt(
        &["cudaLaunchKernel", "cudaLaunchCooperativeKernel"],
        6,
        &[Launch {
            kernel: 0,
            stream: 5,
            args: 3,
        }],
    ),
];
