//! The CUDA driver API: its C functions (through `cudarc::driver::sys`, another binding crate,
//! or a crate's own `extern "C"` block) and cudarc's thin `driver::result` wrappers.
//!
//! Argument positions follow the C signatures (`cuda.h`); an output parameter (`CUdeviceptr *`,
//! `CUstream *`) receives the new object. Streams are `CUstream` values: the null stream is
//! no object, and work on it is taken as ordered with everything (what the legacy default
//! stream does with blocking streams), which never reports on a guess.

use super::Effect::*;
use super::{Advice, Allocator, ApiFamily, Dir, Effect, FreeKind, LEGACY, MemKind, ObjKind, Target, f, handle};

const fn copy_async(dst: u8, src: u8, dir: Dir, stream: u8) -> Effect {
    Copy {
        dst,
        src,
        dir,
        stream,
        is_async: true,
    }
}

/// A copy on the legacy default stream that returns when it is done (`cuMemcpyHtoD`).
const fn copy_blocking(dst: u8, src: u8, dir: Dir) -> Effect {
    Copy {
        dst,
        src,
        dir,
        stream: LEGACY,
        is_async: false,
    }
}

const fn out(out: u8, target: Target) -> Effect {
    NewOut { out, target }
}

const DEVICE: Target = Target::Mem(MemKind::Device);
const PINNED: Target = Target::Mem(MemKind::Pinned);
const STREAM: Target = Target::Obj(ObjKind::Stream);
const EVENT: Target = Target::Obj(ObjKind::Event);

macro_rules! result {
    ($name:literal) => {
        concat!("cudarc::driver::result::", $name)
    };
}

pub static FAMILY: ApiFamily = ApiFamily {
    name: "cuda-driver",
    advice: Advice {
        pinned: "allocate the host buffer with `cuMemHostAlloc` (or `cuMemAllocHost`), or page-lock it \
                 with `cuMemHostRegister`",
        pinned_readback: "read back into pinned memory that is not write-combined: `cuMemAllocHost`, or \
                          `cuMemHostAlloc` without `CU_MEMHOSTALLOC_WRITECOMBINED`",
        sync_stream: "`cuStreamSynchronize({stream})`",
        order_streams: "record an event after the first work (`cuEventRecord`) and make this stream \
                        wait on it (`cuStreamWaitEvent`)",
        copy_to_host: "copy the data to host memory first (`cuMemcpyDtoHAsync`, then `cuStreamSynchronize`)",
        copy_to_device: "write into host memory and copy it to the device (`cuMemcpyHtoDAsync`)",
        sync_statement: None,
        error_type: "cudarc::driver::sys::cudaError_enum",
    },
    crates: &["cudarc", "cuda_driver_sys", "cust_raw", "cuda_sys"],
    functions: &[
        // cudarc::driver::result: safe signatures over the same calls; results are returned.
        f(result!("init"), &[NoAccess]),
        f(result!("ctx::synchronize"), &[SyncContext]),
        f(result!("ctx::set_current"), &[NoAccess]),
        f(result!("ctx::get_current"), &[NoAccess]),
        f(result!("primary_ctx::retain"), &[New(Target::Obj(ObjKind::Context))]),
        f(result!("primary_ctx::release"), &[NoAccess]),
        f(result!("device::get"), &[NoAccess]),
        f(result!("device::get_count"), &[NoAccess]),
        f(result!("device::get_attribute"), &[NoAccess]),
        f(result!("device::total_mem"), &[NoAccess]),
        f(result!("stream::null"), &[NoAccess]),
        f(
            result!("stream::create"),
            &[New(STREAM), NonBlocking { flags: Some(0) }],
        ),
        f(
            result!("stream::create_with_priority"),
            &[New(STREAM), NonBlocking { flags: Some(0) }],
        ),
        f(result!("stream::synchronize"), &[SyncStream(0)]),
        f(result!("stream::destroy"), &[NoAccess]),
        f(
            result!("stream::wait_event"),
            &[StreamWaitEvent { stream: 0, event: 1 }],
        ),
        f(result!("event::create"), &[New(EVENT)]),
        f(result!("event::record"), &[RecordEvent { event: 0, stream: 1 }]),
        f(result!("event::synchronize"), &[SyncEvent(0)]),
        f(result!("event::query"), &[QueryEvent(0)]),
        f(result!("event::elapsed"), &[NoAccess]),
        f(result!("event::destroy"), &[NoAccess]),
        // The `result` layer wraps the same C functions: the same allocators and releases.
        f(result!("malloc_sync"), &[New(DEVICE), AllocatedBy(Allocator::Device)]),
        // `(address, size)` of a module's `__device__`/`__constant__` variable.
        f(
            result!("module::get_global"),
            &[New(DEVICE), AllocatedBy(Allocator::ModuleGlobal)],
        ),
        f(
            result!("malloc_async"),
            &[New(DEVICE), AllocatedOn(0), AllocatedBy(Allocator::Device)],
        ),
        f(
            result!("malloc_managed"),
            &[New(Target::Mem(MemKind::Managed)), AllocatedBy(Allocator::Device)],
        ),
        f(
            result!("malloc_host"),
            &[
                New(PINNED),
                AllocatedBy(Allocator::PinnedHost),
                WriteCombined(super::WriteCombined::FlagBit {
                    flags: 1,
                    bit: super::WRITE_COMBINED_BIT,
                }),
            ],
        ),
        f(
            result!("free_sync"),
            &[
                FreedBy {
                    mem: 0,
                    by: Allocator::Device,
                },
                Free {
                    mem: 0,
                    kind: FreeKind::Waits,
                },
            ],
        ),
        f(
            result!("memory_free"),
            &[
                FreedBy {
                    mem: 0,
                    by: Allocator::Device,
                },
                Free {
                    mem: 0,
                    kind: FreeKind::Waits,
                },
            ],
        ),
        f(
            result!("free_host"),
            &[
                FreedBy {
                    mem: 0,
                    by: Allocator::PinnedHost,
                },
                Free {
                    mem: 0,
                    kind: FreeKind::Waits,
                },
            ],
        ),
        f(
            result!("free_async"),
            &[
                FreedBy {
                    mem: 0,
                    by: Allocator::Device,
                },
                FreeOnStream { mem: 0, stream: 1 },
            ],
        ),
        f(
            result!("memset_d8_async"),
            &[Memset {
                dst: 0,
                stream: 3,
                is_async: true,
            }],
        ),
        f(
            result!("memset_d8_sync"),
            &[
                SyncStream(LEGACY),
                Memset {
                    dst: 0,
                    stream: LEGACY,
                    is_async: false,
                },
            ],
        ),
        f(result!("memcpy_htod_async"), &[copy_async(0, 1, Dir::HostToDevice, 2)]),
        f(result!("memcpy_dtoh_async"), &[copy_async(0, 1, Dir::DeviceToHost, 2)]),
        f(
            result!("memcpy_dtod_async"),
            &[copy_async(0, 1, Dir::DeviceToDevice, 3)],
        ),
        f(
            result!("memcpy_peer_async"),
            &[copy_async(1, 3, Dir::DeviceToDevice, 5)],
        ),
        f(
            result!("memcpy_htod_sync"),
            &[SyncStream(LEGACY), copy_blocking(0, 1, Dir::HostToDevice)],
        ),
        f(
            result!("memcpy_dtoh_sync"),
            &[SyncStream(LEGACY), copy_blocking(0, 1, Dir::DeviceToHost)],
        ),
        f(
            result!("memcpy_dtod_sync"),
            &[SyncStream(LEGACY), copy_blocking(0, 1, Dir::DeviceToDevice)],
        ),
        f(result!("mem_get_info"), &[NoAccess]),
        f(result!("module::load_data"), &[LoadModule(0)]),
        f(result!("module::load"), &[New(Target::Obj(ObjKind::Module))]),
        f(result!("module::get_function"), &[GetFunction { module: 0, name: 1 }]),
        f(result!("module::unload"), &[NoAccess]),
        f(
            result!("launch_kernel"),
            &[Launch {
                kernel: 0,
                stream: 4,
                args: 5,
            }],
        ),
        f(
            result!("launch_cooperative_kernel"),
            &[Launch {
                kernel: 0,
                stream: 4,
                args: 5,
            }],
        ),
    ],
    // An event handle from elsewhere (a parameter) is still one event: what is recorded on it
    // and waited for through it is followed.
    types: &[handle(
        "cudarc::driver::sys::CUevent_st",
        Target::Obj(ObjKind::Event),
        None,
    )],
    symbols: &[
        // Initialization, devices, contexts.
        f("cuInit", &[NoAccess]),
        f("cuDriverGetVersion", &[NoAccess]),
        f("cuDeviceGet", &[NoAccess]),
        f("cuDeviceGetCount", &[NoAccess]),
        f("cuDeviceGetName", &[NoAccess]),
        f("cuDeviceGetAttribute", &[NoAccess]),
        f("cuDeviceTotalMem_v2", &[NoAccess]),
        f("cuDevicePrimaryCtxRetain", &[out(0, Target::Obj(ObjKind::Context))]),
        f("cuDevicePrimaryCtxRelease_v2", &[NoAccess]),
        f("cuDevicePrimaryCtxReset_v2", &[SyncContext]),
        f("cuCtxCreate_v2", &[out(0, Target::Obj(ObjKind::Context))]),
        f("cuCtxCreate_v4", &[out(0, Target::Obj(ObjKind::Context))]),
        f("cuCtxDestroy_v2", &[SyncContext]),
        f("cuCtxSetCurrent", &[NoAccess]),
        f("cuCtxGetCurrent", &[NoAccess]),
        f("cuCtxPushCurrent_v2", &[NoAccess]),
        f("cuCtxPopCurrent_v2", &[NoAccess]),
        f("cuCtxSynchronize", &[SyncContext]),
        f("cuMemGetInfo_v2", &[NoAccess]),
        // Allocation and release.
        f("cuMemAlloc_v2", &[out(0, DEVICE), AllocatedBy(Allocator::Device)]),
        f("cuMemAllocPitch_v2", &[out(0, DEVICE), AllocatedBy(Allocator::Device)]),
        f(
            "cuMemAllocAsync",
            &[out(0, DEVICE), AllocatedOn(2), AllocatedBy(Allocator::Device)],
        ),
        f(
            "cuMemAllocFromPoolAsync",
            &[out(0, DEVICE), AllocatedOn(3), AllocatedBy(Allocator::Device)],
        ),
        f(
            "cuMemAllocManaged",
            &[
                out(0, Target::Mem(MemKind::Managed)),
                AllocatedBy(Allocator::Device),
                Attach(super::Attach::NewByFlags { flags: 2 }),
            ],
        ),
        f(
            "cuStreamAttachMemAsync",
            &[Attach(super::Attach::Mem {
                mem: 1,
                flags: 3,
                stream: 0,
            })],
        ),
        f(
            "cuMemAllocHost_v2",
            &[out(0, PINNED), AllocatedBy(Allocator::PinnedHost)],
        ),
        f(
            "cuMemHostAlloc",
            &[
                out(0, PINNED),
                AllocatedBy(Allocator::PinnedHost),
                WriteCombined(super::WriteCombined::FlagBit {
                    flags: 2,
                    bit: super::WRITE_COMBINED_BIT,
                }),
            ],
        ),
        f(
            "cuMemFree_v2",
            &[
                FreedBy {
                    mem: 0,
                    by: Allocator::Device,
                },
                Free {
                    mem: 0,
                    kind: FreeKind::Waits,
                },
            ],
        ),
        f(
            "cuMemFreeHost",
            &[
                FreedBy {
                    mem: 0,
                    by: Allocator::PinnedHost,
                },
                Free {
                    mem: 0,
                    kind: FreeKind::Waits,
                },
            ],
        ),
        f(
            "cuMemFreeAsync",
            &[
                FreedBy {
                    mem: 0,
                    by: Allocator::Device,
                },
                FreeOnStream { mem: 0, stream: 1 },
            ],
        ),
        f("cuMemHostRegister_v2", &[RegisterInPlace(0)]),
        f("cuMemHostUnregister", &[UnregisterInPlace(0)]),
        // The device's address of mapped pinned memory: the same memory, seen from the device.
        f("cuMemHostGetDevicePointer_v2", &[Derive(1), RetInto(0)]),
        f("cuMemGetAddressRange_v2", &[NoAccess]),
        f("cuPointerGetAttribute", &[NoAccess]),
        f("cuMemPrefetchAsync", &[NoAccess]),
        f("cuMemPrefetchAsync_v2", &[NoAccess]),
        f("cuMemAdvise", &[NoAccess]),
        f("cuMemAdvise_v2", &[NoAccess]),
        // Copies and memsets.
        f("cuMemcpyHtoDAsync_v2", &[copy_async(0, 1, Dir::HostToDevice, 3)]),
        f(
            "cuMemcpyBatchAsync",
            &[BatchCopy {
                dsts: 0,
                srcs: 1,
                attrs: 4,
            }],
        ),
        f(
            "cuMemcpyBatchAsync_v2",
            &[BatchCopy {
                dsts: 0,
                srcs: 1,
                attrs: 4,
            }],
        ),
        f("cuMemcpyDtoHAsync_v2", &[copy_async(0, 1, Dir::DeviceToHost, 3)]),
        f("cuMemcpyDtoDAsync_v2", &[copy_async(0, 1, Dir::DeviceToDevice, 3)]),
        f("cuMemcpyAsync", &[copy_async(0, 1, Dir::Infer, 3)]),
        f("cuMemcpyPeerAsync", &[copy_async(0, 2, Dir::DeviceToDevice, 5)]),
        f(
            "cuMemcpyHtoD_v2",
            &[SyncStream(LEGACY), copy_blocking(0, 1, Dir::HostToDevice)],
        ),
        f(
            "cuMemcpyDtoH_v2",
            &[SyncStream(LEGACY), copy_blocking(0, 1, Dir::DeviceToHost)],
        ),
        f(
            "cuMemcpyDtoD_v2",
            &[SyncStream(LEGACY), copy_blocking(0, 1, Dir::DeviceToDevice)],
        ),
        f("cuMemcpy", &[SyncStream(LEGACY), copy_blocking(0, 1, Dir::Infer)]),
        f(
            "cuMemsetD8Async",
            &[Memset {
                dst: 0,
                stream: 3,
                is_async: true,
            }],
        ),
        f(
            "cuMemsetD32Async",
            &[Memset {
                dst: 0,
                stream: 3,
                is_async: true,
            }],
        ),
        f(
            "cuMemsetD16Async",
            &[Memset {
                dst: 0,
                stream: 3,
                is_async: true,
            }],
        ),
        f(
            "cuMemsetD16_v2",
            &[
                SyncStream(LEGACY),
                Memset {
                    dst: 0,
                    stream: LEGACY,
                    is_async: false,
                },
            ],
        ),
        // CUDA arrays are not memory the analysis follows: the host side is what matters.
        f(
            "cuMemcpyHtoA_v2",
            &[SyncStream(LEGACY), copy_blocking(0, 2, Dir::HostToDevice)],
        ),
        f(
            "cuMemcpyAtoH_v2",
            &[SyncStream(LEGACY), copy_blocking(0, 1, Dir::DeviceToHost)],
        ),
        f(
            "cuMemsetD8_v2",
            &[
                SyncStream(LEGACY),
                Memset {
                    dst: 0,
                    stream: LEGACY,
                    is_async: false,
                },
            ],
        ),
        f(
            "cuMemsetD32_v2",
            &[
                SyncStream(LEGACY),
                Memset {
                    dst: 0,
                    stream: LEGACY,
                    is_async: false,
                },
            ],
        ),
        // Streams and events.
        f("cuStreamCreate", &[out(0, STREAM), NonBlocking { flags: Some(1) }]),
        f(
            "cuStreamCreateWithPriority",
            &[out(0, STREAM), NonBlocking { flags: Some(1) }],
        ),
        f("cuStreamSynchronize", &[SyncStream(0)]),
        f("cuStreamQuery", &[QueryStream(0)]),
        f("cuStreamDestroy_v2", &[NoAccess]),
        // Host code run after the stream's earlier work; the analysis does not follow it.
        f("cuLaunchHostFunc", &[NoAccess]),
        f("cuStreamAddCallback", &[NoAccess]),
        f("cuStreamWaitEvent", &[StreamWaitEvent { stream: 0, event: 1 }]),
        f("cuEventCreate", &[out(0, EVENT)]),
        f("cuEventRecord", &[RecordEvent { event: 0, stream: 1 }]),
        f("cuEventRecordWithFlags", &[RecordEvent { event: 0, stream: 1 }]),
        f("cuEventSynchronize", &[SyncEvent(0)]),
        f("cuEventQuery", &[QueryEvent(0)]),
        f("cuEventElapsedTime", &[NoAccess]),
        f("cuEventElapsedTime_v2", &[NoAccess]),
        f("cuEventDestroy_v2", &[NoAccess]),
        // Modules and launches.
        // The image is PTX text (`compile_ptx(src)?.to_src()`): the module's source, when followed.
        f("cuModuleLoadData", &[LoadModule(1), RetInto(0)]),
        f("cuModuleLoadDataEx", &[LoadModule(1), RetInto(0)]),
        f("cuModuleLoad", &[out(0, Target::Obj(ObjKind::Module))]),
        f("cuModuleUnload", &[NoAccess]),
        // The address of a module's `__device__` variable.
        f(
            "cuModuleGetGlobal_v2",
            &[out(0, DEVICE), AllocatedBy(Allocator::ModuleGlobal)],
        ),
        f("cuModuleGetFunction", &[GetFunction { module: 1, name: 2 }, RetInto(0)]),
        f(
            "cuLaunchKernel",
            &[Launch {
                kernel: 0,
                stream: 8,
                args: 9,
            }],
        ),
        f(
            "cuLaunchCooperativeKernel",
            &[Launch {
                kernel: 0,
                stream: 8,
                args: 9,
            }],
        ),
        // Virtual memory management.
        f("cuMemGetAllocationGranularity", &[NoAccess]),
        f("cuMemCreate", &[out(0, Target::Obj(ObjKind::Physical))]),
        f("cuMemRelease", &[NoAccess]),
        f("cuMemAddressReserve", &[out(0, Target::Mem(MemKind::VmmMapping))]),
        f("cuMemAddressFree", &[AddressFree { va: 0 }]),
        f("cuMemMap", &[MapAt { va: 0, physical: 3 }]),
        f("cuMemSetAccess", &[SetAccess { va: 0 }]),
        // Descriptors of device memory for TMA: the addresses are not dereferenced here.
        f("cuTensorMapEncodeTiled", &[NoAccess]),
        f("cuTensorMapEncodeIm2col", &[NoAccess]),
        f(
            "cuMemUnmap",
            // It does not wait for the device: work still using the mapping faults (vLLM
            // #43020, TensorRT-LLM #11641).
            &[
                Free {
                    mem: 0,
                    kind: FreeKind::Immediate,
                },
                Unmap { va: 0 },
            ],
        ),
    ],
    symbol_modules: &[
        "cudarc::driver::sys",
        "cuda_driver_sys",
        "cust_raw::driver_sys",
        "cuda_sys::cuda",
    ],
};
