//! case: the same readback as a batched server with an upload stream and a compute stream: the context is in multi-stream mode with event tracking on, so the copy records the pinned buffer's event and `as_slice` waits for it
//! expect: none
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SOFTMAX_SRC: &str = r#"
extern "C" __global__ void row_softmax(const float* logits, float* probs, int vocab) {
    int row = blockIdx.x;
    const float* in = logits + (size_t)row * vocab;
    float* out = probs + (size_t)row * vocab;
    float m = -1e30f;
    for (int i = threadIdx.x; i < vocab; i += blockDim.x) m = fmaxf(m, in[i]);
    float s = 0.0f;
    for (int i = threadIdx.x; i < vocab; i += blockDim.x) s += __expf(in[i] - m);
    for (int i = threadIdx.x; i < vocab; i += blockDim.x) out[i] = __expf(in[i] - m) / s;
}
"#;

pub struct BatchedSampler {
    upload: Arc<CudaStream>,
    compute: Arc<CudaStream>,
    softmax: CudaFunction,
    logits: CudaSlice<f32>,
    probs: CudaSlice<f32>,
    host_probs: PinnedHostSlice<f32>,
    batch: usize,
    vocab: usize,
}

impl BatchedSampler {
    pub fn new(batch: usize, vocab: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let ctx = CudaContext::new(0)?;
        let upload = ctx.new_stream()?;
        let compute = ctx.new_stream()?;
        let softmax = ctx.load_module(compile_ptx(SOFTMAX_SRC)?)?.load_function("row_softmax")?;
        let logits = compute.alloc_zeros::<f32>(batch * vocab)?;
        let probs = compute.alloc_zeros::<f32>(batch * vocab)?;
        let host_probs = unsafe { ctx.alloc_pinned_with_flags::<f32>(batch * vocab, 0)? };
        Ok(Self { upload, compute, softmax, logits, probs, host_probs, batch, vocab })
    }

    pub fn upload_logits(&mut self, src: &PinnedHostSlice<f32>) -> Result<(), Box<dyn std::error::Error>> {
        self.upload.memcpy_htod(src, &mut self.logits)?;
        Ok(())
    }

    /// Greedy pick per row; the read of `host_probs` goes through `as_slice`, which
    /// synchronizes the event the copy recorded (two streams alive: tracking is on).
    pub fn sample(&mut self) -> Result<Vec<u32>, Box<dyn std::error::Error>> {
        let vocab = self.vocab as i32;
        let cfg = LaunchConfig { grid_dim: (self.batch as u32, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
        unsafe {
            self.compute
                .launch_builder(&self.softmax)
                .arg(&self.logits)
                .arg(&mut self.probs)
                .arg(&vocab)
                .launch(cfg)?;
        }
        self.compute.memcpy_dtoh(&self.probs, &mut self.host_probs)?;
        let probs = self.host_probs.as_slice()?;
        let picks = probs
            .chunks_exact(self.vocab)
            .map(|row| {
                row.iter()
                    .enumerate()
                    .max_by(|a, b| a.1.total_cmp(b.1))
                    .map(|(i, _)| i as u32)
                    .unwrap_or(0)
            })
            .collect();
        Ok(picks)
    }
}
