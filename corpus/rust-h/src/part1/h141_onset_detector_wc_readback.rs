//! case: musical onset detector (cuda-lint-runtime) whose spectral-flux readback buffer is allocated with `PinnedFlags { write_combined: true }` from a constant; after `stream.synchronize()` the host scans it for peaks: reads of write-combined memory are uncached
//! expect: write_combined_host_read=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, PinnedFlags, Result, Stream};

const FLUX_SRC: &str = r#"
extern "C" __global__ void spectral_flux(const float* mags, float* flux, int frames, int bins) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t == 0) flux[0] = 0.f;
    if (t <= 0 || t >= frames) return;
    float acc = 0.f;
    for (int k = 0; k < bins; ++k) acc += fmaxf(mags[t * bins + k] - mags[(t - 1) * bins + k], 0.f);
    flux[t] = acc;
}
"#;

/// Staging flags chosen once for all transfer buffers of the detector.
const TRANSFER_FLAGS: PinnedFlags = PinnedFlags { portable: false, device_mapped: false, write_combined: true };

pub struct OnsetDetector {
    stream: Stream,
    kernel: Kernel,
    flux_host: PinnedBuffer<f32>,
    flux_dev: DeviceBuffer<f32>,
    frames: usize,
    hop_seconds: f32,
}

impl OnsetDetector {
    pub fn new(ctx: &Context, frames: usize, hop_seconds: f32) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(FLUX_SRC)?.function("spectral_flux")?,
            flux_host: ctx.alloc_pinned_with_flags(frames, TRANSFER_FLAGS)?,
            flux_dev: ctx.alloc_zeroed(frames)?,
            frames,
            hop_seconds,
        })
    }

    /// `mags` is the magnitude spectrogram already on the device, frames x bins.
    pub fn onsets(&mut self, mags: &DeviceBuffer<f32>, bins: usize, threshold: f32) -> Result<Vec<f32>> {
        let (frames, bins_i) = (self.frames as i32, bins as i32);
        unsafe {
            self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(self.frames as u32), &[mags, &mut self.flux_dev, &frames, &bins_i])?;
            self.stream.copy_dtoh_async(&mut self.flux_host, &self.flux_dev)?;
        }
        self.stream.synchronize()?;

        let is_peak = |w: &[f32]| w[1] > threshold && w[1] >= w[0] && w[1] > w[2];
        let hop = self.hop_seconds;
        let onsets = self.flux_host.windows(3).enumerate().filter(|(_, w)| is_peak(w)).map(|(t, _)| (t + 1) as f32 * hop).collect(); // EXPECT: write_combined_host_read
        Ok(onsets)
    }
}
