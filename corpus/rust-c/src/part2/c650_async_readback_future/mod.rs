//! case: an `async fn` readback enqueues a kernel and a download into pinned memory, then awaits a future (in a sibling module) that polls the stream with `query` and only resolves when the stream is idle, before reading the buffer
//! expect: none

mod ready;

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

pub use ready::block_on;
use ready::StreamIdle;

const CLAMP_SRC: &str = r#"
extern "C" __global__ void clamp_quantize(const float* x, unsigned char* q, unsigned n, float lo, float hi) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = fminf(fmaxf(x[i], lo), hi);
    q[i] = (unsigned char)(255.0f * (v - lo) / (hi - lo) + 0.5f);
}
"#;

pub struct Quantizer {
    stream: Stream,
    kernel: Kernel,
    q_dev: DeviceBuffer<u8>,
    q_host: PinnedBuffer<u8>,
}

impl Quantizer {
    pub fn new(ctx: &Context, n: usize) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(CLAMP_SRC)?.function("clamp_quantize")?,
            q_dev: ctx.alloc(n)?,
            q_host: ctx.alloc_pinned(n)?,
        })
    }

    pub async fn quantize(&mut self, x: &DeviceBuffer<f32>, lo: f32, hi: f32) -> Result<Vec<u8>> {
        let n = x.len() as u32;
        unsafe {
            self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(n), &[x, &self.q_dev, &n, &lo, &hi])?;
            self.stream.copy_dtoh_async(&mut self.q_host, &self.q_dev)?;
        }
        StreamIdle::new(&self.stream).await?;
        Ok(self.q_host.to_vec())
    }
}

pub fn quantize_blocking(ctx: &Context, x: &DeviceBuffer<f32>) -> Result<Vec<u8>> {
    let mut q = Quantizer::new(ctx, x.len())?;
    block_on(q.quantize(x, -1.0, 1.0))
}
