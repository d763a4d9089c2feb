//! case: the same gradient export, but the trainer turns cudarc's event tracking off to save the event overhead; the io stream's copy of the shard is then ordered after nothing on the compute stream that writes it, so it may copy the gradients before the backward kernel has written them
//! expect: missing_sync=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const BACKWARD_SRC: &str = r#"
extern "C" __global__ void gelu_backward(const float* x, const float* up, float* grad, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float t = tanhf(0.7978845608f * (x[i] + 0.044715f * x[i] * x[i] * x[i]));
    grad[i] = up[i] * 0.5f * (1.0f + t);
}
"#;

pub struct FastExporter {
    ctx: Arc<CudaContext>,
    compute: Arc<CudaStream>,
    io: Arc<CudaStream>,
    backward: CudaFunction,
    grads: CudaSlice<f32>,
    staging: PinnedHostSlice<f32>,
}

impl FastExporter {
    pub fn new(ordinal: usize, shard_len: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let ctx = CudaContext::new(ordinal)?;
        // we order our own streams; skip cudarc's per-slice events
        unsafe { ctx.disable_event_tracking() };
        let compute = ctx.new_stream()?;
        let io = ctx.new_stream()?;
        let backward = ctx.load_module(compile_ptx(BACKWARD_SRC)?)?.load_function("gelu_backward")?;
        Ok(Self {
            grads: compute.alloc_zeros::<f32>(shard_len)?,
            staging: unsafe { ctx.alloc_pinned_with_flags::<f32>(shard_len, 0)? },
            ctx,
            compute,
            io,
            backward,
        })
    }

    pub fn step(&mut self, x: &CudaSlice<f32>, upstream: &CudaSlice<f32>) -> Result<f64, Box<dyn std::error::Error>> {
        let n = self.grads.len() as u32;
        unsafe {
            self.compute
                .launch_builder(&self.backward)
                .arg(x)
                .arg(upstream)
                .arg(&mut self.grads)
                .arg(&n)
                .launch(LaunchConfig::for_num_elems(n))?
        };
        self.io.memcpy_dtoh(&self.grads, &mut self.staging)?; // EXPECT: missing_sync
        self.io.synchronize()?;
        let l2: f64 = self.staging.as_slice()?.iter().map(|&g| (g as f64) * (g as f64)).sum();
        Ok(l2.sqrt())
    }
}
