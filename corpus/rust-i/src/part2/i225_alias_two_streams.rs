//! case: speculative-decoding server (runtime crate VMM): a session maps one physical KV block twice, the draft stream writes through one mapping and the verify stream reads through the other, with no event between the two streams
//! expect: unfenced_vmm_alias=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PhysicalAllocation, Result, Stream, VirtualRange};

const SPEC_SRC: &str = r#"
extern "C" __global__ void draft_write(float* kv, unsigned n, float step) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) kv[i] = kv[i] * 0.5f + step;
}
extern "C" __global__ void verify_read(const float* kv, unsigned n, float* accept) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) accept[i] = kv[i] > 0.5f ? 1.0f : 0.0f;
}
"#;

pub struct SpeculativeDecoder {
    draft: Stream,
    verify: Stream,
    draft_write: Kernel,
    verify_read: Kernel,
}

#[derive(Debug, Default)]
pub struct SessionReport {
    pub rounds: u32,
}

impl SpeculativeDecoder {
    pub fn new(ctx: &Context) -> Result<Self> {
        let module = ctx.load_cuda(SPEC_SRC)?;
        Ok(SpeculativeDecoder {
            draft: ctx.new_stream()?,
            verify: ctx.new_stream()?,
            draft_write: module.function("draft_write")?,
            verify_read: module.function("verify_read")?,
        })
    }

    /// One decoding session: the draft model and the verifier share a KV block, each through
    /// its own view so that their address spaces can be managed separately.
    pub fn run_session(&self, ctx: &Context, kv_bytes: usize, rounds: u32, accept: &mut DeviceBuffer<f32>) -> Result<SessionReport> {
        let gran = ctx.vmm_granularity()?;
        let size = kv_bytes.div_ceil(gran) * gran;
        let physical = PhysicalAllocation::new(ctx, size)?;
        let mut draft_view = VirtualRange::reserve(ctx, size)?.map(&physical, 0)?;
        let verify_view = VirtualRange::reserve(ctx, size)?.map(&physical, 0)?;
        self.draft.memset_d32(&mut draft_view, 0)?;

        let n = (size / 4).min(accept.len()) as u32;
        let cfg = LaunchConfig::for_num_elems(n);
        let mut report = SessionReport::default();
        for round in 0..rounds {
            let step = 1.0 / (round + 1) as f32;
            unsafe {
                self.draft.launch(&self.draft_write, cfg, &[&draft_view, &n, &step])?;
                self.verify.launch(&self.verify_read, cfg, &[&verify_view, &n, &*accept])?; // EXPECT: unfenced_vmm_alias
            }
            self.verify.synchronize()?;
            report.rounds += 1;
        }
        self.draft.synchronize()?;
        Ok(report)
    }
}
