//! case: batched image-classifier inference in a worker thread (cudarc): the worker uploads from pinned memory, runs the logits kernel, copies the logits into flags-0 pinned memory, synchronizes its stream and only then sends the pinned buffer over an mpsc channel; the main thread computes the argmax (near-miss for missing_sync across threads)
//! expect: none

use std::sync::mpsc;
use std::sync::Arc;
use std::thread;

use cudarc::driver::{CudaContext, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const LOGITS_SRC: &str = r#"
extern "C" __global__ void linear_logits(const float* feats, const float* w, float* logits, unsigned batch, unsigned dim, unsigned classes) {
    unsigned b = blockIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch || c >= classes) return;
    float acc = 0.f;
    for (unsigned j = 0; j < dim; ++j) acc += feats[b * dim + j] * w[j * classes + c];
    logits[b * classes + c] = acc;
}
"#;

pub struct BatchResult {
    pub batch_id: usize,
    pub logits: PinnedHostSlice<f32>,
}

pub struct ModelShape {
    pub dim: usize,
    pub classes: usize,
}

fn worker(ctx: Arc<CudaContext>, shape: ModelShape, weights: Arc<Vec<f32>>, batches: Vec<Vec<f32>>, tx: mpsc::Sender<BatchResult>) -> Result<(), String> {
    let run = || -> Result<(), Box<dyn std::error::Error>> {
        ctx.bind_to_thread()?;
        let stream = ctx.new_stream()?;
        let f = ctx.load_module(compile_ptx(LOGITS_SRC)?)?.load_function("linear_logits")?;
        let mut w_pinned = unsafe { ctx.alloc_pinned_with_flags::<f32>(weights.len(), 0)? };
        w_pinned.as_mut_slice()?.copy_from_slice(&weights);
        let w_dev = stream.clone_htod(&w_pinned)?;
        for (id, feats) in batches.into_iter().enumerate() {
            let batch = feats.len() / shape.dim;
            let mut staging = unsafe { ctx.alloc_pinned_with_flags::<f32>(feats.len(), 0)? };
            staging.as_mut_slice()?.copy_from_slice(&feats);
            let x = stream.clone_htod(&staging)?;
            let mut logits_dev = stream.alloc_zeros::<f32>(batch * shape.classes)?;
            let (b, d, c) = (batch as u32, shape.dim as u32, shape.classes as u32);
            let cfg = LaunchConfig { grid_dim: (c.div_ceil(64), b, 1), block_dim: (64, 1, 1), shared_mem_bytes: 0 };
            unsafe { stream.launch_builder(&f).arg(&x).arg(&w_dev).arg(&mut logits_dev).arg(&b).arg(&d).arg(&c).launch(cfg)? };
            let mut logits = unsafe { ctx.alloc_pinned_with_flags::<f32>(batch * shape.classes, 0)? };
            stream.memcpy_dtoh(&logits_dev, &mut logits)?;
            stream.synchronize()?;
            if tx.send(BatchResult { batch_id: id, logits }).is_err() {
                break;
            }
        }
        Ok(())
    };
    run().map_err(|e| e.to_string())
}

pub fn classify(ctx: Arc<CudaContext>, shape: ModelShape, weights: Vec<f32>, batches: Vec<Vec<f32>>) -> Result<Vec<(usize, Vec<usize>)>, String> {
    let classes = shape.classes;
    let (tx, rx) = mpsc::channel();
    let weights = Arc::new(weights);
    let handle = thread::spawn(move || worker(ctx, shape, weights, batches, tx));
    let mut out = Vec::new();
    for res in rx {
        let logits = res.logits.as_slice().map_err(|e| e.to_string())?;
        let preds = logits
            .chunks_exact(classes)
            .map(|row| row.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).map(|(i, _)| i).unwrap_or(0))
            .collect();
        out.push((res.batch_id, preds));
    }
    handle.join().map_err(|_| "worker panicked".to_string())??;
    Ok(out)
}
