//! The C functions of the CUDA runtime and driver APIs and of the C allocator, from the table
//! both front ends read (`lint/c-api`), in this front end's vocabulary. They match a function
//! of that name declared in any `extern "C"` block (a crate's own FFI), or defined in one of a
//! family's `symbol_modules` (`cudarc::driver::sys`).

use super::Effect::*;
use super::{Allocator, ApiFamily, Dir, Effect, FreeKind, LEGACY, MemKind, ObjKind, Target};
use cuda_lint_c_api as c;

/// The family whose advice and bindings a C function's calls take.
pub fn family(family: c::Family) -> &'static ApiFamily {
    match family {
        c::Family::Runtime => &super::cuda_runtime::FAMILY,
        c::Family::Driver => &super::cuda_driver::FAMILY,
        c::Family::CHeap => &super::std_lib::FAMILY,
        c::Family::Mpi => &super::mpi::FAMILY,
        c::Family::Library => &super::libraries::FAMILY,
    }
}

/// What a call of the C function `name` with these effects does, or `None` where one of them
/// is not modelled by this front end (then the function stays unknown, as an opaque call; every
/// effect of the table is modelled today).
pub fn effects(effects: &[c::Effect], name: &'static str) -> Option<Vec<Effect>> {
    let mut out = Vec::new();
    for e in effects {
        out.extend(effect(*e, name)?);
    }
    Some(out)
}

fn effect(e: c::Effect, name: &'static str) -> Option<Vec<Effect>> {
    let a = |i: c::Arg| i as u8;
    let blocking = |stream: Option<c::Arg>| match stream {
        Some(s) => (a(s), true),
        None => (LEGACY, false),
    };
    Some(match e {
        c::Effect::NoAccess => vec![NoAccess],
        c::Effect::Holds { bytes, times } => vec![Holds {
            bytes: a(bytes),
            times: times.map(a),
        }],
        c::Effect::Covers { count, unit } => vec![Covers { count: a(count), unit }],
        // The release of every allocation (`cudaDeviceReset`): nothing the Rust front end
        // follows yet.
        c::Effect::ReleasesAll => vec![],
        c::Effect::AllocOut { out, kind, by } => vec![
            NewOut {
                out: a(out),
                target: Target::Mem(kind),
            },
            AllocatedBy(by),
        ],
        c::Effect::AllocRet { kind, by } => vec![New(Target::Mem(kind)), AllocatedBy(by)],
        c::Effect::Returns { kind } => vec![New(Target::Mem(kind))],
        c::Effect::AllocatedOn(s) => vec![AllocatedOn(a(s))],
        c::Effect::WriteCombinedIf { flags } => vec![WriteCombined(super::WriteCombined::FlagBit {
            flags: a(flags),
            bit: c::WRITE_COMBINED_BIT,
        })],
        c::Effect::AttachNew { flags } => vec![Attach(super::Attach::NewByFlags { flags: a(flags) })],
        c::Effect::AttachMem { mem, flags, stream } => vec![Attach(super::Attach::Mem {
            mem: a(mem),
            flags: a(flags),
            stream: a(stream),
        })],
        c::Effect::Free {
            mem,
            by,
            waits_implicitly,
        } => vec![
            FreedBy { mem: a(mem), by },
            Free {
                mem: a(mem),
                kind: if waits_implicitly {
                    FreeKind::WaitsImplicitly
                } else {
                    FreeKind::Immediate
                },
            },
        ],
        c::Effect::FreeOnStream { mem, stream } => vec![
            FreedBy {
                mem: a(mem),
                by: Allocator::Device,
            },
            FreeOnStream {
                mem: a(mem),
                stream: a(stream),
            },
        ],
        c::Effect::HostAccess { mem, write } => vec![HostAccess { arg: a(mem), write }],
        c::Effect::UsedByLibrary { mem, write } => vec![UsedByLibrary {
            arg: a(mem),
            write,
            call: name,
        }],
        c::Effect::StartsRequest { reads, writes, request } => vec![StartsRequest {
            reads: reads.map(a),
            writes: writes.map(a),
            request: a(request),
            call: name,
        }],
        c::Effect::CompletesRequests { requests, array } => vec![CompletesRequests {
            arg: a(requests),
            array,
        }],
        c::Effect::TestsRequests { requests, .. } => vec![TestsRequests(a(requests))],
        c::Effect::DevicePointerOf { out, host } => vec![Derive(a(host)), RetInto(a(out))],
        c::Effect::Copy {
            dst,
            src,
            kind,
            dir,
            stream,
        } => {
            let dir = match (dir, kind) {
                (c::Dir::HostToDevice, _) => Dir::HostToDevice,
                (c::Dir::DeviceToHost, _) => Dir::DeviceToHost,
                (c::Dir::DeviceToDevice, _) => Dir::DeviceToDevice,
                (c::Dir::Unknown | c::Dir::HostToHost, Some(k)) => Dir::KindArg(a(k)),
                (c::Dir::Unknown | c::Dir::HostToHost, None) => Dir::Infer,
            };
            let (stream_arg, is_async) = blocking(stream);
            let copy = Copy {
                dst: a(dst),
                src: a(src),
                dir,
                stream: stream_arg,
                is_async,
            };
            // A blocking copy runs after the legacy stream's earlier work and returns when done.
            if is_async {
                vec![copy]
            } else {
                vec![SyncStream(LEGACY), copy]
            }
        }
        c::Effect::BatchCopy { dsts, srcs, attrs } => vec![BatchCopy {
            dsts: a(dsts),
            srcs: a(srcs),
            attrs: a(attrs),
        }],
        c::Effect::Memset { dst, stream } => {
            let (stream_arg, is_async) = blocking(stream);
            let memset = Memset {
                dst: a(dst),
                stream: stream_arg,
                is_async,
            };
            if is_async {
                vec![memset]
            } else {
                vec![SyncStream(LEGACY), memset]
            }
        }
        c::Effect::StreamCreate { out, flags } => {
            let mut v = vec![NewOut {
                out: a(out),
                target: Target::Obj(ObjKind::Stream),
            }];
            if let Some(f) = flags {
                v.push(NonBlocking { flags: Some(a(f)) });
            }
            v
        }
        c::Effect::EventCreate { out } => vec![NewOut {
            out: a(out),
            target: Target::Obj(ObjKind::Event),
        }],
        c::Effect::ContextOut { out } => vec![NewOut {
            out: a(out),
            target: Target::Obj(ObjKind::Context),
        }],
        c::Effect::SyncStream(s) => vec![SyncStream(a(s))],
        c::Effect::SyncEvent(e) => vec![SyncEvent(a(e))],
        c::Effect::SyncDevice => vec![SyncContext],
        c::Effect::QueryStream(s) => vec![QueryStream(a(s))],
        c::Effect::QueryEvent(e) => vec![QueryEvent(a(e))],
        c::Effect::RecordEvent { event, stream } => vec![RecordEvent {
            event: a(event),
            stream: a(stream),
        }],
        c::Effect::StreamWaitEvent { stream, event } => vec![StreamWaitEvent {
            stream: a(stream),
            event: a(event),
        }],
        // Capture records work without running it; what a graph launch runs is not followed
        // yet (`cuGraphLaunch` stays an unknown function).
        // The mode is the last argument (`(stream, mode)`, `cudaStreamBeginCaptureToGraph`'s
        // sixth); a call with the stream alone captures in global mode.
        c::Effect::BeginCapture(s) => {
            let arity = c::lookup(name).map_or(0, |f| f.arity);
            vec![BeginCapture {
                stream: a(s),
                mode: (arity >= 2).then(|| a(arity - 1)),
            }]
        }
        c::Effect::EndCapture(s) => vec![EndCapture(a(s))],
        c::Effect::GraphOut { out } => vec![RetInto(a(out))],
        // An executable graph is its graph, to the analysis.
        c::Effect::Instantiate { out, graph } => vec![Derive(a(graph)), RetInto(a(out))],
        c::Effect::GraphLaunch { exec, stream } => vec![GraphLaunch {
            graph: a(exec),
            stream: Some(a(stream)),
        }],
        c::Effect::CaptureModeExchange(_) => vec![CaptureModeExchange],
        c::Effect::HandleOut { out } => vec![NewHandle { stream: LEGACY }, RetInto(a(out))],
        c::Effect::SetHandleStream { handle, stream } => vec![SetHandleStream {
            handle: a(handle),
            stream: a(stream),
        }],
        c::Effect::SetPointerMode { handle, mode } => vec![SetPointerMode {
            handle: a(handle),
            mode: a(mode),
        }],
        c::Effect::LibraryWork {
            on,
            reads,
            writes,
            result,
        } => vec![LibraryWork {
            on: match on {
                c::On::Handle(h) => super::LibraryStream::Handle(a(h)),
                c::On::Stream(s) => super::LibraryStream::Stream(a(s)),
            },
            reads: library_args(reads),
            writes: library_args(writes),
            result: result.map(a),
        }],
        c::Effect::Launch { kernel, stream, args } => vec![Launch {
            kernel: a(kernel),
            stream: a(stream),
            args: a(args),
        }],
        c::Effect::LoadModule { out, image: Some(i) } => vec![LoadModule(a(i)), RetInto(a(out))],
        c::Effect::LoadModule { out, image: None } => vec![NewOut {
            out: a(out),
            target: Target::Obj(ObjKind::Module),
        }],
        c::Effect::GetFunction { out, module, name } => vec![
            GetFunction {
                module: a(module),
                name: a(name),
            },
            RetInto(a(out)),
        ],
        c::Effect::Register(m) => vec![RegisterInPlace(a(m))],
        c::Effect::Unregister(m) => vec![UnregisterInPlace(a(m))],
        c::Effect::PhysicalOut { out } => vec![NewOut {
            out: a(out),
            target: Target::Obj(ObjKind::Physical),
        }],
        c::Effect::ReserveOut { out } => vec![NewOut {
            out: a(out),
            target: Target::Mem(MemKind::VmmMapping),
        }],
        c::Effect::MapAt { va, physical } => vec![MapAt {
            va: a(va),
            physical: a(physical),
        }],
        c::Effect::SetAccess { va } => vec![SetAccess { va: a(va) }],
        // It does not wait for the device: the memory goes at once.
        c::Effect::Unmap { va } => vec![
            Free {
                mem: a(va),
                kind: FreeKind::Immediate,
            },
            Unmap { va: a(va) },
        ],
        c::Effect::AddressFree { va } => vec![AddressFree { va: a(va) }],
    })
}

/// A library routine's argument positions in this front end's width, made once per list.
fn library_args(positions: &'static [c::Arg]) -> &'static [super::Arg] {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static MADE: OnceLock<Mutex<HashMap<usize, &'static [super::Arg]>>> = OnceLock::new();
    let mut made = MADE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    made.entry(positions.as_ptr() as usize).or_insert_with(|| {
        Box::leak(
            positions
                .iter()
                .map(|&p| p as super::Arg)
                .collect::<Vec<_>>()
                .into_boxed_slice(),
        )
    })
}
