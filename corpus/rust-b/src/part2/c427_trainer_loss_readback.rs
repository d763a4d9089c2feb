//! case: a trainer reads per-sample losses back into a cudarc alloc_pinned buffer (write-combined in 0.19.10) and averages them on the host each step
//! expect: write_combined_host_read=1
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const LOSS_SRC: &str = r#"
extern "C" __global__ void mse(const float* pred, const float* target, float* loss, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float d = pred[i] - target[i]; loss[i] = d * d; }
}
"#;

pub struct Trainer {
    stream: Arc<CudaStream>,
    mse: CudaFunction,
    pred: CudaSlice<f32>,
    target: CudaSlice<f32>,
    loss_dev: CudaSlice<f32>,
    loss_host: PinnedHostSlice<f32>,
    history: Vec<f32>,
}

impl Trainer {
    pub fn new(ctx: &Arc<CudaContext>, batch: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.default_stream();
        let mse = ctx.load_module(compile_ptx(LOSS_SRC)?)?.load_function("mse")?;
        Ok(Self {
            pred: stream.alloc_zeros(batch)?,
            target: stream.alloc_zeros(batch)?,
            loss_dev: stream.alloc_zeros(batch)?,
            loss_host: unsafe { ctx.alloc_pinned::<f32>(batch)? },
            history: Vec::new(),
            stream,
            mse,
        })
    }

    pub fn step(&mut self) -> Result<f32, DriverError> {
        let n = self.pred.len() as u32;
        unsafe {
            self.stream
                .launch_builder(&self.mse)
                .arg(&self.pred)
                .arg(&self.target)
                .arg(&mut self.loss_dev)
                .arg(&n)
                .launch(LaunchConfig::for_num_elems(n))?
        };
        self.stream.memcpy_dtoh(&self.loss_dev, &mut self.loss_host)?;
        self.stream.synchronize()?;
        let mean = self.loss_host.as_slice()?.iter().sum::<f32>() / n as f32; // EXPECT: write_combined_host_read
        self.history.push(mean);
        Ok(mean)
    }
}

pub fn train(ctx: &Arc<CudaContext>, steps: usize) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let mut t = Trainer::new(ctx, 1 << 16)?;
    for _ in 0..steps {
        if t.step()? < 1e-6 {
            break;
        }
    }
    Ok(t.history)
}
