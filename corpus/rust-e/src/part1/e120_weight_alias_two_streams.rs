//! case: online-learning server shares one physical weight allocation between a trainer mapping and a serving mapping (two VMM aliases); the trainer's update kernel writes through one alias on its stream and the serving kernel reads through the other on another stream, with no event between them
//! expect: unfenced_vmm_alias=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};

const ONLINE_SRC: &str = r#"
extern "C" __global__ void sgd_update(float* w, const float* grad, float lr, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) w[i] -= lr * grad[i];
}
extern "C" __global__ void score(const float* w, const float* x, float* y, int n, int batch) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch) return;
    float acc = 0.0f;
    for (int i = 0; i < n; ++i) acc += w[i] * x[b * n + i];
    y[b] = 1.0f / (1.0f + __expf(-acc));
}
"#;

pub struct OnlineModel {
    trainer: Stream,
    server: Stream,
    update: Kernel,
    score: Kernel,
    train_view: Mapping,
    serve_view: Mapping,
    _physical: PhysicalAllocation,
    n: usize,
}

impl OnlineModel {
    pub fn new(ctx: &Context, n: usize) -> Result<Self> {
        let bytes = (n * 4).next_multiple_of(ctx.vmm_granularity()?);
        let physical = PhysicalAllocation::new(ctx, bytes)?;
        let mut train_view = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
        let serve_view = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
        let module = ctx.load_cuda(ONLINE_SRC)?;
        let trainer = ctx.new_stream()?;
        trainer.memset_d32(&mut train_view, 0)?; // blocking: done before serving starts
        Ok(OnlineModel {
            server: ctx.new_stream()?,
            update: module.function("sgd_update")?,
            score: module.function("score")?,
            trainer,
            train_view,
            serve_view,
            _physical: physical,
            n,
        })
    }

    /// Applies one gradient step on the trainer stream.
    pub fn train_step(&self, grad: &DeviceBuffer<f32>, lr: f32) -> Result<()> {
        let n = self.n as i32;
        unsafe {
            self.trainer
                .launch(&self.update, LaunchConfig::for_num_elems(self.n as u32), &[&self.train_view, grad, &lr, &n])
        }
    }

    /// Scores a batch on the serving stream with the current weights.
    pub fn serve(&self, x: &DeviceBuffer<f32>, y: &mut DeviceBuffer<f32>) -> Result<()> {
        let (n, batch) = (self.n as i32, y.len() as i32);
        unsafe {
            self.server
                .launch(&self.score, LaunchConfig::for_num_elems(batch as u32), &[&self.serve_view, x, &*y, &n, &batch])
        }
    }

    pub fn server_stream(&self) -> &Stream {
        &self.server
    }
}

/// One tick of the serving loop: learn from the last batch's feedback, then score the next one.
pub fn tick(model: &OnlineModel, grad: &DeviceBuffer<f32>, x: &DeviceBuffer<f32>, y: &mut DeviceBuffer<f32>) -> Result<()> {
    model.train_step(grad, 1e-3)?;
    model.serve(x, y)?; // EXPECT: unfenced_vmm_alias
    model.server_stream().synchronize()
}
