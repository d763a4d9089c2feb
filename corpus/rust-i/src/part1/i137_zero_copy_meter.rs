//! case: zero-copy audio peak meter on the runtime layer: a PinnedBuffer allocated device_mapped (not write-combined) is written by a kernel through mapped_device_ptr and read by the host through Deref after the stream is synchronized — host memory, not a device allocation (near-miss for host_deref_device_ptr and write_combined_host_read)
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, PinnedFlags, Result, Stream};

const PEAK_SRC: &str = r#"
extern "C" __global__ void channel_peaks(const float* interleaved, float* peaks, unsigned frames, unsigned channels) {
    unsigned c = blockIdx.x;
    if (c >= channels) return;
    float m = 0.f;
    for (unsigned f = threadIdx.x; f < frames; f += blockDim.x) m = fmaxf(m, fabsf(interleaved[f * channels + c]));
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_down_sync(0xffffffff, m, o));
    if (threadIdx.x == 0) peaks[c] = m;
}
"#;

pub struct PeakMeter {
    stream: Stream,
    kernel: Kernel,
    peaks: PinnedBuffer<f32>,
    channels: u32,
}

impl PeakMeter {
    pub fn new(ctx: &Context, channels: u32) -> Result<Self> {
        let flags = PinnedFlags { device_mapped: true, ..PinnedFlags::default() };
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(PEAK_SRC)?.function("channel_peaks")?,
            peaks: ctx.alloc_pinned_with_flags(channels as usize, flags)?,
            channels,
        })
    }

    /// Peak level of each channel in dBFS.
    pub fn measure(&mut self, audio: &DeviceBuffer<f32>) -> Result<Vec<f32>> {
        let frames = (audio.len() / self.channels as usize) as u32;
        let peaks_dev = self.peaks.mapped_device_ptr()?;
        let cfg = LaunchConfig { grid: (self.channels, 1, 1), block: (32, 1, 1), shared_mem_bytes: 0 };
        unsafe { self.stream.launch(&self.kernel, cfg, &[audio, &peaks_dev, &frames, &self.channels])? };
        self.stream.synchronize()?;
        let host_ptr = self.peaks.as_ptr();
        let peaks = unsafe { std::slice::from_raw_parts(host_ptr, self.channels as usize) };
        Ok(peaks.iter().map(|&p| 20.0 * p.max(1e-9).log10()).collect())
    }
}
