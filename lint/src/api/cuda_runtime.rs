//! The CUDA runtime API (`cudart`): cudarc's thin `runtime::result` wrappers, and the modules
//! of bindings named after its C functions (`cudarc::runtime::sys`). The C functions themselves,
//! called through those bindings or a crate's own `extern "C"` block, are the shared C table's
//! (`lint/c-api`, read by `c_functions.rs`).

use super::Effect::*;
use super::{Advice, Allocator, ApiFamily, Dir, Effect, FreeKind, LEGACY, MemKind, ObjKind, Target, f, handle};

/// `cudaFree`: waits for the device only as an implementation detail.
const fn free(mem: u8) -> Effect {
    Free {
        mem,
        kind: FreeKind::WaitsImplicitly,
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
        f(
            result!("malloc_sync"),
            &[
                New(DEVICE),
                AllocatedBy(Allocator::Device),
                Holds { bytes: 0, times: None },
            ],
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
        f(result!("free_sync"), &[freed_by(0, Allocator::Device), free(0)]),
        f(result!("memory_free"), &[freed_by(0, Allocator::Device), free(0)]),
        f(
            result!("free_async"),
            &[freed_by(0, Allocator::Device), FreeOnStream { mem: 0, stream: 1 }],
        ),
        f(
            result!("memset_d8_async"),
            &[memset(0, 3, true), Covers { count: 2, unit: 1 }],
        ),
        f(
            result!("memset_d8_sync"),
            &[
                SyncStream(LEGACY),
                memset(0, LEGACY, false),
                Covers { count: 2, unit: 1 },
            ],
        ),
        f(
            result!("memcpy_htod_async"),
            &[copy(0, 1, Dir::HostToDevice, 2, true), CoversWhole(1)],
        ),
        f(
            result!("memcpy_dtoh_async"),
            &[copy(0, 1, Dir::DeviceToHost, 2, true), CoversWhole(0)],
        ),
        f(
            result!("memcpy_dtod_async"),
            &[copy(0, 1, Dir::DeviceToDevice, 3, true), Covers { count: 2, unit: 1 }],
        ),
        f(
            result!("memcpy_htod_sync"),
            &[
                SyncStream(LEGACY),
                copy(0, 1, Dir::HostToDevice, LEGACY, false),
                CoversWhole(1),
            ],
        ),
        f(
            result!("memcpy_dtoh_sync"),
            &[
                SyncStream(LEGACY),
                copy(0, 1, Dir::DeviceToHost, LEGACY, false),
                CoversWhole(0),
            ],
        ),
        f(
            result!("memcpy_dtod_sync"),
            &[
                SyncStream(LEGACY),
                copy(0, 1, Dir::DeviceToDevice, LEGACY, false),
                Covers { count: 2, unit: 1 },
            ],
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
    symbol_modules: &["cudarc::runtime::sys", "cuda_runtime_sys", "cust_raw::runtime_sys"],
};
