//! case: disaggregated prefill/decode on two streams of one context: prefill writes the KV cache on its stream and records an event, the decode stream waits on it before its attention kernel, copies the logits into pinned memory and is synchronized before the host reads them (the prefill stream may still be busy with the next request's prompt, which never touches that pinned buffer)
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const PD_SRC: &str = r#"
extern "C" __global__ void prefill_kv(const float* prompt_h, float* kv, unsigned n_tok, unsigned dim) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n_tok * dim) kv[i] = prompt_h[i] * 0.5f;
}

extern "C" __global__ void decode_attend(const float* kv, const float* q, float* logits, unsigned n_tok, unsigned dim) {
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n_tok) return;
    float s = 0.0f;
    for (unsigned k = 0; k < dim; ++k) s += kv[(size_t)t * dim + k] * q[k];
    logits[t] = s;
}
"#;

pub struct Disaggregated {
    prefill: Stream,
    decode: Stream,
    kv_ready: Event,
    prefill_k: Kernel,
    decode_k: Kernel,
}

impl Disaggregated {
    pub fn new(ctx: &Context) -> Result<Self> {
        let m = ctx.load_cuda(PD_SRC)?;
        Ok(Disaggregated {
            prefill: ctx.new_stream()?,
            decode: ctx.new_stream()?,
            kv_ready: ctx.new_event()?,
            prefill_k: m.function("prefill_kv")?,
            decode_k: m.function("decode_attend")?,
        })
    }

    pub fn prefill(&self, prompt_h: &DeviceBuffer<f32>, kv: &DeviceBuffer<f32>, n_tok: u32, dim: u32) -> Result<()> {
        unsafe { self.prefill.launch(&self.prefill_k, LaunchConfig::for_num_elems(n_tok * dim), &[prompt_h, kv, &n_tok, &dim])? };
        self.prefill.record_event(&self.kv_ready)
    }

    /// Enqueues the decode of the request whose KV was last prefilled; `out` receives its logits.
    pub fn decode(&self, kv: &DeviceBuffer<f32>, q: &DeviceBuffer<f32>, logits: &DeviceBuffer<f32>, out: &mut PinnedBuffer<f32>, n_tok: u32, dim: u32) -> Result<()> {
        self.decode.wait_event(&self.kv_ready)?;
        unsafe {
            self.decode.launch(&self.decode_k, LaunchConfig::for_num_elems(n_tok), &[kv, q, logits, &n_tok, &dim])?;
            self.decode.copy_dtoh_async(out, logits)
        }
    }

    /// Waits for the decode stream and returns the best logit.
    pub fn collect(&self, out: &PinnedBuffer<f32>) -> Result<f32> {
        self.decode.synchronize()?;
        Ok(out.iter().copied().fold(f32::MIN, f32::max))
    }
}

pub fn serve_two(ctx: &Context, prompts: [&DeviceBuffer<f32>; 2], q: &DeviceBuffer<f32>, n_tok: u32, dim: u32) -> Result<[f32; 2]> {
    let pd = Disaggregated::new(ctx)?;
    let kv_a = ctx.alloc::<f32>((n_tok * dim) as usize)?;
    let kv_b = ctx.alloc::<f32>((n_tok * dim) as usize)?;
    let logits = ctx.alloc::<f32>(n_tok as usize)?;
    let mut out = ctx.alloc_pinned::<f32>(n_tok as usize)?;

    pd.prefill(prompts[0], &kv_a, n_tok, dim)?;
    pd.decode(&kv_a, q, &logits, &mut out, n_tok, dim)?;
    // request B's prefill overlaps request A's decode; the decode stream already waits on A's event
    pd.prefill(prompts[1], &kv_b, n_tok, dim)?;
    let best_a = pd.collect(&out)?;
    pd.decode(&kv_b, q, &logits, &mut out, n_tok, dim)?;
    let best_b = pd.collect(&out)?;
    ctx.synchronize()?;
    Ok([best_a, best_b])
}
