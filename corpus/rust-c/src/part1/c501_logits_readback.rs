//! case: inference session on cudarc's default stream alone: the logits are copied into a pinned (non write-combined) buffer and `as_slice` is read right away; with one stream cudarc records no event, so `as_slice` waits for nothing
//! expect: missing_sync=1
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const HEAD_SRC: &str = r#"
extern "C" __global__ void lm_head(const float* hidden, const float* weight, float* logits,
                                   int hidden_dim, int vocab) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= vocab) return;
    float acc = 0.0f;
    for (int k = 0; k < hidden_dim; ++k) acc += hidden[k] * weight[v * hidden_dim + k];
    logits[v] = acc;
}
"#;

pub struct InferenceSession {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    lm_head: CudaFunction,
    weight: CudaSlice<f32>,
    logits: CudaSlice<f32>,
    host_logits: PinnedHostSlice<f32>,
    hidden_dim: usize,
    vocab: usize,
}

impl InferenceSession {
    /// `weight` was uploaded by the checkpoint loader on the same context's default stream.
    pub fn new(ctx: Arc<CudaContext>, weight: CudaSlice<f32>, hidden_dim: usize, vocab: usize) -> Result<Self, Box<dyn std::error::Error>> {
        // One stream for everything: the context stays in single-stream mode.
        let stream = ctx.default_stream();
        let module = ctx.load_module(compile_ptx(HEAD_SRC)?)?;
        let lm_head = module.load_function("lm_head")?;
        let logits = stream.alloc_zeros::<f32>(vocab)?;
        // Flags 0: plain page-locked memory, cached by the CPU.
        let host_logits = unsafe { ctx.alloc_pinned_with_flags::<f32>(vocab, 0)? };
        Ok(Self { ctx, stream, lm_head, weight, logits, host_logits, hidden_dim, vocab })
    }

    /// Runs the LM head on one hidden state and returns the argmax token.
    pub fn next_token(&mut self, hidden: &CudaSlice<f32>) -> Result<u32, Box<dyn std::error::Error>> {
        let cfg = LaunchConfig::for_num_elems(self.vocab as u32);
        let hidden_dim = self.hidden_dim as i32;
        let vocab = self.vocab as i32;
        unsafe {
            self.stream
                .launch_builder(&self.lm_head)
                .arg(hidden)
                .arg(&self.weight)
                .arg(&mut self.logits)
                .arg(&hidden_dim)
                .arg(&vocab)
                .launch(cfg)?;
        }
        self.stream.memcpy_dtoh(&self.logits, &mut self.host_logits)?;
        let logits = self.host_logits.as_slice()?; // EXPECT: missing_sync
        let (best, _) = logits
            .iter()
            .enumerate()
            .fold((0usize, f32::NEG_INFINITY), |(bi, bv), (i, &v)| if v > bv { (i, v) } else { (bi, bv) });
        Ok(best as u32)
    }
}
