//! Tone-mapping statistics of a procedural renderer, read back on a side stream.
//!
//! Frames are graph replays on a non-blocking render stream. The statistics
//! readback runs on a second non-blocking stream so the render stream never
//! carries a device-to-host copy: after a replay the render stream records an
//! event, the copy stream waits for it, copies the histogram into pinned memory
//! and is synchronized before the host looks at it.

use std::error::Error;
use std::ptr;
use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Res<T> = Result<T, Box<dyn Error>>;

pub const BINS: usize = 32;

const TONEMAP_SRC: &str = r#"
extern "C" __global__ void radial_scene(float* hdr, int w, int h) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= w * h) return;
    float x = (i % w) / (float)w - 0.5f, y = (i / w) / (float)h - 0.5f;
    hdr[i] = 8.0f * expf(-12.0f * (x * x + y * y));
}

extern "C" __global__ void age(unsigned* frame) { frame[0] += 1u; }

extern "C" __global__ void reinhard_stats(const float* hdr, const unsigned* frame,
                                          unsigned* hist, int n, int bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float exposure = 1.0f + 0.25f * sinf(frame[0] * 0.1f);
    float v = hdr[i] * exposure;
    float ldr = v / (1.0f + v);
    atomicAdd(&hist[min((int)(ldr * bins), bins - 1)], 1u);
}
"#;

struct Stream(sys::CUstream);

impl Stream {
    fn non_blocking() -> Res<Self> {
        let mut s: sys::CUstream = ptr::null_mut();
        unsafe { sys::cuStreamCreate(&mut s, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }
            .result()?;
        Ok(Self(s))
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        let _ = unsafe { sys::cuStreamDestroy_v2(self.0) };
    }
}

struct Event(sys::CUevent);

impl Drop for Event {
    fn drop(&mut self) {
        let _ = unsafe { result::event::destroy(self.0) };
    }
}

struct DevMem(sys::CUdeviceptr);

impl Drop for DevMem {
    fn drop(&mut self) {
        let _ = unsafe { sys::cuMemFree_v2(self.0) };
    }
}

fn dev_alloc(bytes: usize) -> Res<DevMem> {
    let mut d: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d, bytes) }.result()?;
    Ok(DevMem(d))
}

struct PinnedU32 {
    ptr: *mut u32,
    len: usize,
}

impl Drop for PinnedU32 {
    fn drop(&mut self) {
        let _ = unsafe { sys::cuMemFreeHost(self.ptr.cast()) };
    }
}

fn pinned_u32(len: usize) -> Res<PinnedU32> {
    let mut p: *mut std::ffi::c_void = ptr::null_mut();
    unsafe { sys::cuMemAllocHost_v2(&mut p, len * std::mem::size_of::<u32>()) }.result()?;
    Ok(PinnedU32 { ptr: p.cast(), len })
}

struct Exec {
    graph: sys::CUgraph,
    exec: sys::CUgraphExec,
}

impl Drop for Exec {
    fn drop(&mut self) {
        unsafe {
            let _ = result::graph::exec_destroy(self.exec);
            let _ = result::graph::destroy(self.graph);
        }
    }
}

/// Everything one renderer owns. Dropping it waits for both streams first; the
/// fields then go in order: graph, memory, event, streams.
struct ToneRig {
    exec: Option<Exec>,
    hdr: DevMem,
    frame_no: DevMem,
    hist: DevMem,
    readback: PinnedU32,
    replayed: Event,
    copy: Stream,
    render: Stream,
}

impl Drop for ToneRig {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.render.0);
            let _ = sys::cuStreamSynchronize(self.copy.0);
        }
    }
}

/// Mean tone-mapped level of every `every`-th frame.
pub fn tonemap_levels(w: i32, h: i32, frames: usize, every: usize) -> Res<Vec<f32>> {
    let ctx = CudaContext::new(0)?;
    let module = ctx.load_module(compile_ptx(TONEMAP_SRC)?)?;
    let scene = module.load_function("radial_scene")?;
    let age = module.load_function("age")?;
    let stats = module.load_function("reinhard_stats")?;

    let n = w * h;
    let bins = BINS as i32;
    let hist_bytes = BINS * std::mem::size_of::<u32>();
    let render = Stream::non_blocking()?;
    let copy = Stream::non_blocking()?;
    let mut rig = ToneRig {
        exec: None,
        hdr: dev_alloc(n as usize * std::mem::size_of::<f32>())?,
        frame_no: dev_alloc(std::mem::size_of::<u32>())?,
        hist: dev_alloc(hist_bytes)?,
        readback: pinned_u32(BINS)?,
        replayed: Event(result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)?),
        copy,
        render,
    };
    let rs = rig.render.0;
    let cs = rig.copy.0;
    let launcher = unsafe { ctx.wrap_borrowed_stream(rs) };
    let cfg = LaunchConfig::for_num_elems(n as u32);
    let single = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1, 1, 1), shared_mem_bytes: 0 };

    unsafe {
        launcher.launch_builder(&scene).arg(&rig.hdr.0).arg(&w).arg(&h).launch(cfg)?;
        sys::cuMemsetD32Async(rig.frame_no.0, 0, 1, rs).result()?;
        sys::cuMemsetD32Async(rig.hist.0, 0, BINS, rs).result()?;

        result::stream::begin_capture(rs, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
        launcher.launch_builder(&age).arg(&rig.frame_no.0).launch(single)?;
        sys::cuMemsetD32Async(rig.hist.0, 0, BINS, rs).result()?;
        launcher
            .launch_builder(&stats)
            .arg(&rig.hdr.0)
            .arg(&rig.frame_no.0)
            .arg(&rig.hist.0)
            .arg(&n)
            .arg(&bins)
            .launch(cfg)?;
        let graph = result::stream::end_capture(rs)?;
        match result::graph::instantiate(graph, sys::CUgraphInstantiate_flags(0)) {
            Ok(exec) => rig.exec = Some(Exec { graph, exec }),
            Err(e) => {
                let _ = result::graph::destroy(graph);
                return Err(e.into());
            }
        }
    }
    let exec = rig.exec.as_ref().map(|e| e.exec).ok_or("no executable graph")?;

    let mut levels = Vec::new();
    for frame in 0..frames {
        unsafe { result::graph::launch(exec, rs)? };
        if frame % every.max(1) != 0 {
            continue;
        }
        unsafe {
            result::event::record(rig.replayed.0, rs)?;
            sys::cuStreamWaitEvent(cs, rig.replayed.0, 0).result()?;
            sys::cuMemcpyDtoHAsync_v2(rig.readback.ptr.cast(), rig.hist.0, hist_bytes, cs).result()?;
            result::stream::synchronize(cs)?;
        }
        let counts = unsafe { std::slice::from_raw_parts(rig.readback.ptr, rig.readback.len) };
        let total: u32 = counts.iter().sum();
        let weighted: f32 = counts
            .iter()
            .enumerate()
            .map(|(b, &c)| (b as f32 + 0.5) / BINS as f32 * c as f32)
            .sum();
        levels.push(weighted / total.max(1) as f32);
    }
    unsafe { result::stream::synchronize(rs)? };
    Ok(levels)
}
