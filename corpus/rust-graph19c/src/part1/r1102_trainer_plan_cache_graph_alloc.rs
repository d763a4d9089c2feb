//! Fine-tuning loop that keeps one captured step per batch size it has seen.
//!
//! Each plan owns its batch-shaped buffers and the graph recorded over them. The
//! per-row predictions are a temporary of the step: they are taken from the
//! stream-ordered pool and returned inside the recording, so the graph carries
//! its own allocation and free nodes.

use std::collections::HashMap;
use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{
    sys, CudaContext, CudaFunction, CudaGraph, CudaSlice, CudaStream, LaunchConfig,
    PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

type Res<T> = Result<T, Box<dyn Error>>;

const STEP_SRC: &str = r#"
extern "C" __global__ void predict_huber(const float* x, const float* w, const float* y,
                                         float* pred, float* loss, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0.0f;
    for (int c = 0; c < cols; ++c) acc += x[r * cols + c] * w[c];
    pred[r] = acc;
    float d = fabsf(acc - y[r]);
    loss[r] = d < 1.0f ? 0.5f * d * d : d - 0.5f;
}

extern "C" __global__ void huber_update(const float* x, const float* pred, const float* y,
                                        float* w, int rows, int cols, float lr) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float g = 0.0f;
    for (int r = 0; r < rows; ++r) {
        float d = pred[r] - y[r];
        d = fmaxf(-1.0f, fminf(1.0f, d));
        g += d * x[r * cols + c];
    }
    w[c] -= lr * g / (float)rows;
}
"#;

struct StepPlan {
    // Declared first: the executable graph goes before the memory it was recorded on.
    graph: CudaGraph,
    rows: usize,
    x: CudaSlice<f32>,
    y: CudaSlice<f32>,
    loss: CudaSlice<f32>,
    x_host: PinnedHostSlice<f32>,
    y_host: PinnedHostSlice<f32>,
    loss_host: PinnedHostSlice<f32>,
}

pub struct PlanCachedTrainer {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    predict: CudaFunction,
    update: CudaFunction,
    cols: usize,
    lr: f32,
    plans: HashMap<usize, StepPlan>,
    w: CudaSlice<f32>,
}

impl PlanCachedTrainer {
    pub fn new(ctx: &Arc<CudaContext>, cols: usize, init_w: &[f32], lr: f32) -> Res<Self> {
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream()?;
        let module = ctx.load_module(compile_ptx(STEP_SRC)?)?;
        let predict = module.load_function("predict_huber")?;
        let update = module.load_function("huber_update")?;

        let mut w_host = unsafe { ctx.alloc_pinned_with_flags::<f32>(cols, 0)? };
        w_host.as_mut_slice()?.copy_from_slice(init_w);
        let mut w = stream.alloc_zeros::<f32>(cols)?;
        stream.memcpy_htod(&w_host, &mut w)?;
        stream.synchronize()?;

        Ok(Self {
            ctx: ctx.clone(),
            stream,
            predict,
            update,
            cols,
            lr,
            plans: HashMap::new(),
            w,
        })
    }

    fn record_plan(&mut self, rows: usize) -> Res<StepPlan> {
        let x = self.stream.alloc_zeros::<f32>(rows * self.cols)?;
        let y = self.stream.alloc_zeros::<f32>(rows)?;
        let mut loss = self.stream.alloc_zeros::<f32>(rows)?;
        let x_host = unsafe { self.ctx.alloc_pinned_with_flags::<f32>(rows * self.cols, 0)? };
        let y_host = unsafe { self.ctx.alloc_pinned_with_flags::<f32>(rows, 0)? };
        let loss_host = unsafe { self.ctx.alloc_pinned_with_flags::<f32>(rows, 0)? };

        let cu = self.stream.cu_stream();

        self.stream
            .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
        let mut pred: sys::CUdeviceptr = 0;
        unsafe { sys::cuMemAllocAsync(&mut pred, rows * std::mem::size_of::<f32>(), cu) }.result()?;
        // Record both kernels and hand the temporary back before looking at any
        // status, so the capture is always ended and the pool always gets it back.
        let recorded = self.record_kernels(&x, &y, &mut loss, pred, rows);
        let released = unsafe { sys::cuMemFreeAsync(pred, cu) }.result();
        let graph = self.stream.end_capture(sys::CUgraphInstantiate_flags(0));
        recorded?;
        released?;
        let graph = graph?.ok_or("capture produced no graph")?;
        Ok(StepPlan { graph, rows, x, y, loss, x_host, y_host, loss_host })
    }

    fn record_kernels(
        &mut self,
        x: &CudaSlice<f32>,
        y: &CudaSlice<f32>,
        loss: &mut CudaSlice<f32>,
        pred: sys::CUdeviceptr,
        rows: usize,
    ) -> Result<(), cudarc::driver::DriverError> {
        let r = rows as i32;
        let c = self.cols as i32;
        let lr = self.lr;
        unsafe {
            self.stream
                .launch_builder(&self.predict)
                .arg(x)
                .arg(&self.w)
                .arg(y)
                .arg(&pred)
                .arg(loss)
                .arg(&r)
                .arg(&c)
                .launch(LaunchConfig::for_num_elems(rows as u32))?;
            self.stream
                .launch_builder(&self.update)
                .arg(x)
                .arg(&pred)
                .arg(y)
                .arg(&mut self.w)
                .arg(&r)
                .arg(&c)
                .arg(&lr)
                .launch(LaunchConfig::for_num_elems(self.cols as u32))?;
        }
        Ok(())
    }

    pub fn step(&mut self, xb: &[f32], yb: &[f32]) -> Res<f32> {
        let rows = yb.len();
        if !self.plans.contains_key(&rows) {
            let plan = self.record_plan(rows)?;
            self.plans.insert(rows, plan);
        }
        let plan = self.plans.get_mut(&rows).ok_or("plan vanished")?;
        // The last launch of this plan was waited for at the end of its step.
        plan.x_host.as_mut_slice()?.copy_from_slice(xb);
        plan.y_host.as_mut_slice()?.copy_from_slice(yb);
        self.stream.memcpy_htod(&plan.x_host, &mut plan.x)?;
        self.stream.memcpy_htod(&plan.y_host, &mut plan.y)?;
        plan.graph.launch()?;
        self.stream.memcpy_dtoh(&plan.loss, &mut plan.loss_host)?;
        self.stream.synchronize()?;
        let sum: f32 = plan.loss_host.as_slice()?.iter().sum();
        Ok(sum / plan.rows as f32)
    }

    pub fn export_weights(&self) -> Res<Vec<f32>> {
        let mut out = unsafe { self.ctx.alloc_pinned_with_flags::<f32>(self.cols, 0)? };
        self.stream.memcpy_dtoh(&self.w, &mut out)?;
        self.stream.synchronize()?;
        Ok(out.as_slice()?.to_vec())
    }
}

impl Drop for PlanCachedTrainer {
    fn drop(&mut self) {
        // Plans (graphs, then their buffers) are released after the last step finished.
        let _ = self.stream.synchronize();
        self.plans.clear();
    }
}

pub fn finetune_with_tail_batches(
    batches: &[(Vec<f32>, Vec<f32>)],
    init_w: &[f32],
    epochs: usize,
) -> Res<(Vec<f32>, Vec<f32>)> {
    let ctx = CudaContext::new(0)?;
    let mut trainer = PlanCachedTrainer::new(&ctx, init_w.len(), init_w, 0.02)?;
    let mut losses = Vec::new();
    for epoch in 0..epochs {
        let mut epoch_loss = 0.0f32;
        for (xb, yb) in batches {
            epoch_loss += trainer.step(xb, yb)?;
        }
        losses.push(epoch_loss / batches.len().max(1) as f32);
        if epoch > 2 && losses[epoch] > losses[epoch - 1] * 1.5 {
            return Err(format!("loss diverged at epoch {epoch}").into());
        }
    }
    Ok((losses, trainer.export_weights()?))
}
