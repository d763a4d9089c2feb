use super::queue::{flatten_tokens, InferenceRequest, InferenceResponse};
use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const SEQ_LEN: usize = 512;

const SCORE_SRC: &str = r#"
extern "C" __global__ void score_last_token(const unsigned* tokens, const float* table,
                                            float* logits, unsigned seq_len, unsigned vocab,
                                            unsigned batch) {
    unsigned row = blockIdx.y;
    unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= batch || v >= vocab) return;
    unsigned last = tokens[row * seq_len + seq_len - 1];
    logits[row * vocab + v] = table[(last % 4096) * vocab + v];
}
"#;

pub struct BatchWorker {
    ctx: Context,
    stream: Stream,
    kernel: Kernel,
    table: DeviceBuffer<f32>,
    d_tokens: DeviceBuffer<u32>,
    d_logits: DeviceBuffer<f32>,
    logits_host: PinnedBuffer<f32>,
    max_batch: usize,
    vocab: usize,
}

impl BatchWorker {
    pub fn new(ctx: &Context, max_batch: usize, vocab: usize) -> Result<Self> {
        let module = ctx.load_cuda(SCORE_SRC)?;
        let kernel = module.function("score_last_token")?;
        Ok(BatchWorker {
            ctx: ctx.clone(),
            stream: ctx.new_stream()?,
            kernel,
            table: ctx.alloc_zeroed::<f32>(4096 * vocab)?,
            d_tokens: ctx.alloc::<u32>(max_batch * SEQ_LEN)?,
            d_logits: ctx.alloc::<f32>(max_batch * vocab)?,
            logits_host: ctx.alloc_pinned::<f32>(max_batch * vocab)?,
            max_batch,
            vocab,
        })
    }

    pub fn run_batch(&mut self, batch: Vec<InferenceRequest>) -> Result<()> {
        if batch.is_empty() {
            return Ok(());
        }
        let mut tokens = flatten_tokens(&batch, SEQ_LEN);
        tokens.resize(self.max_batch * SEQ_LEN, 0);
        unsafe { self.stream.copy_htod_async(&mut self.d_tokens, &tokens)? }; // EXPECT: pageable_async_copy

        let vocab = self.vocab as u32;
        let rows = batch.len() as u32;
        let seq = SEQ_LEN as u32;
        let cfg = LaunchConfig { grid: (vocab.div_ceil(256), rows, 1), block: (256, 1, 1), shared_mem_bytes: 0 };
        unsafe {
            self.stream.launch(&self.kernel, cfg, &[&self.d_tokens, &self.table, &self.d_logits, &seq, &vocab, &rows])?;
        }
        // SAFETY: sizes match (max_batch * vocab on both sides).
        unsafe { self.stream.copy_dtoh_async(&mut self.logits_host, &self.d_logits)? };

        // Answer every client with its arg-max token.
        for (row, req) in batch.iter().enumerate() {
            let logits = &self.logits_host[row * self.vocab..(row + 1) * self.vocab]; // EXPECT: missing_sync
            let (top, score) = logits
                .iter()
                .enumerate()
                .fold((0usize, f32::MIN), |best, (i, &s)| if s > best.1 { (i, s) } else { best });
            let _ = req.reply.send(InferenceResponse { id: req.id, top_token: top as u32, score });
        }
        // The batch is "finished" only here, after the replies went out.
        self.stream.synchronize()
    }
}
