//! case: an anomaly detector writes per-window flags into a runtime-layer `ManagedBuffer`; the host reads the flags only after `drain`, a small helper that synchronizes the detector's only stream, so no kernel is running and the kernel's writes are complete
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, ManagedBuffer, Result, Stream};

const DETECT_SRC: &str = r#"
extern "C" __global__ void zscore_flags(const float* samples, unsigned int window, unsigned int n_windows,
                                        float threshold, unsigned int* flags) {
    unsigned int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= n_windows) return;
    const float* s = samples + (size_t)w * window;
    float mean = 0.0f, sq = 0.0f;
    for (unsigned int i = 0; i < window; ++i) { mean += s[i]; sq += s[i] * s[i]; }
    mean /= window;
    float sd = sqrtf(fmaxf(sq / window - mean * mean, 1e-12f));
    unsigned int hit = 0;
    for (unsigned int i = 0; i < window; ++i) hit |= fabsf(s[i] - mean) > threshold * sd;
    flags[w] = hit;
}
"#;

pub struct Detector {
    stream: Stream,
    kernel: Kernel,
    flags: ManagedBuffer<u32>,
    window: u32,
}

impl Detector {
    pub fn new(ctx: &Context, n_windows: usize, window: u32) -> Result<Detector> {
        Ok(Detector {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(DETECT_SRC)?.function("zscore_flags")?,
            flags: ctx.alloc_managed::<u32>(n_windows)?,
            window,
        })
    }

    fn drain(&self) -> Result<()> {
        self.stream.synchronize()
    }

    pub fn scan(&mut self, samples: &DeviceBuffer<f32>, threshold: f32) -> Result<Vec<usize>> {
        let n_windows = (samples.len() as u32 / self.window).min(self.flags.num_elems() as u32);
        let cfg = LaunchConfig::for_num_elems(n_windows);
        unsafe {
            self.stream.launch(&self.kernel, cfg, &[samples, &self.window, &n_windows, &threshold, &self.flags])?;
        }
        self.drain()?;
        Ok(self
            .flags
            .iter()
            .take(n_windows as usize)
            .enumerate()
            .filter_map(|(w, &f)| (f != 0).then_some(w))
            .collect())
    }
}
