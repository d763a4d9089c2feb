//! Batched linear classifier served from a captured graph: upload the batch,
//! logits, row softmax, copy the probabilities back into pinned memory. The
//! serving loop takes the labels from the probabilities right after launching
//! the graph; the wait for the stream comes only at the bottom of the loop
//! (placed there for the staging buffer's sake), after the read.

use cudarc::driver::{sys, CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const CLASSIFIER_KERNELS: &str = r#"
extern "C" __global__ void logits(const float *x, const float *w, const float *b, float *z,
                                  int rows, int features, int classes) {
    int c = threadIdx.x;
    int r = blockIdx.x;
    if (r >= rows || c >= classes) return;
    float acc = b[c];
    for (int f = 0; f < features; ++f) acc += x[(size_t)r * features + f] * w[(size_t)c * features + f];
    z[(size_t)r * classes + c] = acc;
}

extern "C" __global__ void softmax_rows(float *z, int rows, int classes) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float *row = z + (size_t)r * classes;
    float m = row[0];
    for (int c = 1; c < classes; ++c) m = fmaxf(m, row[c]);
    float s = 0.0f;
    for (int c = 0; c < classes; ++c) { row[c] = __expf(row[c] - m); s += row[c]; }
    for (int c = 0; c < classes; ++c) row[c] /= s;
}
"#;

fn argmax(row: &[f32]) -> usize {
    let mut best = 0;
    for (c, p) in row.iter().enumerate() {
        if *p > row[best] {
            best = c;
        }
    }
    best
}

pub fn classify(
    weights: &[f32],
    bias: &[f32],
    features: usize,
    classes: usize,
    batches: &[Vec<f32>],
    max_rows: usize,
) -> Result<Vec<usize>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(CLASSIFIER_KERNELS)?)?;
    let logits = module.load_function("logits")?;
    let softmax = module.load_function("softmax_rows")?;

    let mut d_w = stream.alloc_zeros::<f32>(classes * features)?;
    let mut d_b = stream.alloc_zeros::<f32>(classes)?;
    let mut d_x = stream.alloc_zeros::<f32>(max_rows * features)?;
    let mut d_z = stream.alloc_zeros::<f32>(max_rows * classes)?;
    let mut h_w = unsafe { ctx.alloc_pinned::<f32>(classes * features)? };
    let mut h_b = unsafe { ctx.alloc_pinned::<f32>(classes)? };
    h_w.as_mut_slice()?.copy_from_slice(&weights[..classes * features]);
    h_b.as_mut_slice()?.copy_from_slice(&bias[..classes]);
    stream.memcpy_htod(&h_w, &mut d_w)?;
    stream.memcpy_htod(&h_b, &mut d_b)?;
    stream.synchronize()?;

    let mut h_x = unsafe { ctx.alloc_pinned::<f32>(max_rows * features)? };
    let mut h_probs = unsafe { ctx.alloc_pinned_with_flags::<f32>(max_rows * classes, 0)? };
    let (r, f, c) = (max_rows as i32, features as i32, classes as i32);

    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    stream.memcpy_htod(&h_x, &mut d_x)?;
    let mut lin = stream.launch_builder(&logits);
    lin.arg(&d_x).arg(&d_w).arg(&d_b).arg(&mut d_z).arg(&r).arg(&f).arg(&c);
    unsafe {
        lin.launch(LaunchConfig {
            grid_dim: (max_rows as u32, 1, 1),
            block_dim: (classes as u32, 1, 1),
            shared_mem_bytes: 0,
        })
    }?;
    let mut sm = stream.launch_builder(&softmax);
    sm.arg(&mut d_z).arg(&r).arg(&c);
    unsafe { sm.launch(LaunchConfig::for_num_elems(max_rows as u32)) }?;
    stream.memcpy_dtoh(&d_z, &mut h_probs)?;
    let forward = stream
        .end_capture(sys::CUgraphInstantiate_flags(0))?
        .ok_or("classifier capture produced no graph")?;

    let mut labels = Vec::new();
    for batch in batches {
        let rows = (batch.len() / features).min(max_rows);
        let x = h_x.as_mut_slice()?;
        x.fill(0.0);
        x[..rows * features].copy_from_slice(&batch[..rows * features]);
        forward.launch()?;
        labels.extend(h_probs.as_slice()?.chunks(classes).take(rows).map(argmax)); // EXPECT: missing_sync
        // h_x is refilled by the next batch: wait for this launch's upload first.
        stream.synchronize()?;
    }
    Ok(labels)
}
