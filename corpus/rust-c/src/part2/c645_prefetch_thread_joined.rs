//! case: a background thread owns a stream and a pinned buffer, runs the feature-extraction kernel and download on it and synchronizes; the main thread reads the buffer only after `join` hands it back
//! expect: none

use std::sync::Arc;
use std::thread::{self, JoinHandle};

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result};

const FEAT_SRC: &str = r#"
extern "C" __global__ void log_mel(const float* power, float* mel, unsigned frames, unsigned bins) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < frames * bins) mel[i] = __logf(power[i] + 1e-6f);
}
"#;

pub struct Prefetched {
    pub features: PinnedBuffer<f32>,
    pub frames: usize,
}

fn extract(ctx: &Context, kernel: &Kernel, power: &DeviceBuffer<f32>, bins: usize) -> Result<Prefetched> {
    let stream = ctx.new_stream()?;
    let frames = power.len() / bins;
    let mel: DeviceBuffer<f32> = ctx.alloc(power.len())?;
    let mut features = ctx.alloc_pinned::<f32>(power.len())?;
    let (f, b) = (frames as u32, bins as u32);
    unsafe {
        stream.launch(kernel, LaunchConfig::for_num_elems(f * b), &[power, &mel, &f, &b])?;
        stream.copy_dtoh_async(&mut features, &mel)?;
    }
    stream.synchronize()?;
    Ok(Prefetched { features, frames })
}

pub fn spawn_prefetch(ctx: Context, power: Arc<DeviceBuffer<f32>>, bins: usize) -> JoinHandle<Result<Prefetched>> {
    thread::spawn(move || {
        ctx.bind_to_thread()?;
        let kernel = ctx.load_cuda(FEAT_SRC)?.function("log_mel")?;
        extract(&ctx, &kernel, &power, bins)
    })
}

pub fn utterance_energy(ctx: &Context, power: Arc<DeviceBuffer<f32>>, bins: usize) -> Result<Vec<f32>> {
    let handle = spawn_prefetch(ctx.clone(), power, bins);
    // ... tokenizer work on this thread meanwhile ...
    let pre = handle.join().expect("prefetch thread panicked")?;
    Ok(pre
        .features
        .chunks_exact(bins)
        .take(pre.frames)
        .map(|frame| frame.iter().sum::<f32>() / bins as f32)
        .collect())
}
