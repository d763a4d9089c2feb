//! case: cudarc worker threads, each with its own stream from new_stream (so the context tracks events): a worker copies its result into pinned memory allocated without flags and reads it through as_slice, which waits on the event the copy recorded
//! expect: none
use cudarc::driver::{CudaContext, CudaSlice, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::sync::Arc;
use std::thread;

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const SRC: &str = r#"
extern "C" __global__ void mandelbrot(unsigned short* iters, unsigned int w, unsigned int h, float x0, float y0, float scale, unsigned int max_it) {
    unsigned int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y;
    if (px >= w || py >= h) return;
    float cr = x0 + px * scale, ci = y0 + py * scale, zr = 0.f, zi = 0.f;
    unsigned int it = 0;
    while (zr * zr + zi * zi < 4.f && it < max_it) { float t = zr * zr - zi * zi + cr; zi = 2.f * zr * zi + ci; zr = t; ++it; }
    iters[py * w + px] = (unsigned short)it;
}
"#;

/// Renders horizontal bands of the image on `bands` threads; returns each band's mean iteration count.
pub fn render_bands(w: u32, band_h: u32, bands: u32) -> Res<Vec<f64>> {
    let ctx = CudaContext::new(0)?;
    let module = ctx.load_module(compile_ptx(SRC)?)?;
    let handles: Vec<_> = (0..bands)
        .map(|b| {
            let ctx = Arc::clone(&ctx);
            let func = module.load_function("mandelbrot");
            thread::spawn(move || -> Res<f64> {
                ctx.bind_to_thread()?;
                let func = func?;
                let stream = ctx.new_stream()?;
                let n = (w * band_h) as usize;
                let mut iters: CudaSlice<u16> = stream.alloc_zeros(n)?;
                let (x0, y0, scale, max_it) = (-2.0f32, -1.2f32 + b as f32 * band_h as f32 * 0.003, 0.003f32, 512u32);
                let cfg = LaunchConfig { grid_dim: (w.div_ceil(128), band_h, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
                unsafe {
                    stream
                        .launch_builder(&func)
                        .arg(&mut iters)
                        .arg(&w)
                        .arg(&band_h)
                        .arg(&x0)
                        .arg(&y0)
                        .arg(&scale)
                        .arg(&max_it)
                        .launch(cfg)?;
                }
                let mut host = unsafe { ctx.alloc_pinned_with_flags::<u16>(n, 0) }?;
                stream.memcpy_dtoh(&iters, &mut host)?;
                let band = host.as_slice()?;
                Ok(band.iter().map(|&i| i as f64).sum::<f64>() / n as f64)
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().map_err(|_| "render thread panicked")?).collect()
}
