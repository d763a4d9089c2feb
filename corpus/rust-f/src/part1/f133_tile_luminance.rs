//! case: a renderer accumulates per-tile luminance in a cudarc `UnifiedSlice` on one stream while a blur of the frame runs on a second stream; `as_slice` waits for the unified slice's own event (the accumulate kernel) but not for the blur, which does not use that memory and may still be running when the host reads it
//! expect: managed_concurrent_access=1

use std::error::Error;

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void tile_luma(const float* frame, float* tiles, unsigned int w, unsigned int h, unsigned int tile)
{
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= w || y >= h) return;
    unsigned int t = (y / tile) * ((w + tile - 1) / tile) + x / tile;
    atomicAdd(&tiles[t], frame[y * w + x]);
}

extern "C" __global__ void box_blur(const float* src, float* dst, unsigned int w, unsigned int h)
{
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= w || y >= h) return;
    float s = 0.0f; int c = 0;
    for (int dy = -2; dy <= 2; ++dy) for (int dx = -2; dx <= 2; ++dx) {
        int xx = (int)x + dx, yy = (int)y + dy;
        if (xx >= 0 && yy >= 0 && xx < (int)w && yy < (int)h) { s += src[yy * w + xx]; ++c; }
    }
    dst[y * w + x] = s / c;
}

extern "C" __global__ void gradient(float* frame, unsigned int w, unsigned int h)
{
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h) frame[y * w + x] = (float)(x ^ y) / (float)(w + h);
}
"#;

pub fn brightest_tile(w: u32, h: u32, tile: u32) -> Result<(usize, f32), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stats_stream = ctx.new_stream()?;
    let blur_stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(SRC)?)?;
    let (luma, blur, grad) = (
        module.load_function("tile_luma")?,
        module.load_function("box_blur")?,
        module.load_function("gradient")?,
    );

    let n = (w * h) as usize;
    let tiles_x = w.div_ceil(tile);
    let tiles = (tiles_x * h.div_ceil(tile)) as usize;
    let mut sums: UnifiedSlice<f32> = unsafe { ctx.alloc_unified::<f32>(tiles, true)? };
    sums.as_mut_slice()?.fill(0.0);
    let mut frame = stats_stream.alloc_zeros::<f32>(n)?;
    let mut blurred = blur_stream.alloc_zeros::<f32>(n)?;

    let cfg = LaunchConfig { grid_dim: (w.div_ceil(256), h, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
    unsafe {
        stats_stream.launch_builder(&grad).arg(&mut frame).arg(&w).arg(&h).launch(cfg)?;
        stats_stream.launch_builder(&luma).arg(&frame).arg(&mut sums).arg(&w).arg(&h).arg(&tile).launch(cfg)?;
        blur_stream.launch_builder(&blur).arg(&frame).arg(&mut blurred).arg(&w).arg(&h).launch(cfg)?;
    }

    let best = sums.as_slice()?.iter().copied().enumerate().fold((0, f32::MIN), |b, (i, s)| if s > b.1 { (i, s) } else { b }); // EXPECT: managed_concurrent_access
    blur_stream.synchronize()?;
    Ok(best)
}

pub fn run() -> Result<(), Box<dyn Error>> {
    let (t, s) = brightest_tile(3840, 2160, 64)?;
    println!("brightest tile {t} (sum {s:.1})");
    Ok(())
}
