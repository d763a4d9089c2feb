//! case: GPU audio encoder streams PCM blocks through one pinned staging buffer: each loop turn refills the staging buffer and queues its async upload plus the MDCT kernel, but the stream is only synchronized after the loop, so the refill races the previous turn's upload
//! expect: missing_sync=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const MDCT_SRC: &str = r#"
extern "C" __global__ void mdct_block(const float* pcm, float* coeffs, int block, int frame) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    int half = block / 2;
    if (k >= half) return;
    float acc = 0.0f;
    for (int n = 0; n < block; ++n) {
        float w = sinf(3.14159265f * (n + 0.5f) / block);
        acc += w * pcm[n] * cosf(3.14159265f / half * (n + 0.5f + half / 2.0f) * (k + 0.5f));
    }
    coeffs[frame * half + k] = acc;
}
"#;

pub struct Encoder {
    stream: Stream,
    mdct: Kernel,
    staging: PinnedBuffer<f32>,
    d_pcm: DeviceBuffer<f32>,
    d_coeffs: DeviceBuffer<f32>,
    block: usize,
}

impl Encoder {
    pub fn new(ctx: &Context, block: usize, max_frames: usize) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            mdct: ctx.load_cuda(MDCT_SRC)?.function("mdct_block")?,
            staging: ctx.alloc_pinned(block)?,
            d_pcm: ctx.alloc(block)?,
            d_coeffs: ctx.alloc_zeroed(max_frames * block / 2)?,
            block,
        })
    }

    /// Encodes `pcm` in blocks with 50% overlap; returns the number of frames queued.
    pub fn encode(&mut self, pcm: &[f32]) -> Result<usize> {
        let hop = self.block / 2;
        let mut frames = 0usize;
        for (frame, start) in (0..pcm.len().saturating_sub(self.block)).step_by(hop).enumerate() {
            self.staging.copy_from_slice(&pcm[start..start + self.block]); // EXPECT: missing_sync
            let (b, f) = (self.block as i32, frame as i32);
            unsafe {
                self.stream.copy_htod_async(&mut self.d_pcm, &self.staging)?;
                self.stream.launch(&self.mdct, LaunchConfig::for_num_elems(hop as u32), &[&self.d_pcm, &self.d_coeffs, &b, &f])?;
            }
            frames += 1;
        }
        self.stream.synchronize()?;
        Ok(frames)
    }
}
