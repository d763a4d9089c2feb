//! case: cudarc sampler on the context's default stream only (no other stream is ever created): logits go up from an alloc_pinned buffer the host only writes, probabilities come back into another alloc_pinned buffer that is read through as_slice right after memcpy_dtoh, which does not wait here and is write-combined
//! expect: missing_sync=1, write_combined_host_read=1
use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::sync::Arc;

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const SOFTMAX_SRC: &str = r#"
extern "C" __global__ void softmax_rows(const float* logits, float* probs, unsigned int vocab, float temperature) {
    extern __shared__ float red[];
    const float* row = logits + blockIdx.x * vocab;
    float* out = probs + blockIdx.x * vocab;
    float m = -1e30f;
    for (unsigned int i = threadIdx.x; i < vocab; i += blockDim.x) m = fmaxf(m, row[i] / temperature);
    red[threadIdx.x] = m; __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) { if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]); __syncthreads(); }
    m = red[0]; __syncthreads();
    float sum = 0.f;
    for (unsigned int i = threadIdx.x; i < vocab; i += blockDim.x) { float e = __expf(row[i] / temperature - m); out[i] = e; sum += e; }
    red[threadIdx.x] = sum; __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) { if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s]; __syncthreads(); }
    float inv = 1.f / red[0];
    for (unsigned int i = threadIdx.x; i < vocab; i += blockDim.x) out[i] *= inv;
}
"#;

pub struct Sampler {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    softmax: CudaFunction,
    logits_up: PinnedHostSlice<f32>,
    probs_down: PinnedHostSlice<f32>,
    d_logits: CudaSlice<f32>,
    d_probs: CudaSlice<f32>,
    vocab: usize,
    batch: usize,
}

impl Sampler {
    pub fn new(vocab: usize, batch: usize) -> Res<Self> {
        let ctx = CudaContext::new(0)?;
        let stream = ctx.default_stream();
        let softmax = ctx.load_module(compile_ptx(SOFTMAX_SRC)?)?.load_function("softmax_rows")?;
        let n = vocab * batch;
        Ok(Sampler {
            logits_up: unsafe { ctx.alloc_pinned::<f32>(n) }?,
            probs_down: unsafe { ctx.alloc_pinned::<f32>(n) }?,
            d_logits: stream.alloc_zeros::<f32>(n)?,
            d_probs: stream.alloc_zeros::<f32>(n)?,
            ctx,
            stream,
            softmax,
            vocab,
            batch,
        })
    }

    /// Top-k token ids per row.
    pub fn top_k(&mut self, logits: &[f32], k: usize, temperature: f32) -> Res<Vec<Vec<usize>>> {
        // The previous batch's upload has to be finished before its staging buffer is rewritten.
        self.stream.synchronize()?;
        self.logits_up.as_mut_slice()?.copy_from_slice(logits);
        self.stream.memcpy_htod(&self.logits_up, &mut self.d_logits)?;
        let cfg = LaunchConfig { grid_dim: (self.batch as u32, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 256 * 4 };
        let vocab = self.vocab as u32;
        unsafe {
            self.stream
                .launch_builder(&self.softmax)
                .arg(&self.d_logits)
                .arg(&mut self.d_probs)
                .arg(&vocab)
                .arg(&temperature)
                .launch(cfg)?;
        }
        self.stream.memcpy_dtoh(&self.d_probs, &mut self.probs_down)?;
        let probs = self.probs_down.as_slice()?; // EXPECT: missing_sync, write_combined_host_read
        let rows: Vec<Vec<usize>> = probs
            .chunks(self.vocab)
            .map(|row| {
                let mut idx: Vec<usize> = (0..row.len()).collect();
                idx.sort_unstable_by(|&a, &b| row[b].total_cmp(&row[a]));
                idx.truncate(k);
                idx
            })
            .collect();
        Ok(rows)
    }
}
