//! case: a greedy decoder reads the logits back into cudarc's `alloc_pinned` buffer on the default stream (the decoder owns its context and makes no other stream) and takes the argmax right away: no event is recorded with one stream, so `as_slice` does not wait for the copy, and the buffer is write-combined, so the scan is an uncached read
//! expect: missing_sync=1, write_combined_host_read=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const LM_HEAD_SRC: &str = r#"
extern "C" __global__ void lm_head(const float* h, const float* w, float* logits, int dim, int vocab) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < vocab) {
        float acc = 0.f;
        for (int d = 0; d < dim; ++d) acc += h[d] * w[(size_t)v * dim + d];
        logits[v] = acc;
    }
}
"#;

pub struct GreedyDecoder {
    stream: Arc<CudaStream>,
    lm_head: cudarc::driver::CudaFunction,
    w_out: CudaSlice<f32>,
    logits: CudaSlice<f32>,
    logits_host: PinnedHostSlice<f32>,
    dim: i32,
    vocab: i32,
}

impl GreedyDecoder {
    /// `load_weights` fills the `vocab x dim` output projection in place.
    pub fn new<F: FnOnce(&mut [f32])>(ordinal: usize, dim: usize, vocab: usize, load_weights: F) -> Result<Self, Box<dyn std::error::Error>> {
        let ctx = CudaContext::new(ordinal)?;
        let stream = ctx.default_stream();
        let lm_head = ctx.load_module(compile_ptx(LM_HEAD_SRC)?)?.load_function("lm_head")?;
        let mut staging = unsafe { ctx.alloc_pinned::<f32>(dim * vocab)? };
        load_weights(staging.as_mut_slice()?);
        let w_out = stream.clone_htod(&staging)?;
        stream.synchronize()?;
        let logits = stream.alloc_zeros::<f32>(vocab)?;
        let logits_host = unsafe { ctx.alloc_pinned::<f32>(vocab)? };
        Ok(Self { stream, lm_head, w_out, logits, logits_host, dim: dim as i32, vocab: vocab as i32 })
    }

    pub fn next_token(&mut self, hidden: &CudaSlice<f32>) -> Result<u32, Box<dyn std::error::Error>> {
        let mut launch = self.stream.launch_builder(&self.lm_head);
        launch.arg(hidden).arg(&self.w_out).arg(&mut self.logits).arg(&self.dim).arg(&self.vocab);
        unsafe { launch.launch(LaunchConfig::for_num_elems(self.vocab as u32))? };
        self.stream.memcpy_dtoh(&self.logits, &mut self.logits_host)?;

        let best = self.logits_host.as_slice()?.iter().enumerate().fold((0usize, f32::NEG_INFINITY), |acc, (i, &v)| if v > acc.1 { (i, v) } else { acc }); // EXPECT: missing_sync, write_combined_host_read
        Ok(best.0 as u32)
    }
}
