//! Box-blur pipeline for video frames whose size can change mid-stream (a camera
//! switching resolution). Upload, two blur passes and the download are one CUDA
//! graph; when a frame of another size arrives the pipeline drops its graph,
//! reallocates every buffer the graph used and captures a new graph on them.

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{
    sys, CudaContext, CudaFunction, CudaGraph, CudaSlice, CudaStream, DriverError, LaunchConfig,
    PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

const BLUR_SRC: &str = r#"
extern "C" __global__ void box_h(const float* __restrict__ src, float* __restrict__ dst,
                                 int w, int h, int r) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x >= w || y >= h) return;
    float acc = 0.0f;
    int cnt = 0;
    for (int d = -r; d <= r; ++d) {
        int xx = x + d;
        if (xx >= 0 && xx < w) { acc += src[y * w + xx]; ++cnt; }
    }
    dst[y * w + x] = acc / cnt;
}

extern "C" __global__ void box_v(const float* __restrict__ src, float* __restrict__ dst,
                                 int w, int h, int r) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x >= w || y >= h) return;
    float acc = 0.0f;
    int cnt = 0;
    for (int d = -r; d <= r; ++d) {
        int yy = y + d;
        if (yy >= 0 && yy < h) { acc += src[yy * w + x]; ++cnt; }
    }
    dst[y * w + x] = acc / cnt;
}
"#;

struct Buffers {
    w: usize,
    h: usize,
    h_in: PinnedHostSlice<f32>,
    h_out: PinnedHostSlice<f32>,
    d_in: CudaSlice<f32>,
    d_tmp: CudaSlice<f32>,
    d_out: CudaSlice<f32>,
}

struct BlurPipeline {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    box_h: CudaFunction,
    box_v: CudaFunction,
    radius: i32,
    // Field order matters for Drop: the graph goes before the buffers it names.
    graph: Option<CudaGraph>,
    bufs: Option<Buffers>,
}

impl BlurPipeline {
    fn new(radius: i32) -> Result<Self, Box<dyn Error>> {
        let ctx = CudaContext::new(0)?;
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream()?;
        let module = ctx.load_module(compile_ptx(BLUR_SRC)?)?;
        Ok(Self {
            box_h: module.load_function("box_h")?,
            box_v: module.load_function("box_v")?,
            ctx,
            stream,
            radius,
            graph: None,
            bufs: None,
        })
    }

    /// Makes sure the graph matches a `w` x `h` frame, rebuilding both when it does not.
    fn ensure_size(&mut self, w: usize, h: usize) -> Result<(), DriverError> {
        if let Some(b) = &self.bufs {
            if b.w == w && b.h == h {
                return Ok(());
            }
        }
        // Old graph first (the stream is idle: every frame ends with a synchronize),
        // then the buffers it used.
        self.graph = None;
        self.bufs = None;

        let n = w * h;
        let mut bufs = Buffers {
            w,
            h,
            h_in: unsafe { self.ctx.alloc_pinned_with_flags::<f32>(n, 0) }?,
            h_out: unsafe { self.ctx.alloc_pinned_with_flags::<f32>(n, 0) }?,
            d_in: self.stream.alloc_zeros::<f32>(n)?,
            d_tmp: self.stream.alloc_zeros::<f32>(n)?,
            d_out: self.stream.alloc_zeros::<f32>(n)?,
        };
        let (wi, hi) = (w as i32, h as i32);
        let cfg = LaunchConfig {
            grid_dim: ((w as u32).div_ceil(128), h as u32, 1),
            block_dim: (128, 1, 1),
            shared_mem_bytes: 0,
        };

        self.stream
            .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
        self.stream.memcpy_htod(&bufs.h_in, &mut bufs.d_in)?;
        let mut b = self.stream.launch_builder(&self.box_h);
        b.arg(&bufs.d_in).arg(&mut bufs.d_tmp).arg(&wi).arg(&hi).arg(&self.radius);
        unsafe { b.launch(cfg) }?;
        let mut b = self.stream.launch_builder(&self.box_v);
        b.arg(&bufs.d_tmp).arg(&mut bufs.d_out).arg(&wi).arg(&hi).arg(&self.radius);
        unsafe { b.launch(cfg) }?;
        self.stream.memcpy_dtoh(&bufs.d_out, &mut bufs.h_out)?;
        let graph = self
            .stream
            .end_capture(sys::CUgraphInstantiate_flags(0))?
            .expect("blur capture recorded work");
        graph.upload()?;

        self.graph = Some(graph);
        self.bufs = Some(bufs);
        Ok(())
    }
}

/// Blurs every `(width, height, pixels)` frame; frame sizes may change between frames.
pub fn blur_frames(
    frames: &[(usize, usize, Vec<f32>)],
    radius: i32,
) -> Result<Vec<Vec<f32>>, Box<dyn Error>> {
    let mut pipe = BlurPipeline::new(radius)?;
    let mut out = Vec::with_capacity(frames.len());
    for (w, h, pixels) in frames {
        pipe.ensure_size(*w, *h)?;
        let bufs = pipe.bufs.as_mut().ok_or("no buffers")?;
        bufs.h_in.as_mut_slice()?.copy_from_slice(pixels);
        let graph = pipe.graph.as_ref().ok_or("no graph")?;
        graph.launch()?;
        pipe.stream.synchronize()?;
        out.push(bufs.h_out.as_slice()?.to_vec());
    }
    Ok(out)
}
