//! case: a cudarc UnifiedSlice (attach global) of progress counters read by the host while a training kernel that does not use it runs on another stream
//! expect: managed_concurrent_access=1
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void sgd_step(float* w, const float* g, float lr, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) w[i] -= lr * g[i];
}
"#;

struct Trainer {
    compute: Arc<CudaStream>,
    step: CudaFunction,
    weights: CudaSlice<f32>,
    grads: CudaSlice<f32>,
    progress: UnifiedSlice<u64>,
}

impl Trainer {
    fn new(ctx: &Arc<CudaContext>, n: usize) -> Result<Trainer, Box<dyn std::error::Error>> {
        let compute = ctx.new_stream()?;
        let step = ctx.load_module(compile_ptx(SRC)?)?.load_function("sgd_step")?;
        let mut progress = unsafe { ctx.alloc_unified::<u64>(2, true) }?;
        progress.as_mut_slice()?.fill(0);
        let weights = compute.alloc_zeros::<f32>(n)?;
        let grads = compute.alloc_zeros::<f32>(n)?;
        Ok(Trainer { compute, step, weights, grads, progress })
    }

    fn launch_step(&mut self, lr: f32) -> Result<(), DriverError> {
        let n = self.weights.len() as u32;
        let mut b = self.compute.launch_builder(&self.step);
        b.arg(&mut self.weights).arg(&self.grads).arg(&lr).arg(&n);
        unsafe { b.launch(LaunchConfig::for_num_elems(n)) }.map(|_| ())
    }

    fn steps_done(&self) -> Result<u64, DriverError> {
        Ok(self.progress.as_slice()?[0]) // EXPECT: managed_concurrent_access
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let mut t = Trainer::new(&ctx, 1 << 20)?;
    for _ in 0..10 {
        t.launch_step(0.01)?;
        if t.steps_done()? % 100 == 0 {
            println!("checkpoint");
        }
    }
    t.compute.synchronize()?;
    Ok(())
}
