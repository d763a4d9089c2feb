//! The CUDA driver API: cudarc's thin `driver::result` wrappers, and the modules of bindings
//! named after its C functions (`cudarc::driver::sys`). The C functions themselves, called
//! through those bindings or a crate's own `extern "C"` block, are the shared C table's
//! (`lint/c-api`, read by `c_functions.rs`).
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
        // Graph capture: the captured work is recorded, not run; `end_capture` returns the
        // graph, `graph::instantiate` its executable form (the same graph, to the analysis),
        // `graph::launch` runs it on a stream.
        f(
            result!("stream::begin_capture"),
            &[BeginCapture {
                stream: 0,
                mode: Some(1),
            }],
        ),
        f(result!("stream::end_capture"), &[EndCapture(0)]),
        f(result!("stream::is_capturing"), &[NoAccess]),
        f(result!("graph::instantiate"), &[Derive(0)]),
        f(
            result!("graph::launch"),
            &[GraphLaunch {
                graph: 0,
                stream: Some(1),
            }],
        ),
        f(result!("graph::upload"), &[NoAccess]),
        f(result!("graph::exec_destroy"), &[NoAccess]),
        f(result!("graph::destroy"), &[NoAccess]),
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
        f(
            result!("malloc_sync"),
            &[
                New(DEVICE),
                AllocatedBy(Allocator::Device),
                Holds { bytes: 0, times: None },
            ],
        ),
        // `(address, size)` of a module's `__device__`/`__constant__` variable.
        f(
            result!("module::get_global"),
            &[New(DEVICE), AllocatedBy(Allocator::ModuleGlobal)],
        ),
        f(
            result!("malloc_async"),
            &[
                New(DEVICE),
                AllocatedOn(0),
                AllocatedBy(Allocator::Device),
                Holds { bytes: 1, times: None },
            ],
        ),
        f(
            result!("malloc_managed"),
            &[
                New(Target::Mem(MemKind::Managed)),
                AllocatedBy(Allocator::Device),
                Holds { bytes: 0, times: None },
            ],
        ),
        f(
            result!("malloc_host"),
            &[
                New(PINNED),
                AllocatedBy(Allocator::PinnedHost),
                Holds { bytes: 0, times: None },
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
                    kind: FreeKind::WaitsImplicitly,
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
                    kind: FreeKind::WaitsImplicitly,
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
                    kind: FreeKind::WaitsImplicitly,
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
            &[
                Memset {
                    dst: 0,
                    stream: 3,
                    is_async: true,
                },
                Covers { count: 2, unit: 1 },
            ],
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
                Covers { count: 2, unit: 1 },
            ],
        ),
        f(
            result!("memcpy_htod_async"),
            &[copy_async(0, 1, Dir::HostToDevice, 2), CoversWhole(1)],
        ),
        f(
            result!("memcpy_dtoh_async"),
            &[copy_async(0, 1, Dir::DeviceToHost, 2), CoversWhole(0)],
        ),
        f(
            result!("memcpy_dtod_async"),
            &[copy_async(0, 1, Dir::DeviceToDevice, 3), Covers { count: 2, unit: 1 }],
        ),
        f(
            result!("memcpy_peer_async"),
            &[copy_async(1, 3, Dir::DeviceToDevice, 5)],
        ),
        f(
            result!("memcpy_htod_sync"),
            &[
                SyncStream(LEGACY),
                copy_blocking(0, 1, Dir::HostToDevice),
                CoversWhole(1),
            ],
        ),
        f(
            result!("memcpy_dtoh_sync"),
            &[
                SyncStream(LEGACY),
                copy_blocking(0, 1, Dir::DeviceToHost),
                CoversWhole(0),
            ],
        ),
        f(
            result!("memcpy_dtod_sync"),
            &[
                SyncStream(LEGACY),
                copy_blocking(0, 1, Dir::DeviceToDevice),
                Covers { count: 2, unit: 1 },
            ],
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
    symbol_modules: &[
        "cudarc::driver::sys",
        "cuda_driver_sys",
        "cust_raw::driver_sys",
        "cuda_sys::cuda",
    ],
};
