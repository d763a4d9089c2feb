//! Iterative separable box blur of an image. The row pass writes a scratch
//! image and the column pass writes back; both are captured once and the graph
//! is replayed `passes` times. The scratch image is a local of the block that
//! builds the graph, so it is dropped (freed) when the block ends, before the
//! first replay writes and reads it.

use cudarc::driver::{sys, CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const BLUR_KERNELS: &str = r#"
extern "C" __global__ void blur_rows(const float *src, float *dst, int w, int h, int radius) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x >= w || y >= h) return;
    float acc = 0.0f;
    int count = 0;
    for (int dx = -radius; dx <= radius; ++dx) {
        int xx = x + dx;
        if (xx >= 0 && xx < w) { acc += src[y * w + xx]; ++count; }
    }
    dst[y * w + x] = acc / count;
}

extern "C" __global__ void blur_cols(const float *src, float *dst, int w, int h, int radius) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x >= w || y >= h) return;
    float acc = 0.0f;
    int count = 0;
    for (int dy = -radius; dy <= radius; ++dy) {
        int yy = y + dy;
        if (yy >= 0 && yy < h) { acc += src[yy * w + x]; ++count; }
    }
    dst[y * w + x] = acc / count;
}
"#;

pub fn smooth_image(pixels: &[f32], width: usize, height: usize, radius: i32, passes: usize) -> Result<Vec<f32>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(BLUR_KERNELS)?)?;
    let blur_rows = module.load_function("blur_rows")?;
    let blur_cols = module.load_function("blur_cols")?;

    let n = width * height;
    let mut h_img = unsafe { ctx.alloc_pinned_with_flags::<f32>(n, 0)? };
    h_img.as_mut_slice()?.copy_from_slice(&pixels[..n]);
    let mut d_img = stream.alloc_zeros::<f32>(n)?;
    stream.memcpy_htod(&h_img, &mut d_img)?;

    let (w, h) = (width as i32, height as i32);
    let cfg = LaunchConfig {
        grid_dim: (width.div_ceil(128) as u32, height as u32, 1),
        block_dim: (128, 1, 1),
        shared_mem_bytes: 0,
    };
    let smooth = {
        let mut d_rows = stream.alloc_zeros::<f32>(n)?;
        stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
        let mut row_pass = stream.launch_builder(&blur_rows);
        row_pass.arg(&d_img).arg(&mut d_rows).arg(&w).arg(&h).arg(&radius);
        unsafe { row_pass.launch(cfg) }?;
        let mut col_pass = stream.launch_builder(&blur_cols);
        col_pass.arg(&d_rows).arg(&mut d_img).arg(&w).arg(&h).arg(&radius);
        unsafe { col_pass.launch(cfg) }?;
        stream
            .end_capture(sys::CUgraphInstantiate_flags(0))?
            .ok_or("blur capture produced no graph")?
    };

    for _ in 0..passes {
        smooth.launch()?; // EXPECT: graph_uses_freed_memory
    }
    stream.memcpy_dtoh(&d_img, &mut h_img)?;
    stream.synchronize()?;
    Ok(h_img.as_slice()?.to_vec())
}
