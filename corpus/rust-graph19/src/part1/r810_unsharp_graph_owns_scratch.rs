//! Unsharp masking of a frame sequence. A helper captures blur + sharpen into a
//! graph and returns it together with the scratch image the graph writes, in
//! one struct: the scratch lives exactly as long as the graph that uses it, and
//! both are dropped after the last replay was waited for.

use std::sync::Arc;

use cudarc::driver::{
    sys, CudaContext, CudaFunction, CudaGraph, CudaSlice, CudaStream, LaunchConfig,
    PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const UNSHARP_KERNELS: &str = r#"
extern "C" __global__ void box3(const float *src, float *blurred, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x >= w || y >= h) return;
    float acc = 0.0f;
    int count = 0;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            int xx = x + dx, yy = y + dy;
            if (xx >= 0 && xx < w && yy >= 0 && yy < h) { acc += src[yy * w + xx]; ++count; }
        }
    blurred[y * w + x] = acc / count;
}

extern "C" __global__ void sharpen(const float *src, const float *blurred, float *out,
                                   float amount, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = fminf(1.0f, fmaxf(0.0f, src[i] + amount * (src[i] - blurred[i])));
}
"#;

/// A captured unsharp-mask pass and the scratch image its blur writes.
struct UnsharpGraph {
    graph: CudaGraph,
    d_blurred: CudaSlice<f32>,
}

fn capture_unsharp(
    stream: &Arc<CudaStream>,
    box3: &CudaFunction,
    sharpen: &CudaFunction,
    d_frame: &CudaSlice<f32>,
    d_out: &mut CudaSlice<f32>,
    width: usize,
    height: usize,
    amount: f32,
) -> Result<UnsharpGraph> {
    let n = width * height;
    let (w, h, len) = (width as i32, height as i32, n as i32);
    let mut d_blurred = stream.alloc_zeros::<f32>(n)?;
    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    let mut blur = stream.launch_builder(box3);
    blur.arg(d_frame).arg(&mut d_blurred).arg(&w).arg(&h);
    unsafe {
        blur.launch(LaunchConfig {
            grid_dim: (width.div_ceil(128) as u32, height as u32, 1),
            block_dim: (128, 1, 1),
            shared_mem_bytes: 0,
        })
    }?;
    let mut mix = stream.launch_builder(sharpen);
    mix.arg(d_frame).arg(&d_blurred).arg(d_out).arg(&amount).arg(&len);
    unsafe { mix.launch(LaunchConfig::for_num_elems(n as u32)) }?;
    let graph = stream
        .end_capture(sys::CUgraphInstantiate_flags(0))?
        .ok_or("unsharp capture produced no graph")?;
    Ok(UnsharpGraph { graph, d_blurred })
}

pub fn sharpen_frames(frames: &[Vec<f32>], width: usize, height: usize, amount: f32) -> Result<Vec<Vec<f32>>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(UNSHARP_KERNELS)?)?;
    let box3 = module.load_function("box3")?;
    let sharpen = module.load_function("sharpen")?;

    let n = width * height;
    let mut h_frame = unsafe { ctx.alloc_pinned::<f32>(n)? };
    let mut h_out = unsafe { ctx.alloc_pinned_with_flags::<f32>(n, 0)? };
    let mut d_frame = stream.alloc_zeros::<f32>(n)?;
    let mut d_out = stream.alloc_zeros::<f32>(n)?;

    let unsharp = capture_unsharp(&stream, &box3, &sharpen, &d_frame, &mut d_out, width, height, amount)?;

    let mut sharpened = Vec::with_capacity(frames.len());
    for frame in frames {
        h_frame.as_mut_slice()?.copy_from_slice(&frame[..n]);
        stream.memcpy_htod(&h_frame, &mut d_frame)?;
        unsharp.graph.launch()?;
        stream.memcpy_dtoh(&d_out, &mut h_out)?;
        stream.synchronize()?;
        sharpened.push(h_out.as_slice()?.to_vec());
    }
    drop(unsharp);
    Ok(sharpened)
}
