//! The CUDA runtime API (`cudart`): its C functions through `cudarc::runtime::sys`, another
//! binding crate, or a crate's own `extern "C"` block. Argument positions follow
//! `cuda_runtime_api.h`.

use super::Effect::*;
use super::{Advice, Allocator, ApiFamily, Dir, Effect, FreeKind, LEGACY, MemKind, ObjKind, Target, f, handle};

const fn out(out: u8, target: Target) -> Effect {
    NewOut { out, target }
}

const fn free(mem: u8) -> Effect {
    Free {
        mem,
        kind: FreeKind::Waits,
    }
}

const fn freed_by(mem: u8, by: Allocator) -> Effect {
    FreedBy { mem, by }
}

const fn copy(dst: u8, src: u8, dir: Dir, stream: u8, is_async: bool) -> Effect {
    Copy {
        dst,
        src,
        dir,
        stream,
        is_async,
    }
}

const fn memset(dst: u8, stream: u8, is_async: bool) -> Effect {
    Memset { dst, stream, is_async }
}

macro_rules! result {
    ($name:literal) => {
        concat!("cudarc::runtime::result::", $name)
    };
}

const DEVICE: Target = Target::Mem(MemKind::Device);
const PINNED: Target = Target::Mem(MemKind::Pinned);
const STREAM: Target = Target::Obj(ObjKind::Stream);
const EVENT: Target = Target::Obj(ObjKind::Event);

pub static FAMILY: ApiFamily = ApiFamily {
    name: "cuda-runtime",
    advice: Advice {
        pinned: "allocate the host buffer with `cudaMallocHost` (or `cudaHostAlloc`), or page-lock it \
                 with `cudaHostRegister`",
        pinned_readback: "read back into pinned memory that is not write-combined: `cudaMallocHost`, or \
                          `cudaHostAlloc` without `cudaHostAllocWriteCombined`",
        sync_stream: "`cudaStreamSynchronize({stream})`",
        order_streams: "record an event after the first work (`cudaEventRecord`) and make this stream \
                        wait on it (`cudaStreamWaitEvent`)",
        copy_to_host: "copy the data to host memory first (`cudaMemcpyAsync` with `cudaMemcpyDeviceToHost`, then `cudaStreamSynchronize`)",
        copy_to_device: "write into host memory and copy it to the device (`cudaMemcpyAsync` with `cudaMemcpyHostToDevice`)",
        sync_statement: None,
        error_type: "cudarc::runtime::sys::cudaError",
    },
    crates: &["cudarc", "cuda_runtime_sys", "cust_raw", "cuda_sys"],
    // cudarc::runtime::result: safe signatures over the same calls; results are returned, and
    // host memory is a slice.
    functions: &[
        f(result!("device::reset"), &[SyncContext]),
        f(result!("device::free"), &[freed_by(0, Allocator::Device), free(0)]),
        f(
            result!("stream::create"),
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
        f(result!("event::elapsed"), &[NoAccess]),
        f(result!("event::destroy"), &[NoAccess]),
        f(result!("malloc_sync"), &[New(DEVICE), AllocatedBy(Allocator::Device)]),
        f(
            result!("malloc_async"),
            &[New(DEVICE), AllocatedOn(0), AllocatedBy(Allocator::Device)],
        ),
        f(result!("free_sync"), &[freed_by(0, Allocator::Device), free(0)]),
        f(result!("memory_free"), &[freed_by(0, Allocator::Device), free(0)]),
        f(
            result!("free_async"),
            &[freed_by(0, Allocator::Device), FreeOnStream { mem: 0, stream: 1 }],
        ),
        f(result!("memset_d8_async"), &[memset(0, 3, true)]),
        f(
            result!("memset_d8_sync"),
            &[SyncStream(LEGACY), memset(0, LEGACY, false)],
        ),
        f(result!("memcpy_htod_async"), &[copy(0, 1, Dir::HostToDevice, 2, true)]),
        f(result!("memcpy_dtoh_async"), &[copy(0, 1, Dir::DeviceToHost, 2, true)]),
        f(
            result!("memcpy_dtod_async"),
            &[copy(0, 1, Dir::DeviceToDevice, 3, true)],
        ),
        f(
            result!("memcpy_htod_sync"),
            &[SyncStream(LEGACY), copy(0, 1, Dir::HostToDevice, LEGACY, false)],
        ),
        f(
            result!("memcpy_dtoh_sync"),
            &[SyncStream(LEGACY), copy(0, 1, Dir::DeviceToHost, LEGACY, false)],
        ),
        f(
            result!("memcpy_dtod_sync"),
            &[SyncStream(LEGACY), copy(0, 1, Dir::DeviceToDevice, LEGACY, false)],
        ),
        f(result!("mem_get_info"), &[NoAccess]),
        f(result!("get_mem_info"), &[NoAccess]),
        f(
            result!("launch_kernel"),
            &[Launch {
                kernel: 0,
                stream: 4,
                args: 5,
            }],
        ),
    ],
    types: &[handle(
        "cudarc::runtime::sys::CUevent_st",
        Target::Obj(ObjKind::Event),
        None,
    )],
    symbols: &[
        // Devices.
        f("cudaSetDevice", &[NoAccess]),
        f("cudaGetDevice", &[NoAccess]),
        f("cudaGetDeviceCount", &[NoAccess]),
        f("cudaGetDeviceProperties", &[NoAccess]),
        f("cudaGetDeviceProperties_v2", &[NoAccess]),
        f("cudaDeviceGetAttribute", &[NoAccess]),
        f("cudaDeviceSynchronize", &[SyncContext]),
        f("cudaDeviceReset", &[SyncContext]),
        f("cudaGetLastError", &[NoAccess]),
        f("cudaPeekAtLastError", &[NoAccess]),
        f("cudaGetErrorString", &[NoAccess]),
        f("cudaGetErrorName", &[NoAccess]),
        f("cudaMemGetInfo", &[NoAccess]),
        // Allocation and release.
        f("cudaMalloc", &[out(0, DEVICE), AllocatedBy(Allocator::Device)]),
        f("cudaMallocPitch", &[out(0, DEVICE), AllocatedBy(Allocator::Device)]),
        f(
            "cudaMallocAsync",
            &[out(0, DEVICE), AllocatedOn(2), AllocatedBy(Allocator::Device)],
        ),
        f(
            "cudaMallocFromPoolAsync",
            &[out(0, DEVICE), AllocatedOn(3), AllocatedBy(Allocator::Device)],
        ),
        f(
            "cudaMallocManaged",
            &[
                out(0, Target::Mem(MemKind::Managed)),
                AllocatedBy(Allocator::Device),
                Attach(super::Attach::NewByFlags { flags: 2 }),
            ],
        ),
        f(
            "cudaStreamAttachMemAsync",
            &[Attach(super::Attach::Mem {
                mem: 1,
                flags: 3,
                stream: 0,
            })],
        ),
        f("cudaMallocHost", &[out(0, PINNED), AllocatedBy(Allocator::PinnedHost)]),
        // A `__device__` variable's address: not an allocation.
        f(
            "cudaGetSymbolAddress",
            &[out(0, DEVICE), AllocatedBy(Allocator::ModuleGlobal)],
        ),
        f(
            "cudaHostAlloc",
            &[
                out(0, PINNED),
                AllocatedBy(Allocator::PinnedHost),
                WriteCombined(super::WriteCombined::FlagBit {
                    flags: 2,
                    bit: super::WRITE_COMBINED_BIT,
                }),
            ],
        ),
        f("cudaFree", &[freed_by(0, Allocator::Device), free(0)]),
        f("cudaFreeHost", &[freed_by(0, Allocator::PinnedHost), free(0)]),
        f(
            "cudaFreeAsync",
            &[freed_by(0, Allocator::Device), FreeOnStream { mem: 0, stream: 1 }],
        ),
        f("cudaHostRegister", &[RegisterInPlace(0)]),
        f("cudaHostUnregister", &[UnregisterInPlace(0)]),
        // The device's address of mapped pinned memory: the same memory, seen from the device.
        f("cudaHostGetDevicePointer", &[Derive(1), RetInto(0)]),
        f("cudaPointerGetAttributes", &[NoAccess]),
        f("cudaMemPrefetchAsync", &[NoAccess]),
        f("cudaMemAdvise", &[NoAccess]),
        // Copies and memsets: the direction is the `cudaMemcpyKind` argument.
        f(
            "cudaMemcpyBatchAsync",
            &[BatchCopy {
                dsts: 0,
                srcs: 1,
                attrs: 4,
            }],
        ),
        f(
            "cudaMemcpyAsync",
            &[Copy {
                dst: 0,
                src: 1,
                dir: Dir::KindArg(3),
                stream: 4,
                is_async: true,
            }],
        ),
        f(
            "cudaMemcpy",
            &[
                SyncStream(LEGACY),
                Copy {
                    dst: 0,
                    src: 1,
                    dir: Dir::KindArg(3),
                    stream: LEGACY,
                    is_async: false,
                },
            ],
        ),
        f(
            "cudaMemcpyPeerAsync",
            &[Copy {
                dst: 0,
                src: 2,
                dir: Dir::DeviceToDevice,
                stream: 5,
                is_async: true,
            }],
        ),
        f(
            "cudaMemsetAsync",
            &[Memset {
                dst: 0,
                stream: 3,
                is_async: true,
            }],
        ),
        f(
            "cudaMemset",
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
        f("cudaStreamCreate", &[out(0, STREAM)]),
        f(
            "cudaStreamCreateWithFlags",
            &[out(0, STREAM), NonBlocking { flags: Some(1) }],
        ),
        f(
            "cudaStreamCreateWithPriority",
            &[out(0, STREAM), NonBlocking { flags: Some(1) }],
        ),
        f("cudaStreamSynchronize", &[SyncStream(0)]),
        f("cudaStreamQuery", &[QueryStream(0)]),
        f("cudaStreamDestroy", &[NoAccess]),
        f("cudaStreamWaitEvent", &[StreamWaitEvent { stream: 0, event: 1 }]),
        f("cudaEventCreate", &[out(0, EVENT)]),
        f("cudaEventCreateWithFlags", &[out(0, EVENT)]),
        f("cudaEventRecord", &[RecordEvent { event: 0, stream: 1 }]),
        f("cudaEventRecordWithFlags", &[RecordEvent { event: 0, stream: 1 }]),
        f("cudaEventSynchronize", &[SyncEvent(0)]),
        f("cudaEventQuery", &[QueryEvent(0)]),
        f("cudaEventElapsedTime", &[NoAccess]),
        f("cudaEventDestroy", &[NoAccess]),
        // Launches: `cudaLaunchKernel(func, grid, block, args, sharedMem, stream)`.
        f(
            "cudaLaunchKernel",
            &[Launch {
                kernel: 0,
                stream: 5,
                args: 3,
            }],
        ),
        f(
            "cudaLaunchCooperativeKernel",
            &[Launch {
                kernel: 0,
                stream: 5,
                args: 3,
            }],
        ),
    ],
    symbol_modules: &["cudarc::runtime::sys", "cuda_runtime_sys", "cust_raw::runtime_sys"],
};
