//! case: data-parallel training step with one host thread per GPU; each worker computes its gradients, enqueues the download into a pinned buffer and hands buffer and stream back through `join`, and the main thread averages the shards without synchronizing the workers' streams
//! expect: missing_sync=1

use std::thread;

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const GRAD_SRC: &str = r#"
extern "C" __global__ void mse_grad(const float* w, const float* x, const float* y, float* g,
                                    int n_samples, int dim) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= dim) return;
    float acc = 0.0f;
    for (int s = 0; s < n_samples; ++s) {
        float pred = 0.0f;
        for (int k = 0; k < dim; ++k) pred += w[k] * x[s * dim + k];
        acc += 2.0f * (pred - y[s]) * x[s * dim + j];
    }
    g[j] = acc / n_samples;
}
"#;

pub struct Shard {
    pub weights: Vec<f32>,
    pub features: Vec<f32>,
    pub labels: Vec<f32>,
}

struct WorkerOutput {
    stream: Stream,
    grads: PinnedBuffer<f32>,
    // kept alive until the stream is synchronized
    _kernel: Kernel,
    _device: Vec<DeviceBuffer<f32>>,
}

fn worker(ordinal: usize, shard: Shard) -> Result<WorkerOutput> {
    let ctx = Context::new(ordinal)?;
    ctx.bind_to_thread()?;
    let stream = ctx.new_stream()?;
    let kernel = ctx.load_cuda(GRAD_SRC)?.function("mse_grad")?;
    let dim = shard.weights.len();
    let n_samples = shard.labels.len();
    // Inputs go through pinned staging and the blocking copy form.
    let mut dev = Vec::new();
    for host in [&shard.weights, &shard.features, &shard.labels] {
        let mut staging = ctx.alloc_pinned::<f32>(host.len())?;
        staging.copy_from_slice(host);
        let mut d = ctx.alloc::<f32>(host.len())?;
        stream.copy_htod(&mut d, &staging)?;
        dev.push(d);
    }
    dev.push(ctx.alloc::<f32>(dim)?);
    let mut grads = ctx.alloc_pinned::<f32>(dim)?;
    let (n, d) = (n_samples as i32, dim as i32);
    unsafe {
        stream.launch(&kernel, LaunchConfig::for_num_elems(dim as u32), &[&dev[0], &dev[1], &dev[2], &dev[3], &n, &d])?;
        stream.copy_dtoh_async(&mut grads, &dev[3])?;
    }
    Ok(WorkerOutput { stream, grads, _kernel: kernel, _device: dev })
}

pub fn averaged_gradient(shards: Vec<Shard>) -> Result<Vec<f32>> {
    let handles: Vec<_> = shards
        .into_iter()
        .enumerate()
        .map(|(ordinal, shard)| thread::spawn(move || worker(ordinal, shard)))
        .collect();
    let outputs = handles
        .into_iter()
        .map(|h| h.join().expect("worker panicked"))
        .collect::<Result<Vec<_>>>()?;
    let dim = outputs.first().map_or(0, |o| o.grads.len());
    let mut avg = vec![0.0f32; dim];
    for out in &outputs {
        for (a, g) in avg.iter_mut().zip(out.grads.iter()) { // EXPECT: missing_sync
            *a += g / outputs.len() as f32;
        }
    }
    for out in &outputs {
        out.stream.synchronize()?;
    }
    Ok(avg)
}
