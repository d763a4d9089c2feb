//! case: convolution reverb on the runtime layer; the wet signal is copied back into a PinnedBuffer allocated with PinnedFlags { write_combined: true, .. } and, after synchronizing, the host mixes it sample by sample into the dry output
//! expect: write_combined_host_read=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, PinnedFlags, Result, Stream};

const REVERB_SRC: &str = r#"
extern "C" __global__ void convolve_ir(const float* dry, const float* ir, float* wet, unsigned n, unsigned ir_len) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.f;
    for (unsigned j = 0; j < ir_len && j <= i; ++j) acc += dry[i - j] * ir[j];
    wet[i] = acc;
}
"#;

pub struct ReverbSettings {
    pub wet: f32,
    pub dry: f32,
}

pub struct ConvolutionReverb {
    stream: Stream,
    kernel: Kernel,
    ir: DeviceBuffer<f32>,
    dry_host: PinnedBuffer<f32>,
    wet_host: PinnedBuffer<f32>,
}

impl ConvolutionReverb {
    pub fn new(ctx: &Context, impulse: &PinnedBuffer<f32>, block: usize) -> Result<Self> {
        let stream = ctx.new_stream()?;
        let mut ir = ctx.alloc::<f32>(impulse.len())?;
        unsafe { stream.copy_htod_async(&mut ir, impulse)? };
        stream.synchronize()?;
        let wc = PinnedFlags { write_combined: true, ..PinnedFlags::default() };
        Ok(Self {
            kernel: ctx.load_cuda(REVERB_SRC)?.function("convolve_ir")?,
            ir,
            // Both staging buffers were made write-combined "for faster transfers".
            dry_host: ctx.alloc_pinned_with_flags(block, wc)?,
            wet_host: ctx.alloc_pinned_with_flags(block, wc)?,
            stream,
        })
    }

    pub fn process(&mut self, ctx: &Context, input: &[f32], output: &mut [f32], s: &ReverbSettings) -> Result<()> {
        let n = input.len();
        self.dry_host[..n].copy_from_slice(input);
        let mut d_dry = ctx.alloc::<f32>(self.dry_host.len())?;
        let d_wet = ctx.alloc_zeroed::<f32>(self.wet_host.len())?;
        unsafe { self.stream.copy_htod_async(&mut d_dry, &self.dry_host)? };
        let (nn, irl) = (n as u32, self.ir.len() as u32);
        unsafe { self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(nn), &[&d_dry, &self.ir, &d_wet, &nn, &irl])? };
        unsafe { self.stream.copy_dtoh_async(&mut self.wet_host, &d_wet)? };
        self.stream.synchronize()?;
        for ((o, &x), &w) in output.iter_mut().zip(input).zip(self.wet_host.iter()) { // EXPECT: write_combined_host_read
            *o = s.dry * x + s.wet * w;
        }
        Ok(())
    }
}
