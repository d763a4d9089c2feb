//! case: a decoder and a sampler share one physical allocation through two VMM views (each reserved and mapped separately); the decoder kernel writes logits through its view on one stream and the sampler kernel reads them through the other view on a second stream, with no event between the streams
//! expect: unfenced_vmm_alias=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};

const DECODE_SRC: &str = r#"
extern "C" __global__ void project_logits(const float* hidden, const float* w_out, float* logits, int dim, int vocab) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < vocab) {
        float acc = 0.f;
        for (int d = 0; d < dim; ++d) acc += hidden[d] * w_out[v * dim + d];
        logits[v] = acc;
    }
}
extern "C" __global__ void greedy_sample(const float* logits, int vocab, int* token) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        int best = 0;
        for (int v = 1; v < vocab; ++v) if (logits[v] > logits[best]) best = v;
        *token = best;
    }
}
"#;

pub struct SharedLogits {
    _physical: PhysicalAllocation,
    decoder_view: Mapping,
    sampler_view: Mapping,
}

impl SharedLogits {
    pub fn new(ctx: &Context, vocab: usize) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let bytes = (vocab * std::mem::size_of::<f32>()).div_ceil(gran) * gran;
        let physical = PhysicalAllocation::new(ctx, bytes)?;
        let decoder_view = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
        let sampler_view = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
        debug_assert!(decoder_view.aliases(&sampler_view));
        Ok(Self { _physical: physical, decoder_view, sampler_view })
    }
}

pub struct DecodeStep {
    decode_stream: Stream,
    sample_stream: Stream,
    project: Kernel,
    sample: Kernel,
}

impl DecodeStep {
    pub fn new(ctx: &Context) -> Result<Self> {
        let module = ctx.load_cuda(DECODE_SRC)?;
        Ok(Self {
            decode_stream: ctx.new_stream()?,
            sample_stream: ctx.new_stream()?,
            project: module.function("project_logits")?,
            sample: module.function("greedy_sample")?,
        })
    }

    pub fn run(&self, shared: &SharedLogits, hidden: &DeviceBuffer<f32>, w_out: &DeviceBuffer<f32>, token: &DeviceBuffer<i32>, vocab: i32) -> Result<()> {
        let dim = hidden.len() as i32;
        unsafe {
            self.decode_stream.launch(&self.project, LaunchConfig::for_num_elems(vocab as u32), &[hidden, w_out, &shared.decoder_view, &dim, &vocab])?;
            self.sample_stream.launch(&self.sample, LaunchConfig::for_num_elems(1), &[&shared.sampler_view, &vocab, token])?; // EXPECT: unfenced_vmm_alias
        }
        self.sample_stream.synchronize()?;
        self.decode_stream.synchronize()
    }
}
