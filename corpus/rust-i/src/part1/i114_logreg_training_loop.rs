//! case: mini-batch logistic-regression training loop on the runtime layer; each batch of features is uploaded with copy_htod_async straight from a sub-slice of the dataset's Vec<f32> (pageable); labels and the loss readback go through pinned memory and the loss is read after synchronizing
//! expect: pageable_async_copy=1

use cuda_lint_runtime::{Context, DeviceBuffer, LaunchConfig, PinnedBuffer, Result};

const LOGREG_SRC: &str = r#"
extern "C" __global__ void sgd_step(const float* x, const float* y, float* w, float* loss, unsigned rows, unsigned dim, float lr) {
    unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float z = 0.f;
    for (unsigned j = 0; j < dim; ++j) z += w[j] * x[r * dim + j];
    float p = 1.f / (1.f + __expf(-z));
    float g = p - y[r];
    for (unsigned j = 0; j < dim; ++j) atomicAdd(&w[j], -lr * g * x[r * dim + j] / rows);
    atomicAdd(loss, -(y[r] * __logf(p + 1e-7f) + (1.f - y[r]) * __logf(1.f - p + 1e-7f)) / rows);
}
"#;

pub struct Dataset {
    pub features: Vec<f32>,
    pub labels: Vec<f32>,
    pub dim: usize,
}

impl Dataset {
    pub fn rows(&self) -> usize {
        self.labels.len()
    }
}

pub struct TrainConfig {
    pub batch: usize,
    pub epochs: usize,
    pub lr: f32,
}

pub fn train(ctx: &Context, data: &Dataset, cfg: &TrainConfig) -> Result<(Vec<f32>, Vec<f32>)> {
    let stream = ctx.new_stream()?;
    let step = ctx.load_cuda(LOGREG_SRC)?.function("sgd_step")?;
    let mut d_w: DeviceBuffer<f32> = ctx.alloc_zeroed(data.dim)?;
    let mut d_x: DeviceBuffer<f32> = ctx.alloc(cfg.batch * data.dim)?;
    let mut d_y: DeviceBuffer<f32> = ctx.alloc(cfg.batch)?;
    let mut d_loss: DeviceBuffer<f32> = ctx.alloc_zeroed(1)?;
    let mut labels_pinned: PinnedBuffer<f32> = ctx.alloc_pinned(cfg.batch)?;
    let mut loss_host: PinnedBuffer<f32> = ctx.alloc_pinned(1)?;
    let mut history = Vec::with_capacity(cfg.epochs);

    let n_batches = data.rows() / cfg.batch;
    for _epoch in 0..cfg.epochs {
        stream.memset_d32_async(&mut d_loss, 0)?;
        for b in 0..n_batches {
            let rows = b * cfg.batch..(b + 1) * cfg.batch;
            let feats = &data.features[rows.start * data.dim..rows.end * data.dim];
            // SAFETY: `data` outlives the loop and is never written.
            unsafe { stream.copy_htod_async(&mut d_x, feats)? }; // EXPECT: pageable_async_copy
            // The labels staging is rewritten every batch: wait for its previous upload first.
            stream.synchronize()?;
            labels_pinned.copy_from_slice(&data.labels[rows]);
            unsafe { stream.copy_htod_async(&mut d_y, &labels_pinned)? };
            let (r, d) = (cfg.batch as u32, data.dim as u32);
            unsafe { stream.launch(&step, LaunchConfig::for_num_elems(r), &[&d_x, &d_y, &d_w, &d_loss, &r, &d, &cfg.lr])? };
        }
        unsafe { stream.copy_dtoh_async(&mut loss_host, &d_loss)? };
        stream.synchronize()?;
        history.push(loss_host[0] / n_batches.max(1) as f32);
    }
    let mut w_host: PinnedBuffer<f32> = ctx.alloc_pinned(data.dim)?;
    unsafe { stream.copy_dtoh_async(&mut w_host, &d_w)? };
    stream.synchronize()?;
    let weights = w_host.to_vec();
    let _ = (&mut d_x, &mut d_y);
    Ok((weights, history))
}
