//! case: a batched inference worker on cudarc's default stream only reads the softmaxed logits from `alloc_pinned` memory right after `memcpy_dtoh`; with one stream cudarc records no event, so `as_slice` waits for nothing (stale), and the buffer is write-combined
//! expect: missing_sync=1, write_combined_host_read=1

use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

const MAX_BATCH: usize = 64;
const VOCAB: usize = 32_000;

const HEAD_SRC: &str = r#"
extern "C" __global__ void lm_head_softmax(const unsigned int* ids, const float* table,
                                           float* logits, unsigned int batch, unsigned int vocab) {
    unsigned int row = blockIdx.y;
    if (row >= batch) return;
    const float* src = table + (size_t)ids[row] * vocab;
    float* dst = logits + (size_t)row * vocab;
    float m = -1e30f;
    for (unsigned int j = threadIdx.x; j < vocab; j += blockDim.x) m = fmaxf(m, src[j]);
    __shared__ float red[256];
    red[threadIdx.x] = m; __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
        __syncthreads();
    }
    m = red[0];
    for (unsigned int j = threadIdx.x; j < vocab; j += blockDim.x) dst[j] = __expf(src[j] - m);
}
"#;

pub struct InferenceWorker {
    stream: Arc<CudaStream>,
    head: CudaFunction,
    table: CudaSlice<f32>,
    ids_dev: CudaSlice<u32>,
    logits_dev: CudaSlice<f32>,
    logits_host: PinnedHostSlice<f32>,
}

impl InferenceWorker {
    pub fn new(ctx: &Arc<CudaContext>, vocab_rows: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.default_stream();
        let head = ctx.load_module(compile_ptx(HEAD_SRC)?)?.load_function("lm_head_softmax")?;
        Ok(Self {
            table: stream.alloc_zeros::<f32>(vocab_rows * VOCAB)?,
            ids_dev: stream.alloc_zeros::<u32>(MAX_BATCH)?,
            logits_dev: stream.alloc_zeros::<f32>(MAX_BATCH * VOCAB)?,
            logits_host: unsafe { ctx.alloc_pinned::<f32>(MAX_BATCH * VOCAB)? },
            head,
            stream,
        })
    }

    /// One decoding step: returns the argmax token of every sequence in the batch.
    pub fn step(&mut self, batch: &[u32]) -> Result<Vec<usize>, DriverError> {
        let b = batch.len().min(MAX_BATCH);
        let mut ids = [0u32; MAX_BATCH];
        ids[..b].copy_from_slice(&batch[..b]);
        self.stream.memcpy_htod(&ids, &mut self.ids_dev)?;

        let cfg = LaunchConfig { grid_dim: (1, b as u32, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
        let (b32, v32) = (b as u32, VOCAB as u32);
        let mut launch = self.stream.launch_builder(&self.head);
        launch.arg(&self.ids_dev).arg(&self.table).arg(&mut self.logits_dev).arg(&b32).arg(&v32);
        unsafe { launch.launch(cfg) }?;

        self.stream.memcpy_dtoh(&self.logits_dev, &mut self.logits_host)?;
        let probs = self.logits_host.as_slice()?; // EXPECT: missing_sync, write_combined_host_read
        Ok(probs
            .chunks(VOCAB)
            .take(b)
            .map(|row| {
                row.iter()
                    .enumerate()
                    .fold((0usize, f32::MIN), |best, (j, &p)| if p > best.1 { (j, p) } else { best })
                    .0
            })
            .collect())
    }
}
