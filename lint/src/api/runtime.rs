//! This project's runtime layer, `cuda_lint_runtime` (see `runtime/API.md`).

use super::Effect::*;
use super::{Advice, Allocator, ApiFamily, Dir, FreeKind, MemKind, ObjKind, RET, Target, f, handle};

pub static FAMILY: ApiFamily = ApiFamily {
    name: "cuda-lint-runtime",
    advice: Advice {
        pinned: "allocate the host buffer as pinned memory (`Context::alloc_pinned`) or page-lock it \
                 (`Context::register_host`)",
        pinned_readback: "read back into pinned memory that is not write-combined (`Context::alloc_pinned`, \
                          or `alloc_pinned_with_flags` with `write_combined: false`)",
        sync_stream: "`{stream}.synchronize()`",
        order_streams: "record an event after the first work and make this stream wait on it \
                        (`Stream::wait_event`)",
        copy_to_host: "copy the data to host memory first (`Stream::copy_dtoh` or `Stream::clone_dtoh`)",
        copy_to_device: "write into host memory and copy it to the device (`Stream::copy_htod`)",
        sync_statement: Some("{stream}.synchronize()?;"),
        error_type: "cuda_lint_runtime::error::Error",
    },
    crates: &["cuda_lint_runtime"],
    functions: &[
        // Context: objects, allocation, synchronization.
        f(
            "cuda_lint_runtime::context::Context::new",
            &[New(Target::Obj(ObjKind::Context))],
        ),
        f("cuda_lint_runtime::context::Context::synchronize", &[SyncContext]),
        f(
            "cuda_lint_runtime::context::Context::new_stream",
            // `cuStreamCreate` with `CU_STREAM_NON_BLOCKING`: the legacy stream does not wait.
            &[New(Target::Obj(ObjKind::Stream)), NonBlocking { flags: None }],
        ),
        f(
            "cuda_lint_runtime::context::Context::new_event",
            &[New(Target::Obj(ObjKind::Event))],
        ),
        f(
            "cuda_lint_runtime::context::Context::new_timing_event",
            &[New(Target::Obj(ObjKind::Event))],
        ),
        f(
            "cuda_lint_runtime::context::Context::alloc",
            &[
                New(Target::Mem(MemKind::Device)),
                AllocatedBy(Allocator::Device),
                Uninitialized,
            ],
        ),
        f(
            "cuda_lint_runtime::context::Context::alloc_zeroed",
            &[New(Target::Mem(MemKind::Device)), AllocatedBy(Allocator::Device)],
        ),
        f(
            "cuda_lint_runtime::context::Context::alloc_pinned",
            &[New(Target::Mem(MemKind::Pinned)), AllocatedBy(Allocator::PinnedHost)],
        ),
        f(
            "cuda_lint_runtime::context::Context::alloc_pinned_with_flags",
            &[
                New(Target::Mem(MemKind::Pinned)),
                AllocatedBy(Allocator::PinnedHost),
                // `PinnedFlags { portable, device_mapped, write_combined }`
                WriteCombined(super::WriteCombined::BoolField { arg: 2, field: 2 }),
            ],
        ),
        f(
            "cuda_lint_runtime::context::Context::alloc_managed",
            &[New(Target::Mem(MemKind::Managed)), AllocatedBy(Allocator::Device)],
        ),
        f(
            "cuda_lint_runtime::context::Context::register_host",
            &[Register { host: 1 }],
        ),
        f("cuda_lint_runtime::context::Context::compile_ptx", &[CompileSource(1)]),
        f("cuda_lint_runtime::context::Context::load_cuda", &[CompileSource(1)]),
        f("cuda_lint_runtime::context::Context::load_module", &[LoadModule(1)]),
        f("cuda_lint_runtime::context::Context::bind_to_thread", &[NoAccess]),
        f("cuda_lint_runtime::context::Context::device", &[NoAccess]),
        f("cuda_lint_runtime::context::Context::vmm_supported", &[NoAccess]),
        f("cuda_lint_runtime::context::Context::vmm_granularity", &[NoAccess]),
        // Streams: copies, memsets, launches, ordering.
        f(
            "cuda_lint_runtime::stream::Stream::copy_htod_async",
            &[Copy {
                dst: 1,
                src: 2,
                dir: Dir::HostToDevice,
                stream: 0,
                is_async: true,
            }],
        ),
        f(
            "cuda_lint_runtime::stream::Stream::copy_dtoh_async",
            &[Copy {
                dst: 1,
                src: 2,
                dir: Dir::DeviceToHost,
                stream: 0,
                is_async: true,
            }],
        ),
        f(
            "cuda_lint_runtime::stream::Stream::copy_dtod_async",
            &[Copy {
                dst: 1,
                src: 2,
                dir: Dir::DeviceToDevice,
                stream: 0,
                is_async: true,
            }],
        ),
        f(
            "cuda_lint_runtime::stream::Stream::memset_d8_async",
            &[Memset {
                dst: 1,
                stream: 0,
                is_async: true,
            }],
        ),
        f(
            "cuda_lint_runtime::stream::Stream::memset_d32_async",
            &[Memset {
                dst: 1,
                stream: 0,
                is_async: true,
            }],
        ),
        f(
            "cuda_lint_runtime::stream::Stream::copy_htod",
            &[
                Copy {
                    dst: 1,
                    src: 2,
                    dir: Dir::HostToDevice,
                    stream: 0,
                    is_async: false,
                },
                SyncStream(0),
            ],
        ),
        f(
            "cuda_lint_runtime::stream::Stream::copy_dtoh",
            &[
                Copy {
                    dst: 1,
                    src: 2,
                    dir: Dir::DeviceToHost,
                    stream: 0,
                    is_async: false,
                },
                SyncStream(0),
            ],
        ),
        f(
            "cuda_lint_runtime::stream::Stream::copy_dtod",
            &[
                Copy {
                    dst: 1,
                    src: 2,
                    dir: Dir::DeviceToDevice,
                    stream: 0,
                    is_async: false,
                },
                SyncStream(0),
            ],
        ),
        f(
            "cuda_lint_runtime::stream::Stream::memset_d8",
            &[
                Memset {
                    dst: 1,
                    stream: 0,
                    is_async: false,
                },
                SyncStream(0),
            ],
        ),
        f(
            "cuda_lint_runtime::stream::Stream::memset_d32",
            &[
                Memset {
                    dst: 1,
                    stream: 0,
                    is_async: false,
                },
                SyncStream(0),
            ],
        ),
        f(
            "cuda_lint_runtime::stream::Stream::clone_htod",
            &[
                New(Target::Mem(MemKind::Device)),
                Copy {
                    dst: RET,
                    src: 1,
                    dir: Dir::HostToDevice,
                    stream: 0,
                    is_async: false,
                },
                SyncStream(0),
            ],
        ),
        f(
            "cuda_lint_runtime::stream::Stream::clone_dtoh",
            &[
                New(Target::Mem(MemKind::Pageable)),
                Copy {
                    dst: RET,
                    src: 1,
                    dir: Dir::DeviceToHost,
                    stream: 0,
                    is_async: false,
                },
                SyncStream(0),
            ],
        ),
        f("cuda_lint_runtime::stream::Stream::synchronize", &[SyncStream(0)]),
        f("cuda_lint_runtime::stream::Stream::query", &[QueryStream(0)]),
        f(
            "cuda_lint_runtime::stream::Stream::record_event",
            &[RecordEvent { event: 1, stream: 0 }],
        ),
        f(
            "cuda_lint_runtime::stream::Stream::wait_event",
            &[StreamWaitEvent { stream: 0, event: 1 }],
        ),
        f(
            "cuda_lint_runtime::stream::Stream::launch",
            &[Launch {
                kernel: 1,
                stream: 0,
                args: 3,
            }],
        ),
        // Events and timing.
        f("cuda_lint_runtime::stream::Event::synchronize", &[SyncEvent(0)]),
        f("cuda_lint_runtime::stream::Event::query", &[QueryEvent(0)]),
        f("cuda_lint_runtime::stream::Event::elapsed_ms", &[NoAccess]),
        f(
            "cuda_lint_runtime::timing::EventTimer::new",
            &[New(Target::Obj(ObjKind::Event))],
        ),
        f("cuda_lint_runtime::timing::EventTimer::start", &[NoAccess]),
        f(
            "cuda_lint_runtime::timing::EventTimer::stop",
            &[RecordEvent { event: 0, stream: 1 }],
        ),
        f("cuda_lint_runtime::timing::EventTimer::elapsed_ms", &[SyncEvent(0)]),
        f("cuda_lint_runtime::timing::time_ms", &[SyncStream(0)]),
        // Kernels.
        f("cuda_lint_runtime::kernel::Ptx::from_src", &[CompileSource(0)]),
        f(
            "cuda_lint_runtime::kernel::Module::function",
            &[GetFunction { module: 0, name: 1 }],
        ),
        // Memory handles: views and raw pointers.
        f("cuda_lint_runtime::memory::DeviceBuffer::len", &[NoAccess]),
        f("cuda_lint_runtime::memory::DeviceBuffer::is_empty", &[NoAccess]),
        f("cuda_lint_runtime::memory::DeviceBuffer::num_bytes", &[NoAccess]),
        f("cuda_lint_runtime::memory::DeviceBuffer::device_ptr", &[Derive(0)]),
        f("cuda_lint_runtime::memory::DeviceBuffer::into_raw", &[Derive(0)]),
        f("cuda_lint_runtime::memory::DeviceBuffer::from_raw_parts", &[Derive(1)]),
        f("cuda_lint_runtime::memory::PinnedBuffer::flags", &[NoAccess]),
        f(
            "cuda_lint_runtime::memory::PinnedBuffer::mapped_device_ptr",
            &[Derive(0)],
        ),
        f("cuda_lint_runtime::memory::ManagedBuffer::device_ptr", &[Derive(0)]),
        f("cuda_lint_runtime::memory::DevicePtr::as_raw", &[Derive(0)]),
        f("cuda_lint_runtime::memory::DevicePtr::offset_bytes", &[Derive(0)]),
        f("cuda_lint_runtime::memory::DeviceMemory::device_ptr", &[Derive(0)]),
        f("cuda_lint_runtime::memory::DeviceMemory::num_bytes", &[NoAccess]),
        // A pointer to the argument value itself (the `u64` inside a `DevicePtr`), not through it.
        f("cuda_lint_runtime::kernel::KernelArg::param_ptr", &[Transparent]),
        // VMM.
        f(
            "cuda_lint_runtime::vmm::PhysicalAllocation::new",
            &[New(Target::Obj(ObjKind::Physical))],
        ),
        f(
            "cuda_lint_runtime::vmm::VirtualRange::reserve",
            &[New(Target::Obj(ObjKind::AddressRange))],
        ),
        // It grants this device read-write access before it returns the mapping.
        f(
            "cuda_lint_runtime::vmm::VirtualRange::map",
            &[Map { physical: 1 }, SetAccess { va: RET }],
        ),
        // It waits for the context before it unmaps.
        f(
            "cuda_lint_runtime::vmm::Mapping::unmap",
            &[
                Free {
                    mem: 0,
                    kind: FreeKind::Waits,
                },
                New(Target::Obj(ObjKind::AddressRange)),
            ],
        ),
        f("cuda_lint_runtime::vmm::Mapping::set_access", &[NoAccess]),
        f("cuda_lint_runtime::vmm::Mapping::device_ptr", &[Derive(0)]),
        f("cuda_lint_runtime::vmm::Mapping::size", &[NoAccess]),
        f("cuda_lint_runtime::vmm::Mapping::physical_id", &[NoAccess]),
    ],
    types: &[
        handle(
            "cuda_lint_runtime::memory::DeviceBuffer",
            Target::Mem(MemKind::Device),
            Some(FreeKind::Waits),
        ),
        handle(
            "cuda_lint_runtime::memory::PinnedBuffer",
            Target::Mem(MemKind::Pinned),
            Some(FreeKind::Waits),
        ),
        handle(
            "cuda_lint_runtime::memory::RegisteredHost",
            Target::Mem(MemKind::Pinned),
            Some(FreeKind::Waits),
        ),
        handle(
            "cuda_lint_runtime::memory::ManagedBuffer",
            Target::Mem(MemKind::Managed),
            Some(FreeKind::Waits),
        ),
        handle(
            "cuda_lint_runtime::memory::DevicePtr",
            Target::Mem(MemKind::Device),
            None,
        ),
        handle(
            "cuda_lint_runtime::vmm::Mapping",
            Target::Mem(MemKind::VmmMapping),
            Some(FreeKind::Waits),
        ),
        handle(
            "cuda_lint_runtime::vmm::PhysicalAllocation",
            Target::Obj(ObjKind::Physical),
            None,
        ),
        handle(
            "cuda_lint_runtime::vmm::VirtualRange",
            Target::Obj(ObjKind::AddressRange),
            None,
        ),
        handle("cuda_lint_runtime::stream::Stream", Target::Obj(ObjKind::Stream), None),
        handle("cuda_lint_runtime::stream::Event", Target::Obj(ObjKind::Event), None),
        handle(
            "cuda_lint_runtime::timing::EventTimer",
            Target::Obj(ObjKind::Event),
            None,
        ),
        handle(
            "cuda_lint_runtime::context::Context",
            Target::Obj(ObjKind::Context),
            None,
        ),
        handle("cuda_lint_runtime::kernel::Ptx", Target::Obj(ObjKind::Module), None),
        handle("cuda_lint_runtime::kernel::Module", Target::Obj(ObjKind::Module), None),
        handle("cuda_lint_runtime::kernel::Kernel", Target::Obj(ObjKind::Kernel), None),
    ],
    symbol_modules: &[],
};
