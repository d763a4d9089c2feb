//! The effect stages: each enqueues its work on the chain's stream and returns at once.

use cuda_lint_runtime::{DeviceBuffer, Kernel, LaunchConfig, Result, Stream};

pub const FX_SRC: &str = r#"
extern "C" __global__ void apply_gain(float* x, unsigned n, float gain) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= gain;
}

// Direct-form-I biquad per channel (one thread per channel, sequential over frames).
extern "C" __global__ void biquad(const float* in, float* out, unsigned frames, unsigned channels,
                                  float b0, float b1, float b2, float a1, float a2, float* state) {
    unsigned ch = blockIdx.x * blockDim.x + threadIdx.x;
    if (ch >= channels) return;
    float x1 = state[4*ch], x2 = state[4*ch+1], y1 = state[4*ch+2], y2 = state[4*ch+3];
    for (unsigned f = 0; f < frames; ++f) {
        float x0 = in[f * channels + ch];
        float y0 = b0 * x0 + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2;
        out[f * channels + ch] = y0;
        x2 = x1; x1 = x0; y2 = y1; y1 = y0;
    }
    state[4*ch] = x1; state[4*ch+1] = x2; state[4*ch+2] = y1; state[4*ch+3] = y2;
}

extern "C" __global__ void soft_limit(float* x, unsigned n, float ceiling) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = ceiling * tanhf(x[i] / ceiling);
}
"#;

/// Device buffers an effect works on: `main` in, `main` out (scratch for out-of-place stages).
pub struct Buffers {
    pub main: DeviceBuffer<f32>,
    pub scratch: DeviceBuffer<f32>,
    pub frames: u32,
    pub channels: u32,
}

pub trait Effect {
    fn name(&self) -> &str;
    fn enqueue(&mut self, stream: &Stream, bufs: &mut Buffers) -> Result<()>;
}

pub struct Gain {
    pub kernel: Kernel,
    pub gain: f32,
}

impl Effect for Gain {
    fn name(&self) -> &str {
        "gain"
    }
    fn enqueue(&mut self, stream: &Stream, bufs: &mut Buffers) -> Result<()> {
        let n = bufs.frames * bufs.channels;
        unsafe { stream.launch(&self.kernel, LaunchConfig::for_num_elems(n), &[&bufs.main, &n, &self.gain]) }
    }
}

pub struct Biquad {
    pub kernel: Kernel,
    pub coeffs: [f32; 5],
    pub state: DeviceBuffer<f32>,
}

impl Effect for Biquad {
    fn name(&self) -> &str {
        "biquad"
    }
    fn enqueue(&mut self, stream: &Stream, bufs: &mut Buffers) -> Result<()> {
        let [b0, b1, b2, a1, a2] = self.coeffs;
        unsafe {
            stream.launch(
                &self.kernel,
                LaunchConfig::for_num_elems(bufs.channels),
                &[&bufs.main, &bufs.scratch, &bufs.frames, &bufs.channels, &b0, &b1, &b2, &a1, &a2, &self.state],
            )?;
        }
        // The filtered signal becomes the main buffer.
        std::mem::swap(&mut bufs.main, &mut bufs.scratch);
        Ok(())
    }
}

pub struct Limiter {
    pub kernel: Kernel,
    pub ceiling: f32,
}

impl Effect for Limiter {
    fn name(&self) -> &str {
        "limiter"
    }
    fn enqueue(&mut self, stream: &Stream, bufs: &mut Buffers) -> Result<()> {
        let n = bufs.frames * bufs.channels;
        unsafe { stream.launch(&self.kernel, LaunchConfig::for_num_elems(n), &[&bufs.main, &n, &self.ceiling]) }
    }
}
