//! case: polyphase audio resampler that page-locks the caller's input and output `Vec`s in place with `register_host` (cuMemHostRegister) before the async copies, and reads the output only after `stream.synchronize()`; the registrations are dropped (unregistered) after that
//! expect: none

use std::sync::OnceLock;

use cuda_lint_runtime::{Context, Kernel, LaunchConfig, Result, Stream};

const RESAMPLE_SRC: &str = r#"
extern "C" __global__ void resample_linear(const float* in, float* out, int n_in, int n_out, double ratio) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_out) return;
    double pos = i / ratio;
    int j = (int)pos;
    float frac = (float)(pos - j);
    float a = in[min(j, n_in - 1)], b = in[min(j + 1, n_in - 1)];
    out[i] = a + frac * (b - a);
}
"#;

struct Gpu {
    ctx: Context,
    kernel: Kernel,
}

static GPU: OnceLock<Gpu> = OnceLock::new();

fn gpu() -> Result<&'static Gpu> {
    if let Some(g) = GPU.get() {
        return Ok(g);
    }
    let ctx = Context::new(0)?;
    let kernel = ctx.load_cuda(RESAMPLE_SRC)?.function("resample_linear")?;
    Ok(GPU.get_or_init(|| Gpu { ctx, kernel }))
}

pub struct Resampler {
    stream: Stream,
    from_hz: u32,
    to_hz: u32,
}

impl Resampler {
    pub fn new(from_hz: u32, to_hz: u32) -> Result<Self> {
        Ok(Self { stream: gpu()?.ctx.new_stream()?, from_hz, to_hz })
    }

    pub fn process(&self, mut input: Vec<f32>) -> Result<Vec<f32>> {
        let g = gpu()?;
        let ratio = self.to_hz as f64 / self.from_hz as f64;
        let n_out = (input.len() as f64 * ratio).floor() as usize;
        let mut output = vec![0f32; n_out];
        {
            let pinned_in = g.ctx.register_host(&mut input)?;
            let mut pinned_out = g.ctx.register_host(&mut output)?;
            let mut d_in = g.ctx.alloc::<f32>(pinned_in.len())?;
            let mut d_out = g.ctx.alloc::<f32>(n_out)?;
            let (ni, no) = (pinned_in.len() as i32, n_out as i32);
            unsafe {
                self.stream.copy_htod_async(&mut d_in, &pinned_in)?;
                self.stream.launch(&g.kernel, LaunchConfig::for_num_elems(n_out as u32), &[&d_in, &mut d_out, &ni, &no, &ratio])?;
                self.stream.copy_dtoh_async(&mut pinned_out, &d_out)?;
            }
            self.stream.synchronize()?;
            let peak = pinned_out.iter().fold(0f32, |m, s| m.max(s.abs()));
            if peak > 1.0 {
                pinned_out.iter_mut().for_each(|s| *s /= peak);
            }
        }
        Ok(output)
    }
}
