//! cudarc's safe driver API (`cudarc::driver::safe`, 0.19) and its NVRTC wrapper.
//!
//! cudarc keeps much of its own use correct: while a context has more than one stream and
//! event tracking is on (`is_managing_stream_synchronization`), every `CudaSlice` records a
//! read and a write event for the work that uses it, and the next use on another stream, or
//! its drop, waits for them. Those calls carry [`TrackedByEvents`]. With a single stream, or
//! tracking disabled, nothing is recorded: `PinnedHostSlice::as_slice` then synchronizes an
//! event that was never recorded and returns while a copy into it still runs. The escape
//! hatches (`device_ptr` with its guard dropped early, `leak`, raw pointers handed to
//! `driver::result`/`sys`) enqueue work no event covers; the analysis sees them as such.
//!
//! The table is data; the policy those calls follow (what [`CudarcEffect`] does) is in
//! [`model`].

pub mod model;

use super::Effect::*;
use super::{Advice, Allocator, ApiFamily, Arg, Dir, FreeKind, MemKind, ObjKind, RET, Target, f, handle};
use CudarcEffect::{DevicePtrGuard, SyncMemory};

/// What cudarc's calls do beyond the shared vocabulary (see [`model`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CudarcEffect {
    /// The operation this call enqueues records events on the memory it uses (and waits for
    /// earlier ones), while its context manages stream synchronization.
    TrackedByEvents,
    /// The context's state changes (see [`ContextChange`]).
    Context(ContextChange),
    /// Waits for the event-recorded work that uses the memory `Arg` refers to
    /// (`PinnedHostSlice::as_slice` synchronizes its event).
    SyncMemory(Arg),
    /// Returns `(pointer, guard)`: the device pointer of `mem`, and a guard that, dropped,
    /// records the work enqueued on `stream` with it (`device_ptr`).
    DevicePtrGuard { mem: Arg, stream: Arg },
}

/// Changes to a context's state that decide whether cudarc records events by itself.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ContextChange {
    /// A new context: one stream, event tracking on.
    New,
    /// A second stream now exists.
    MoreStreams,
    TrackingOn,
    TrackingOff,
}

pub(crate) const TRACKED: super::Effect = Cudarc(CudarcEffect::TrackedByEvents);

const fn context(change: ContextChange) -> super::Effect {
    Cudarc(CudarcEffect::Context(change))
}

/// `cudarc::driver::safe::graph::NAME`.
macro_rules! graph {
    ($name:literal) => {
        concat!("cudarc::driver::safe::graph::", $name)
    };
}

/// `cudarc::driver::safe::core::NAME` (types and methods live in the private `core` module).
macro_rules! core {
    ($name:literal) => {
        concat!("cudarc::driver::safe::core::", $name)
    };
}

macro_rules! launch {
    ($name:literal) => {
        concat!("cudarc::driver::safe::launch::", $name)
    };
}

macro_rules! unified {
    ($name:literal) => {
        concat!("cudarc::driver::safe::unified_memory::", $name)
    };
}

macro_rules! nvrtc {
    ($name:literal) => {
        concat!("cudarc::nvrtc::safe::", $name)
    };
}

const fn copy(dst: u8, src: u8, dir: Dir) -> super::Effect {
    Copy {
        dst,
        src,
        dir,
        stream: 0,
        is_async: true,
    }
}

const NEW_DEVICE: super::Effect = New(Target::Mem(MemKind::Device));

/// `CudaSlice::clone`/`try_clone`: a copy on the slice's own stream (not known here: arg 0 is
/// the slice, which names no stream object), recorded by events.
const CLONE_ON_OWN_STREAM: &[super::Effect] = &[
    NEW_DEVICE,
    Copy {
        dst: RET,
        src: 0,
        dir: Dir::DeviceToDevice,
        stream: 0,
        is_async: true,
    },
    TRACKED,
];

pub static FAMILY: ApiFamily = ApiFamily {
    name: "cudarc",
    advice: Advice {
        pinned: "copy through pinned memory: a `PinnedHostSlice` from `CudaContext::alloc_pinned`",
        pinned_readback: "read back into pinned memory that is not write-combined: \
                          `CudaContext::alloc_pinned_with_flags(len, 0)` (`alloc_pinned` allocates \
                          write-combined memory, which the host reads slowly)",
        sync_stream: "`{stream}.synchronize()`",
        order_streams: "make this stream wait for the other's work (`stream.join(&other)`, or \
                        `stream.wait(&event)` on an event recorded after it)",
        copy_to_host: "copy the data to the host first (`stream.memcpy_dtoh` into a `PinnedHostSlice`, or `stream.clone_dtoh`)",
        copy_to_device: "write into host memory and copy it to the device (`stream.memcpy_htod`)",
        sync_statement: Some("{stream}.synchronize()?;"),
        error_type: "cudarc::driver::result::DriverError",
    },
    crates: &["cudarc"],
    functions: &[
        // Contexts: streams, events, event tracking, pinned and unified allocations.
        f(
            core!("CudaContext::new"),
            // The device's primary context: two `CudaContext::new(0)` share it, and its null stream.
            &[DeviceContext(0), context(ContextChange::New)],
        ),
        f(
            core!("CudaContext::new_non_primary"),
            &[New(Target::Obj(ObjKind::Context)), context(ContextChange::New)],
        ),
        f(core!("CudaContext::default_stream"), &[DefaultStream(0)]),
        f(core!("CudaContext::per_thread_stream"), &[PerThreadStream(0)]),
        f(
            core!("CudaContext::new_stream"),
            &[
                New(Target::Obj(ObjKind::Stream)),
                NonBlocking { flags: None },
                StreamOfContext(0),
                context(ContextChange::MoreStreams),
            ],
        ),
        f(
            core!("CudaContext::new_stream_with_priority"),
            &[
                New(Target::Obj(ObjKind::Stream)),
                NonBlocking { flags: None },
                StreamOfContext(0),
                context(ContextChange::MoreStreams),
            ],
        ),
        f(core!("CudaContext::new_event"), &[New(Target::Obj(ObjKind::Event))]),
        f(core!("CudaContext::synchronize"), &[SyncContextOf(0)]),
        f(
            core!("CudaContext::enable_event_tracking"),
            &[context(ContextChange::TrackingOn)],
        ),
        f(
            core!("CudaContext::disable_event_tracking"),
            &[context(ContextChange::TrackingOff)],
        ),
        // cudarc 0.19.10's `alloc_pinned` passes `CU_MEMHOSTALLOC_WRITECOMBINED`.
        f(
            core!("CudaContext::alloc_pinned"),
            &[
                New(Target::Mem(MemKind::Pinned)),
                WriteCombined(crate::api::WriteCombined::Always),
            ],
        ),
        f(
            core!("CudaContext::alloc_pinned_with_flags"),
            &[
                New(Target::Mem(MemKind::Pinned)),
                WriteCombined(crate::api::WriteCombined::FlagBit {
                    flags: 2,
                    bit: crate::api::WRITE_COMBINED_BIT,
                }),
            ],
        ),
        f(core!("CudaContext::load_module"), &[LoadModule(1)]),
        f(core!("CudaContext::bind_to_thread"), &[NoAccess]),
        f(core!("CudaContext::ordinal"), &[NoAccess]),
        f(core!("CudaContext::name"), &[NoAccess]),
        f(core!("CudaContext::cu_ctx"), &[NoAccess]),
        f(core!("CudaContext::cu_device"), &[NoAccess]),
        f(core!("CudaContext::attribute"), &[NoAccess]),
        f(core!("CudaContext::compute_capability"), &[NoAccess]),
        f(core!("CudaContext::total_mem"), &[NoAccess]),
        f(core!("CudaContext::mem_get_info"), &[NoAccess]),
        f(core!("CudaContext::has_async_alloc"), &[NoAccess]),
        f(core!("CudaContext::is_in_multi_stream_mode"), &[NoAccess]),
        f(core!("CudaContext::is_event_tracking"), &[NoAccess]),
        f(core!("CudaContext::is_managing_stream_synchronization"), &[NoAccess]),
        f(core!("CudaContext::check_err"), &[NoAccess]),
        f(core!("CudaContext::device_count"), &[NoAccess]),
        f(
            core!("CudaContext::alloc_unified"),
            &[
                New(Target::Mem(MemKind::Managed)),
                Attach(crate::api::Attach::NewGlobalIf { global: 2 }),
            ],
        ),
        // Streams: allocation, copies, memsets, ordering.
        f(
            core!("CudaStream::fork"),
            &[
                New(Target::Obj(ObjKind::Stream)),
                NonBlocking { flags: None },
                StreamOfContext(0),
                context(ContextChange::MoreStreams),
                StreamJoin { stream: RET, other: 0 },
            ],
        ),
        f(core!("CudaStream::synchronize"), &[SyncStream(0)]),
        f(
            core!("CudaStream::record_event"),
            &[New(Target::Obj(ObjKind::Event)), RecordEvent { event: RET, stream: 0 }],
        ),
        f(core!("CudaStream::wait"), &[StreamWaitEvent { stream: 0, event: 1 }]),
        f(core!("CudaStream::join"), &[StreamJoin { stream: 0, other: 1 }]),
        f(core!("CudaStream::cu_stream"), &[Derive(0)]),
        f(core!("CudaStream::context"), &[NoAccess]),
        f(core!("CudaStream::null"), &[NEW_DEVICE, AllocatedOn(0)]),
        f(
            core!("CudaStream::alloc"),
            &[NEW_DEVICE, AllocatedOn(0), Uninitialized, HoldsElements { count: 1 }],
        ),
        f(
            core!("CudaStream::alloc_zeros"),
            &[
                NEW_DEVICE,
                AllocatedOn(0),
                HoldsElements { count: 1 },
                Memset {
                    dst: RET,
                    stream: 0,
                    is_async: true,
                },
                TRACKED,
            ],
        ),
        f(
            core!("CudaStream::memset_zeros"),
            &[
                Memset {
                    dst: 1,
                    stream: 0,
                    is_async: true,
                },
                TRACKED,
            ],
        ),
        f(
            core!("CudaStream::memcpy_htod"),
            &[copy(2, 1, Dir::HostToDevice), CoversWhole(1), TRACKED],
        ),
        f(
            core!("CudaStream::memcpy_dtoh"),
            &[copy(2, 1, Dir::DeviceToHost), CoversWhole(1), TRACKED],
        ),
        f(
            core!("CudaStream::memcpy_dtod"),
            &[
                WaitForSourceOfOtherContext { stream: 0, src: 1 },
                copy(2, 1, Dir::DeviceToDevice),
                CoversWhole(1),
                TRACKED,
            ],
        ),
        f(
            core!("CudaStream::clone_htod"),
            &[NEW_DEVICE, AllocatedOn(0), copy(RET, 1, Dir::HostToDevice), TRACKED],
        ),
        f(
            core!("CudaStream::memcpy_stod"),
            &[NEW_DEVICE, AllocatedOn(0), copy(RET, 1, Dir::HostToDevice), TRACKED],
        ),
        f(
            core!("CudaStream::clone_dtoh"),
            &[
                New(Target::Mem(MemKind::Pageable)),
                copy(RET, 1, Dir::DeviceToHost),
                TRACKED,
            ],
        ),
        f(
            core!("CudaStream::memcpy_dtov"),
            &[
                New(Target::Mem(MemKind::Pageable)),
                copy(RET, 1, Dir::DeviceToHost),
                TRACKED,
            ],
        ),
        f(
            core!("CudaStream::clone_dtod"),
            &[
                NEW_DEVICE,
                AllocatedOn(0),
                WaitForSourceOfOtherContext { stream: 0, src: 1 },
                copy(RET, 1, Dir::DeviceToDevice),
                TRACKED,
            ],
        ),
        f(
            core!("CudaStream::upgrade_device_ptr"),
            &[Derive(1), AllocatedOn(0), Adopts(1)],
        ),
        // A view of a module's `__device__` variable: not an allocation (a slice made over it
        // with `upgrade_device_ptr` would free it on drop: cudarc issue #514).
        f(
            core!("CudaModule::get_global"),
            &[New(Target::Mem(MemKind::Device)), AllocatedBy(Allocator::ModuleGlobal)],
        ),
        // Device memory: views and raw device pointers.
        f(core!("CudaSlice::len"), &[NoAccess]),
        f(core!("CudaSlice::num_bytes"), &[NoAccess]),
        f(core!("CudaSlice::is_empty"), &[NoAccess]),
        f(core!("CudaSlice::ordinal"), &[NoAccess]),
        f(core!("CudaSlice::context"), &[NoAccess]),
        f(core!("CudaSlice::stream"), &[StreamOf(0)]),
        f(core!("CudaSlice::as_view"), &[Derive(0)]),
        f(core!("CudaSlice::as_view_mut"), &[Derive(0)]),
        f(core!("CudaSlice::slice"), &[Derive(0)]),
        f(core!("CudaSlice::try_slice"), &[Derive(0)]),
        f(core!("CudaSlice::slice_mut"), &[Derive(0)]),
        f(core!("CudaSlice::try_slice_mut"), &[Derive(0)]),
        f(core!("CudaSlice::split_at"), &[Derive(0)]),
        f(core!("CudaSlice::try_split_at"), &[Derive(0)]),
        f(core!("CudaSlice::split_at_mut"), &[Derive(0)]),
        f(core!("CudaSlice::try_split_at_mut"), &[Derive(0)]),
        f(core!("CudaSlice::transmute"), &[Derive(0)]),
        f(core!("CudaSlice::transmute_mut"), &[Derive(0)]),
        // The memory is no longer freed by the slice: the pointer owns it.
        f(core!("CudaSlice::leak"), &[Derive(0), GivesUp(0)]),
        f(core!("CudaSlice::try_clone"), CLONE_ON_OWN_STREAM),
        f(core!("CudaSlice::clone"), CLONE_ON_OWN_STREAM),
        f(core!("CudaView::len"), &[NoAccess]),
        f(core!("CudaView::is_empty"), &[NoAccess]),
        f(core!("CudaView::slice"), &[Derive(0)]),
        f(core!("CudaView::try_slice"), &[Derive(0)]),
        f(core!("CudaView::split_at"), &[Derive(0)]),
        f(core!("CudaView::try_split_at"), &[Derive(0)]),
        f(core!("CudaView::transmute"), &[Derive(0)]),
        f(core!("CudaView::chunks_exact"), &[Derive(0)]),
        f(
            core!("CudaView::view_ptr"),
            &[Cudarc(DevicePtrGuard { mem: 0, stream: 1 })],
        ),
        f(core!("CudaViewMut::len"), &[NoAccess]),
        f(core!("CudaViewMut::is_empty"), &[NoAccess]),
        f(core!("CudaViewMut::as_view"), &[Derive(0)]),
        f(core!("CudaViewMut::into_view"), &[Derive(0)]),
        f(core!("CudaViewMut::slice"), &[Derive(0)]),
        f(core!("CudaViewMut::try_slice"), &[Derive(0)]),
        f(core!("CudaViewMut::slice_mut"), &[Derive(0)]),
        f(core!("CudaViewMut::try_slice_mut"), &[Derive(0)]),
        f(core!("CudaViewMut::split_at_mut"), &[Derive(0)]),
        f(core!("CudaViewMut::try_split_at_mut"), &[Derive(0)]),
        f(core!("CudaViewMut::chunks_exact_mut"), &[Derive(0)]),
        f(core!("CudaViewMut::transmute"), &[Derive(0)]),
        f(core!("CudaViewMut::transmute_mut"), &[Derive(0)]),
        f(
            core!("CudaViewMut::view_ptr"),
            &[Cudarc(DevicePtrGuard { mem: 0, stream: 1 })],
        ),
        f(
            core!("CudaViewMut::view_ptr_mut"),
            &[Cudarc(DevicePtrGuard { mem: 0, stream: 1 })],
        ),
        f(core!("DeviceSlice::len"), &[NoAccess]),
        f(core!("DeviceSlice::num_bytes"), &[NoAccess]),
        f(core!("DeviceSlice::is_empty"), &[NoAccess]),
        f(core!("DeviceSlice::stream"), &[StreamOf(0)]),
        f(
            core!("DevicePtr::device_ptr"),
            &[Cudarc(DevicePtrGuard { mem: 0, stream: 1 })],
        ),
        f(
            core!("DevicePtrMut::device_ptr_mut"),
            &[Cudarc(DevicePtrGuard { mem: 0, stream: 1 })],
        ),
        f(core!("HostSlice::len"), &[NoAccess]),
        f(core!("HostSlice::is_empty"), &[NoAccess]),
        // Pinned host memory: the accessors synchronize its event, which records work only
        // while the context manages stream synchronization.
        f(core!("PinnedHostSlice::len"), &[NoAccess]),
        f(core!("PinnedHostSlice::num_bytes"), &[NoAccess]),
        f(core!("PinnedHostSlice::is_empty"), &[NoAccess]),
        f(core!("PinnedHostSlice::context"), &[NoAccess]),
        f(core!("PinnedHostSlice::as_ptr"), &[Cudarc(SyncMemory(0)), Derive(0)]),
        f(
            core!("PinnedHostSlice::as_mut_ptr"),
            &[Cudarc(SyncMemory(0)), Derive(0)],
        ),
        f(core!("PinnedHostSlice::as_slice"), &[Cudarc(SyncMemory(0)), Derive(0)]),
        f(
            core!("PinnedHostSlice::as_mut_slice"),
            &[Cudarc(SyncMemory(0)), Derive(0)],
        ),
        // Unified memory: same accessors, same event.
        f(unified!("UnifiedSlice::len"), &[NoAccess]),
        f(unified!("UnifiedSlice::num_bytes"), &[NoAccess]),
        f(unified!("UnifiedSlice::is_empty"), &[NoAccess]),
        f(unified!("UnifiedSlice::attach_mode"), &[NoAccess]),
        f(
            unified!("UnifiedSlice::attach"),
            &[Attach(crate::api::Attach::Mem {
                mem: 0,
                flags: 2,
                stream: 1,
            })],
        ),
        f(unified!("UnifiedSlice::prefetch"), &[NoAccess]),
        f(unified!("UnifiedSlice::check_host_access"), &[NoAccess]),
        f(unified!("UnifiedSlice::check_device_access"), &[NoAccess]),
        f(unified!("UnifiedSlice::as_view"), &[Derive(0)]),
        f(unified!("UnifiedSlice::as_view_mut"), &[Derive(0)]),
        f(unified!("UnifiedSlice::slice"), &[Derive(0)]),
        f(unified!("UnifiedSlice::slice_mut"), &[Derive(0)]),
        f(unified!("UnifiedSlice::as_slice"), &[Cudarc(SyncMemory(0)), Derive(0)]),
        f(
            unified!("UnifiedSlice::as_mut_slice"),
            &[Cudarc(SyncMemory(0)), Derive(0)],
        ),
        // Events.
        f(core!("CudaEvent::record"), &[RecordEvent { event: 0, stream: 1 }]),
        f(core!("CudaEvent::synchronize"), &[SyncEvent(0)]),
        f(core!("CudaEvent::elapsed_ms"), &[NoAccess]),
        f(core!("CudaEvent::is_complete"), &[QueryEvent(0)]),
        f(core!("CudaEvent::try_is_complete"), &[QueryEvent(0)]),
        f(core!("CudaEvent::cu_event"), &[Derive(0)]),
        f(core!("CudaEvent::context"), &[NoAccess]),
        // Modules and launches.
        f(
            core!("CudaModule::load_function"),
            &[GetFunction { module: 0, name: 1 }],
        ),
        f(core!("CudaFunction::cu_function"), &[Derive(0)]),
        f(launch!("LaunchConfig::for_num_elems"), &[NoAccess]),
        f(
            core!("CudaStream::launch_builder"),
            &[LaunchBuilder { kernel: 1, stream: 0 }],
        ),
        f(launch!("PushKernelArg::arg"), &[Push { vec: 0, value: 1 }]),
        // Graph capture (`graph.rs`): work on the stream is recorded from `begin_capture` to
        // `end_capture`, which returns the graph, instantiated; `launch` runs it on the stream
        // that captured it.
        f(
            core!("CudaStream::begin_capture"),
            &[BeginCapture {
                stream: 0,
                mode: Some(1),
            }],
        ),
        f(core!("CudaStream::end_capture"), &[EndCapture(0)]),
        f(graph!("CudaGraph::launch"), &[GraphLaunch { graph: 0, stream: None }]),
        f(graph!("CudaGraph::upload"), &[NoAccess]),
        f(launch!("LaunchArgs::record_kernel_launch"), &[Derive(0)]),
        f(launch!("LaunchArgs::launch"), &[LaunchBuilt(0), TRACKED]),
        f(launch!("LaunchArgs::launch_cooperative"), &[LaunchBuilt(0), TRACKED]),
        f(nvrtc!("compile_ptx"), &[CompileSource(0)]),
        f(nvrtc!("compile_ptx_with_opts"), &[CompileSource(0)]),
        f(nvrtc!("Ptx::from_src"), &[CompileSource(0)]),
        f(nvrtc!("Ptx::from_file"), &[New(Target::Obj(ObjKind::Module))]),
        f(nvrtc!("Ptx::from_binary"), &[New(Target::Obj(ObjKind::Module))]),
        // The PTX text: it is the module's source, wherever it is loaded (`cuModuleLoadData`).
        f(nvrtc!("Ptx::to_src"), &[Derive(0)]),
    ],
    types: &[
        handle(core!("CudaContext"), Target::Obj(ObjKind::Context), None),
        handle(core!("CudaStream"), Target::Obj(ObjKind::Stream), None),
        handle(core!("CudaEvent"), Target::Obj(ObjKind::Event), None),
        handle(core!("CudaModule"), Target::Obj(ObjKind::Module), None),
        handle(core!("CudaFunction"), Target::Obj(ObjKind::Kernel), None),
        handle(
            core!("CudaSlice"),
            Target::Mem(MemKind::Device),
            Some(FreeKind::StreamOrdered),
        ),
        handle(core!("CudaView"), Target::Mem(MemKind::Device), None),
        handle(core!("CudaViewMut"), Target::Mem(MemKind::Device), None),
        // Dropping synchronizes its event, then `cuMemFreeHost` (which waits for the device).
        handle(
            core!("PinnedHostSlice"),
            Target::Mem(MemKind::Pinned),
            Some(FreeKind::Waits),
        ),
        handle(
            unified!("UnifiedSlice"),
            Target::Mem(MemKind::Managed),
            Some(FreeKind::Waits),
        ),
        handle(unified!("UnifiedView"), Target::Mem(MemKind::Managed), None),
        handle(unified!("UnifiedViewMut"), Target::Mem(MemKind::Managed), None),
        handle(core!("SyncOnDrop"), Target::Obj(ObjKind::Guard), None),
        handle(launch!("LaunchArgs"), Target::Obj(ObjKind::LaunchBuilder), None),
        handle(graph!("CudaGraph"), Target::Obj(ObjKind::Graph), None),
        handle(nvrtc!("Ptx"), Target::Obj(ObjKind::Module), None),
    ],
    symbol_modules: &[],
};

#[cfg(test)]
mod tests {
    #[test]
    fn paths_are_in_the_safe_api() {
        for f in super::FAMILY.functions {
            assert!(
                f.path.starts_with("cudarc::driver::safe::") || f.path.starts_with("cudarc::nvrtc::safe::"),
                "{}",
                f.path
            );
        }
    }
}
