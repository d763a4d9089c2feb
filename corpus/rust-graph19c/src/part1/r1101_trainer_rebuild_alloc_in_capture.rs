//! Linear-regression head trained with one captured step per batch shape.
//!
//! The data loader hands over full batches and, at the end of each epoch, one
//! ragged batch; whenever the batch size changes the trainer throws its graph
//! away, resizes the per-batch buffers and records the step again. The
//! prediction buffer is (re)allocated while the step is being recorded.

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{
    sys, CudaContext, CudaFunction, CudaGraph, CudaSlice, CudaStream, LaunchConfig,
    PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

type Res<T> = Result<T, Box<dyn Error>>;

const TRAIN_KERNELS: &str = r#"
extern "C" __global__ void forward_loss(const float* x, const float* w, const float* y,
                                        float* pred, float* loss, int batch, int features) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= batch) return;
    float acc = 0.0f;
    for (int f = 0; f < features; ++f) acc += x[i * features + f] * w[f];
    pred[i] = acc;
    float d = acc - y[i];
    loss[i] = 0.5f * d * d;
}

extern "C" __global__ void backward_sgd(const float* x, const float* pred, const float* y,
                                        float* w, int batch, int features, float lr) {
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= features) return;
    float g = 0.0f;
    for (int i = 0; i < batch; ++i) g += (pred[i] - y[i]) * x[i * features + f];
    w[f] -= lr * g / (float)batch;
}
"#;

pub struct GraphTrainer {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    forward: CudaFunction,
    backward: CudaFunction,
    features: usize,
    lr: f32,
    // The step graph comes first so it is destroyed before the buffers it names.
    graph: Option<CudaGraph>,
    batch: usize,
    weights: CudaSlice<f32>,
    x: CudaSlice<f32>,
    y: CudaSlice<f32>,
    loss: CudaSlice<f32>,
    pred: sys::CUdeviceptr,
    x_staging: PinnedHostSlice<f32>,
    y_staging: PinnedHostSlice<f32>,
    loss_host: PinnedHostSlice<f32>,
}

impl GraphTrainer {
    pub fn new(ctx: &Arc<CudaContext>, features: usize, lr: f32) -> Res<Self> {
        // One stream does all the work; the captured step must not wait on events
        // recorded outside the capture, so cudarc's per-slice events are turned off.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream()?;
        let module = ctx.load_module(compile_ptx(TRAIN_KERNELS)?)?;
        let forward = module.load_function("forward_loss")?;
        let backward = module.load_function("backward_sgd")?;

        let weights = stream.alloc_zeros::<f32>(features)?;
        let x = stream.alloc_zeros::<f32>(features)?;
        let y = stream.alloc_zeros::<f32>(1)?;
        let loss = stream.alloc_zeros::<f32>(1)?;
        let x_staging = unsafe { ctx.alloc_pinned_with_flags::<f32>(features, 0)? };
        let y_staging = unsafe { ctx.alloc_pinned_with_flags::<f32>(1, 0)? };
        let loss_host = unsafe { ctx.alloc_pinned_with_flags::<f32>(1, 0)? };
        Ok(Self {
            ctx: ctx.clone(),
            stream,
            forward,
            backward,
            features,
            lr,
            graph: None,
            batch: 0,
            weights,
            x,
            y,
            loss,
            pred: 0,
            x_staging,
            y_staging,
            loss_host,
        })
    }

    /// Re-record the training step for `batch` rows.
    fn rebuild(&mut self, batch: usize) -> Res<()> {
        // Nothing of the previous shape may still run when its buffers go.
        self.stream.synchronize()?;
        self.graph = None;
        if self.pred != 0 {
            unsafe { sys::cuMemFree_v2(self.pred) }.result()?;
            self.pred = 0;
        }

        self.x = self.stream.alloc_zeros::<f32>(batch * self.features)?;
        self.y = self.stream.alloc_zeros::<f32>(batch)?;
        self.loss = self.stream.alloc_zeros::<f32>(batch)?;
        self.x_staging = unsafe { self.ctx.alloc_pinned_with_flags::<f32>(batch * self.features, 0)? };
        self.y_staging = unsafe { self.ctx.alloc_pinned_with_flags::<f32>(batch, 0)? };
        self.loss_host = unsafe { self.ctx.alloc_pinned_with_flags::<f32>(batch, 0)? };

        let rows = batch as i32;
        let cols = self.features as i32;
        let lr = self.lr;
        let row_cfg = LaunchConfig::for_num_elems(batch as u32);
        let col_cfg = LaunchConfig::for_num_elems(self.features as u32);

        self.stream
            .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
        unsafe { sys::cuMemAlloc_v2(&mut self.pred, batch * std::mem::size_of::<f32>()) }.result()?; // EXPECT: uncapturable_call
        unsafe {
            self.stream
                .launch_builder(&self.forward)
                .arg(&self.x)
                .arg(&self.weights)
                .arg(&self.y)
                .arg(&self.pred)
                .arg(&mut self.loss)
                .arg(&rows)
                .arg(&cols)
                .launch(row_cfg)?;
            self.stream
                .launch_builder(&self.backward)
                .arg(&self.x)
                .arg(&self.pred)
                .arg(&self.y)
                .arg(&mut self.weights)
                .arg(&rows)
                .arg(&cols)
                .arg(&lr)
                .launch(col_cfg)?;
        }
        self.graph = self
            .stream
            .end_capture(sys::CUgraphInstantiate_flags(0))?;
        self.batch = batch;
        Ok(())
    }

    /// One optimisation step; returns the mean loss of the batch.
    pub fn step(&mut self, xb: &[f32], yb: &[f32]) -> Res<f32> {
        let batch = yb.len();
        if self.graph.is_none() || batch != self.batch {
            self.rebuild(batch)?;
        }
        self.x_staging.as_mut_slice()?.copy_from_slice(xb);
        self.y_staging.as_mut_slice()?.copy_from_slice(yb);
        self.stream.memcpy_htod(&self.x_staging, &mut self.x)?;
        self.stream.memcpy_htod(&self.y_staging, &mut self.y)?;
        self.graph.as_ref().ok_or("step graph missing")?.launch()?;
        self.stream.memcpy_dtoh(&self.loss, &mut self.loss_host)?;
        self.stream.synchronize()?;
        let total: f32 = self.loss_host.as_slice()?.iter().sum();
        Ok(total / batch as f32)
    }

    pub fn weights(&self) -> Res<Vec<f32>> {
        let mut host = unsafe { self.ctx.alloc_pinned_with_flags::<f32>(self.features, 0)? };
        self.stream.memcpy_dtoh(&self.weights, &mut host)?;
        self.stream.synchronize()?;
        Ok(host.as_slice()?.to_vec())
    }
}

impl Drop for GraphTrainer {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        if self.pred != 0 {
            let _ = unsafe { sys::cuMemFree_v2(self.pred) };
        }
    }
}

/// Trains for `epochs` passes over `batches` (rows of `features` values, one target each).
pub fn train_ragged_epochs(
    batches: &[(Vec<f32>, Vec<f32>)],
    features: usize,
    epochs: usize,
) -> Res<(Vec<f32>, Vec<f32>)> {
    let ctx = CudaContext::new(0)?;
    let mut trainer = GraphTrainer::new(&ctx, features, 0.05)?;
    let mut history = Vec::with_capacity(epochs * batches.len());
    for _ in 0..epochs {
        for (xb, yb) in batches {
            if xb.len() != yb.len() * features {
                return Err("batch rows do not match targets".into());
            }
            history.push(trainer.step(xb, yb)?);
        }
    }
    let weights = trainer.weights()?;
    Ok((history, weights))
}
