//! Auto-exposure loop of a procedural renderer.
//!
//! Each frame is one graph replay on a driver stream created non-blocking, so
//! that it never serializes with legacy-stream work of the UI code: advance the
//! frame clock, clear the luminance histogram, shade the frame into it. Every
//! `dump_every` frames the histogram is handed to the exposure controller.

use std::error::Error;
use std::ptr;
use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Res<T> = Result<T, Box<dyn Error>>;

pub const BINS: usize = 64;

const RENDER_SRC: &str = r#"
extern "C" __global__ void bake_noise(float* field, int w, int h) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= w * h) return;
    unsigned x = i % w, y = i / w;
    unsigned s = x * 1973u + y * 9277u;
    s = (s << 13) ^ s;
    field[i] = ((s * (s * s * 15731u + 789221u) + 1376312589u) & 0x7fffffff) / 2147483647.0f;
}

extern "C" __global__ void tick(unsigned* clock) { clock[0] += 1u; }

extern "C" __global__ void shade_luma(const float* field, const unsigned* clock,
                                      unsigned* hist, int w, int h, int bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= w * h) return;
    float t = clock[0] * 0.05f;
    float l = 0.5f + 0.5f * sinf(6.2831853f * field[i] + t);
    int b = min((int)(l * bins), bins - 1);
    atomicAdd(&hist[b], 1u);
}
"#;

struct DevMem(sys::CUdeviceptr);

impl DevMem {
    fn new(bytes: usize) -> Res<Self> {
        let mut d: sys::CUdeviceptr = 0;
        unsafe { sys::cuMemAlloc_v2(&mut d, bytes) }.result()?;
        Ok(Self(d))
    }
}

impl Drop for DevMem {
    fn drop(&mut self) {
        let _ = unsafe { sys::cuMemFree_v2(self.0) };
    }
}

/// The frame's resources; `drop` waits for the render stream before anything goes.
struct FrameRig {
    exec: sys::CUgraphExec,
    graph: sys::CUgraph,
    field: DevMem,
    clock: DevMem,
    hist: DevMem,
    render: sys::CUstream,
}

impl Drop for FrameRig {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.render);
            if !self.exec.is_null() {
                let _ = result::graph::exec_destroy(self.exec);
            }
            if !self.graph.is_null() {
                let _ = result::graph::destroy(self.graph);
            }
        }
    }
}

struct RenderStream(sys::CUstream);

impl Drop for RenderStream {
    fn drop(&mut self) {
        let _ = unsafe { sys::cuStreamDestroy_v2(self.0) };
    }
}

/// Renders `frames` frames of `w`x`h`; returns the histograms handed to the controller.
pub fn render_with_exposure_dumps(w: i32, h: i32, frames: usize, dump_every: usize) -> Res<Vec<Vec<u32>>> {
    let ctx = CudaContext::new(0)?;
    let module = ctx.load_module(compile_ptx(RENDER_SRC)?)?;
    let bake = module.load_function("bake_noise")?;
    let tick = module.load_function("tick")?;
    let shade = module.load_function("shade_luma")?;

    let mut render: sys::CUstream = ptr::null_mut();
    unsafe { sys::cuStreamCreate(&mut render, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }
        .result()?;
    let _stream_owner = RenderStream(render);
    let launcher = unsafe { ctx.wrap_borrowed_stream(render) };

    let pixels = (w * h) as usize;
    let hist_bytes = BINS * std::mem::size_of::<u32>();
    let mut rig = FrameRig {
        exec: ptr::null_mut(),
        graph: ptr::null_mut(),
        field: DevMem::new(pixels * std::mem::size_of::<f32>())?,
        clock: DevMem::new(std::mem::size_of::<u32>())?,
        hist: DevMem::new(hist_bytes)?,
        render,
    };
    let bins = BINS as i32;
    let cfg = LaunchConfig::for_num_elems(pixels as u32);
    let one = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1, 1, 1), shared_mem_bytes: 0 };

    unsafe {
        launcher.launch_builder(&bake).arg(&rig.field.0).arg(&w).arg(&h).launch(cfg)?;
        sys::cuMemsetD32Async(rig.clock.0, 0, 1, render).result()?;
        sys::cuMemsetD32Async(rig.hist.0, 0, BINS, render).result()?;

        result::stream::begin_capture(render, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
        launcher.launch_builder(&tick).arg(&rig.clock.0).launch(one)?;
        sys::cuMemsetD32Async(rig.hist.0, 0, BINS, render).result()?;
        launcher
            .launch_builder(&shade)
            .arg(&rig.field.0)
            .arg(&rig.clock.0)
            .arg(&rig.hist.0)
            .arg(&w)
            .arg(&h)
            .arg(&bins)
            .launch(cfg)?;
        rig.graph = result::stream::end_capture(render)?;
        rig.exec = result::graph::instantiate(rig.graph, sys::CUgraphInstantiate_flags(0))?;
    }

    let mut dumps = Vec::new();
    for frame in 0..frames {
        unsafe { result::graph::launch(rig.exec, render)? };
        if frame % dump_every.max(1) == 0 {
            let mut dump = vec![0u32; BINS];
            unsafe { sys::cuMemcpyDtoH_v2(dump.as_mut_ptr().cast(), rig.hist.0, hist_bytes) }.result()?; // EXPECT: missing_sync
            dumps.push(dump);
        }
    }
    unsafe { result::stream::synchronize(render)? };
    Ok(dumps)
}
