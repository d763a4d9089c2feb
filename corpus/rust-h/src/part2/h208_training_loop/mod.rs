//! case: training loop whose trainer owns a fresh context and uses only its default stream; the loader's write-combined staging is only written, but the scalar loss is copied into pinned memory and read for the metrics right after the async copy, and with one stream cudarc's `as_slice` does not wait
//! expect: missing_sync=1

mod loader;
mod metrics;
mod optimizer;

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use loader::DataLoader;
use metrics::Metrics;
use optimizer::Sgd;

pub type TrainResult<T> = Result<T, Box<dyn std::error::Error>>;

const LOSS_SRC: &str = r#"
extern "C" __global__ void mse_loss(const float* x, const float* w, const float* y, float* grad, float* loss,
                                    unsigned batch, unsigned dim) {
    unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= batch) return;
    float pred = 0.0f;
    for (unsigned k = 0; k < dim; ++k) pred += x[r * dim + k] * w[k];
    float err = pred - y[r];
    for (unsigned k = 0; k < dim; ++k) atomicAdd(&grad[k], err * x[r * dim + k] / batch);
    atomicAdd(loss, err * err / batch);
}
"#;

pub struct Trainer {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    loss_fn: CudaFunction,
    weights: CudaSlice<f32>,
    grad: CudaSlice<f32>,
    loss_dev: CudaSlice<f32>,
    loss_host: PinnedHostSlice<f32>,
    loader: DataLoader,
    opt: Sgd,
    metrics: Metrics,
    dim: usize,
}

impl Trainer {
    pub fn new(ordinal: usize, dim: usize, batch: usize, lr: f32) -> TrainResult<Self> {
        let ctx = CudaContext::new(ordinal)?;
        let stream = ctx.default_stream();
        let loss_fn = ctx.load_module(compile_ptx(LOSS_SRC)?)?.load_function("mse_loss")?;
        let opt = Sgd::new(&ctx, lr)?;
        let loader = DataLoader::new(&ctx, stream.clone(), batch, dim)?;
        Ok(Self {
            weights: stream.alloc_zeros::<f32>(dim)?,
            grad: stream.alloc_zeros::<f32>(dim)?,
            loss_dev: stream.alloc_zeros::<f32>(1)?,
            loss_host: unsafe { ctx.alloc_pinned_with_flags::<f32>(1, 0)? },
            ctx,
            stream,
            loss_fn,
            loader,
            opt,
            metrics: Metrics::default(),
            dim,
        })
    }

    pub fn step(&mut self, samples: &[f32], targets: &[f32]) -> TrainResult<()> {
        let batch = self.loader.next_batch(samples, targets)?;
        self.stream.memset_zeros(&mut self.grad)?;
        self.stream.memset_zeros(&mut self.loss_dev)?;
        let (rows, dim) = (batch.rows as u32, self.dim as u32);
        unsafe {
            self.stream
                .launch_builder(&self.loss_fn)
                .arg(&batch.x)
                .arg(&self.weights)
                .arg(&batch.y)
                .arg(&mut self.grad)
                .arg(&mut self.loss_dev)
                .arg(&rows)
                .arg(&dim)
                .launch(LaunchConfig::for_num_elems(rows))?
        };
        self.opt.apply(&self.stream, &mut self.weights, &self.grad)?;
        self.stream.memcpy_dtoh(&self.loss_dev, &mut self.loss_host)?;
        self.metrics.record(self.loss_host.as_slice()?[0]); // EXPECT: missing_sync
        Ok(())
    }

    pub fn smoothed_loss(&self) -> Option<f32> {
        self.metrics.mean_last(10)
    }
}
