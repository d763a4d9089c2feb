//! The CUDA driver API (`cuda.h`). `cuda.h` defines many names as macros for versioned symbols
//! (`#define cuMemAlloc cuMemAlloc_v2`): C++ calls them by the first, bindings by the second, and
//! both are listed. Streams are `CUstream` values; the null stream is the legacy default stream.

use crate::Effect::*;
use crate::{Allocator, Dir, Family, Function, MemKind};

const fn cu(names: &'static [&'static str], arity: usize, effects: &'static [crate::Effect]) -> Function {
    crate::function(Family::Driver, names, arity, effects)
}

const DEVICE: MemKind = MemKind::Device;

const fn copy(dst: usize, src: usize, dir: Dir, stream: Option<usize>) -> crate::Effect {
    Copy {
        dst,
        src,
        kind: None,
        dir,
        stream,
    }
}

/// Allocations whose size is their second argument (`cuMemAlloc(&p, bytes)`).
const HOLDS_1: crate::Effect = Holds { bytes: 1, times: None };

/// One-dimensional copies of `(dst, src, bytes, ..)`.
const COVERS_BYTES_2: crate::Effect = Covers { count: 2, unit: 1 };

const fn alloc(kind: MemKind, by: Allocator) -> crate::Effect {
    AllocOut { out: 0, kind, by }
}

pub(crate) static FUNCTIONS: &[Function] = &[
    // Initialization, devices, contexts.
    cu(&["cuInit"], 1, &[NoAccess]),
    cu(&["cuDriverGetVersion"], 1, &[NoAccess]),
    cu(&["cuDeviceGet"], 2, &[NoAccess]),
    cu(&["cuDeviceGetCount"], 1, &[NoAccess]),
    cu(&["cuDeviceGetName"], 3, &[NoAccess]),
    cu(&["cuDeviceGetAttribute"], 3, &[NoAccess]),
    cu(&["cuDeviceTotalMem", "cuDeviceTotalMem_v2"], 2, &[NoAccess]),
    cu(&["cuDevicePrimaryCtxRetain"], 2, &[ContextOut { out: 0 }]),
    cu(
        &["cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxRelease_v2"],
        1,
        &[NoAccess],
    ),
    cu(
        &["cuDevicePrimaryCtxReset", "cuDevicePrimaryCtxReset_v2"],
        1,
        &[SyncDevice, ReleasesAll],
    ),
    cu(
        &["cuCtxCreate", "cuCtxCreate_v2", "cuCtxCreate_v4"],
        4,
        &[ContextOut { out: 0 }],
    ),
    cu(&["cuCtxDestroy", "cuCtxDestroy_v2"], 1, &[SyncDevice, ReleasesAll]),
    cu(&["cuCtxSetCurrent"], 1, &[NoAccess]),
    cu(&["cuCtxGetCurrent"], 1, &[NoAccess]),
    cu(&["cuCtxPushCurrent", "cuCtxPushCurrent_v2"], 1, &[NoAccess]),
    cu(&["cuCtxPopCurrent", "cuCtxPopCurrent_v2"], 1, &[NoAccess]),
    cu(&["cuCtxSynchronize"], 0, &[SyncDevice]),
    cu(&["cuMemGetInfo", "cuMemGetInfo_v2"], 2, &[NoAccess]),
    cu(&["cuMemGetAddressRange", "cuMemGetAddressRange_v2"], 3, &[NoAccess]),
    cu(&["cuPointerGetAttribute"], 3, &[NoAccess]),
    cu(&["cuMemPrefetchAsync", "cuMemPrefetchAsync_v2"], 5, &[NoAccess]),
    cu(&["cuMemAdvise", "cuMemAdvise_v2"], 4, &[NoAccess]),
    // Allocation and release.
    cu(
        &["cuMemAlloc", "cuMemAlloc_v2"],
        2,
        &[alloc(DEVICE, Allocator::Device), HOLDS_1],
    ),
    // `(&dptr, &pitch, widthBytes, height, elementSize)`.
    cu(
        &["cuMemAllocPitch", "cuMemAllocPitch_v2"],
        5,
        &[alloc(DEVICE, Allocator::Device)],
    ),
    cu(
        &["cuMemAllocAsync"],
        3,
        &[alloc(DEVICE, Allocator::Device), AllocatedOn(2), HOLDS_1],
    ),
    cu(
        &["cuMemAllocFromPoolAsync"],
        4,
        &[alloc(DEVICE, Allocator::Device), AllocatedOn(3)],
    ),
    cu(
        &["cuMemAllocManaged"],
        3,
        &[
            alloc(MemKind::Managed, Allocator::Device),
            AttachNew { flags: 2 },
            HOLDS_1,
        ],
    ),
    cu(
        &["cuMemAllocHost", "cuMemAllocHost_v2"],
        2,
        &[alloc(MemKind::Pinned, Allocator::PinnedHost), HOLDS_1],
    ),
    cu(
        &["cuMemHostAlloc"],
        3,
        &[
            alloc(MemKind::Pinned, Allocator::PinnedHost),
            WriteCombinedIf { flags: 2 },
            HOLDS_1,
        ],
    ),
    // The address of a module's `__device__` variable: `(&dptr, &bytes, module, name)`.
    cu(
        &["cuModuleGetGlobal", "cuModuleGetGlobal_v2"],
        4,
        &[alloc(DEVICE, Allocator::ModuleGlobal)],
    ),
    cu(
        &["cuMemFree", "cuMemFree_v2"],
        1,
        &[Free {
            mem: 0,
            by: Allocator::Device,
            waits_implicitly: true,
        }],
    ),
    cu(
        &["cuMemFreeHost"],
        1,
        &[Free {
            mem: 0,
            by: Allocator::PinnedHost,
            waits_implicitly: true,
        }],
    ),
    cu(&["cuMemFreeAsync"], 2, &[FreeOnStream { mem: 0, stream: 1 }]),
    cu(&["cuMemHostRegister", "cuMemHostRegister_v2"], 3, &[Register(0)]),
    cu(&["cuMemHostUnregister"], 1, &[Unregister(0)]),
    cu(
        &["cuMemHostGetDevicePointer", "cuMemHostGetDevicePointer_v2"],
        3,
        &[DevicePointerOf { out: 0, host: 1 }],
    ),
    cu(
        &["cuStreamAttachMemAsync"],
        4,
        &[AttachMem {
            mem: 1,
            flags: 3,
            stream: 0,
        }],
    ),
    // Copies: `(dst, src, bytes[, stream])`.
    cu(
        &["cuMemcpyHtoD", "cuMemcpyHtoD_v2"],
        3,
        &[copy(0, 1, Dir::HostToDevice, None), COVERS_BYTES_2],
    ),
    cu(
        &["cuMemcpyDtoH", "cuMemcpyDtoH_v2"],
        3,
        &[copy(0, 1, Dir::DeviceToHost, None), COVERS_BYTES_2],
    ),
    cu(
        &["cuMemcpyDtoD", "cuMemcpyDtoD_v2"],
        3,
        &[copy(0, 1, Dir::DeviceToDevice, None), COVERS_BYTES_2],
    ),
    cu(&["cuMemcpy"], 3, &[copy(0, 1, Dir::Unknown, None), COVERS_BYTES_2]),
    cu(
        &["cuMemcpyHtoDAsync", "cuMemcpyHtoDAsync_v2"],
        4,
        &[copy(0, 1, Dir::HostToDevice, Some(3)), COVERS_BYTES_2],
    ),
    cu(
        &["cuMemcpyDtoHAsync", "cuMemcpyDtoHAsync_v2"],
        4,
        &[copy(0, 1, Dir::DeviceToHost, Some(3)), COVERS_BYTES_2],
    ),
    cu(
        &["cuMemcpyDtoDAsync", "cuMemcpyDtoDAsync_v2"],
        4,
        &[copy(0, 1, Dir::DeviceToDevice, Some(3)), COVERS_BYTES_2],
    ),
    cu(
        &["cuMemcpyAsync"],
        4,
        &[copy(0, 1, Dir::Unknown, Some(3)), COVERS_BYTES_2],
    ),
    // `(dst, dstContext, src, srcContext, bytes[, stream])`.
    cu(&["cuMemcpyPeer"], 5, &[copy(0, 2, Dir::DeviceToDevice, None)]),
    cu(&["cuMemcpyPeerAsync"], 6, &[copy(0, 2, Dir::DeviceToDevice, Some(5))]),
    // CUDA arrays are not memory the analysis follows: the host side is what matters.
    // `(dstArray, offset, src, bytes)`, `(dst, srcArray, offset, bytes)`.
    cu(
        &["cuMemcpyHtoA", "cuMemcpyHtoA_v2"],
        4,
        &[copy(0, 2, Dir::HostToDevice, None)],
    ),
    cu(
        &["cuMemcpyAtoH", "cuMemcpyAtoH_v2"],
        4,
        &[copy(0, 1, Dir::DeviceToHost, None), COVERS_BYTES_2],
    ),
    // `(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs[, failIdx], stream)`.
    cu(
        &["cuMemcpyBatchAsync", "cuMemcpyBatchAsync_v2"],
        9,
        &[BatchCopy {
            dsts: 0,
            srcs: 1,
            attrs: 4,
        }],
    ),
    // Memsets: `(dst, value, count[, stream])`, 2D: `(dst, pitch, value, width, height[, stream])`.
    cu(
        &["cuMemsetD8", "cuMemsetD8_v2"],
        3,
        &[Memset { dst: 0, stream: None }, Covers { count: 2, unit: 1 }],
    ),
    cu(
        &["cuMemsetD16", "cuMemsetD16_v2"],
        3,
        &[Memset { dst: 0, stream: None }, Covers { count: 2, unit: 2 }],
    ),
    cu(
        &["cuMemsetD32", "cuMemsetD32_v2"],
        3,
        &[Memset { dst: 0, stream: None }, Covers { count: 2, unit: 4 }],
    ),
    cu(
        &[
            "cuMemsetD2D8",
            "cuMemsetD2D8_v2",
            "cuMemsetD2D16",
            "cuMemsetD2D16_v2",
            "cuMemsetD2D32",
            "cuMemsetD2D32_v2",
        ],
        5,
        &[Memset { dst: 0, stream: None }],
    ),
    cu(
        &["cuMemsetD8Async", "cuMemsetD16Async", "cuMemsetD32Async"],
        4,
        &[Memset {
            dst: 0,
            stream: Some(3),
        }],
    ),
    cu(
        &["cuMemsetD2D8Async", "cuMemsetD2D16Async", "cuMemsetD2D32Async"],
        6,
        &[Memset {
            dst: 0,
            stream: Some(5),
        }],
    ),
    // Streams and events.
    cu(&["cuStreamCreate"], 2, &[StreamCreate { out: 0, flags: Some(1) }]),
    cu(
        &["cuStreamCreateWithPriority"],
        3,
        &[StreamCreate { out: 0, flags: Some(1) }],
    ),
    cu(&["cuStreamSynchronize"], 1, &[SyncStream(0)]),
    cu(&["cuStreamQuery"], 1, &[QueryStream(0)]),
    cu(&["cuStreamDestroy", "cuStreamDestroy_v2"], 1, &[NoAccess]),
    cu(&["cuStreamWaitEvent"], 3, &[StreamWaitEvent { stream: 0, event: 1 }]),
    // Host code run after the stream's earlier work; the analysis does not follow it.
    cu(&["cuLaunchHostFunc"], 3, &[NoAccess]),
    cu(&["cuStreamAddCallback"], 4, &[NoAccess]),
    cu(&["cuEventCreate"], 2, &[EventCreate { out: 0 }]),
    cu(&["cuEventRecord"], 2, &[RecordEvent { event: 0, stream: 1 }]),
    cu(&["cuEventRecordWithFlags"], 3, &[RecordEvent { event: 0, stream: 1 }]),
    cu(&["cuEventSynchronize"], 1, &[SyncEvent(0)]),
    cu(&["cuEventQuery"], 1, &[QueryEvent(0)]),
    cu(&["cuEventElapsedTime", "cuEventElapsedTime_v2"], 3, &[NoAccess]),
    cu(&["cuEventDestroy", "cuEventDestroy_v2"], 1, &[NoAccess]),
    // Graph capture: `(stream, mode)`, `(stream, &graph)`.
    cu(
        &["cuStreamBeginCapture", "cuStreamBeginCapture_v2"],
        2,
        &[BeginCapture(0)],
    ),
    cu(&["cuStreamEndCapture"], 2, &[EndCapture(0), GraphOut { out: 1 }]),
    // `cuGraphInstantiate(&exec, graph, flags)` (`_v2`: five arguments), `cuGraphLaunch(exec,
    // stream)`.
    cu(
        &[
            "cuGraphInstantiate",
            "cuGraphInstantiate_v2",
            "cuGraphInstantiateWithFlags",
        ],
        5,
        &[Instantiate { out: 0, graph: 1 }],
    ),
    cu(&["cuGraphLaunch"], 2, &[GraphLaunch { exec: 0, stream: 1 }]),
    cu(&["cuThreadExchangeStreamCaptureMode"], 1, &[CaptureModeExchange(0)]),
    cu(
        &[
            "cuGraphUpload",
            "cuGraphExecDestroy",
            "cuGraphDestroy",
            "cuStreamIsCapturing",
            "cuStreamGetCaptureInfo",
        ],
        3,
        &[NoAccess],
    ),
    // Modules and launches. The image is PTX text or a cubin: the module's source, when followed.
    cu(&["cuModuleLoadData"], 2, &[LoadModule { out: 0, image: Some(1) }]),
    cu(&["cuModuleLoadDataEx"], 5, &[LoadModule { out: 0, image: Some(1) }]),
    cu(&["cuModuleLoad"], 2, &[LoadModule { out: 0, image: None }]),
    cu(&["cuModuleUnload"], 1, &[NoAccess]),
    // The library API (CUDA 12): `(&library, image, jitOptions, jitValues, numJit,
    // libraryOptions, libraryValues, numLibrary)`, `(&kernel, library, name)`.
    cu(&["cuLibraryLoadData"], 8, &[LoadModule { out: 0, image: Some(1) }]),
    cu(&["cuLibraryLoadFromFile"], 8, &[LoadModule { out: 0, image: None }]),
    cu(&["cuLibraryUnload"], 1, &[NoAccess]),
    cu(
        &["cuLibraryGetKernel"],
        3,
        &[GetFunction {
            out: 0,
            module: 1,
            name: 2,
        }],
    ),
    cu(
        &["cuModuleGetFunction"],
        3,
        &[GetFunction {
            out: 0,
            module: 1,
            name: 2,
        }],
    ),
    // `(f, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMem, stream, params[, extra])`.
    cu(
        &["cuLaunchKernel", "cuLaunchCooperativeKernel"],
        11,
        &[Launch {
            kernel: 0,
            stream: 8,
            args: 9,
        }],
    ),
    // Virtual memory management.
    cu(&["cuMemGetAllocationGranularity"], 3, &[NoAccess]),
    cu(&["cuMemCreate"], 4, &[PhysicalOut { out: 0 }]),
    cu(&["cuMemRelease"], 1, &[NoAccess]),
    cu(&["cuMemAddressReserve"], 5, &[ReserveOut { out: 0 }]),
    cu(&["cuMemAddressFree"], 2, &[AddressFree { va: 0 }]),
    // `(va, size, offset, handle, flags)`.
    cu(&["cuMemMap"], 5, &[MapAt { va: 0, physical: 3 }]),
    cu(&["cuMemSetAccess"], 4, &[SetAccess { va: 0 }]),
    // It does not wait for the device: work still using the mapping faults (vLLM #43020,
    // TensorRT-LLM #11641).
    cu(&["cuMemUnmap"], 2, &[Unmap { va: 0 }]),
    // Descriptors of device memory for TMA: the addresses are not dereferenced here.
    cu(&["cuTensorMapEncodeTiled"], 13, &[NoAccess]),
    cu(&["cuTensorMapEncodeIm2col"], 15, &[NoAccess]),
];
