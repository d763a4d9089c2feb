//! case: lidar intensity calibration uploads its gain table through a write-combined pinned buffer (runtime layer, `write_combined: true`) that the host only writes, and reads the per-ring histogram back into a portable, non-write-combined pinned buffer after synchronizing
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, PinnedFlags, Result, Stream};

const INTENSITY_SRC: &str = r#"
extern "C" __global__ void ring_hist(const unsigned short* raw, const unsigned char* ring, const float* gain,
                                     unsigned int* hist, int n, int bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int r = ring[i];
    float v = raw[i] * gain[r];
    int b = min((int)(v * bins / 65536.0f), bins - 1);
    atomicAdd(&hist[r * bins + b], 1u);
}
"#;

pub const RINGS: usize = 128;
pub const BINS: usize = 64;

pub struct IntensityCalibrator {
    stream: Stream,
    kernel: Kernel,
    gain_upload: PinnedBuffer<f32>,
    hist_readback: PinnedBuffer<u32>,
    gain: DeviceBuffer<f32>,
    hist: DeviceBuffer<u32>,
}

impl IntensityCalibrator {
    pub fn new(ctx: &Context) -> Result<Self> {
        let wc = PinnedFlags { write_combined: true, ..PinnedFlags::default() };
        let portable = PinnedFlags { portable: true, ..PinnedFlags::default() };
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(INTENSITY_SRC)?.function("ring_hist")?,
            gain_upload: ctx.alloc_pinned_with_flags(RINGS, wc)?,
            hist_readback: ctx.alloc_pinned_with_flags(RINGS * BINS, portable)?,
            gain: ctx.alloc(RINGS)?,
            hist: ctx.alloc(RINGS * BINS)?,
        })
    }

    /// Returns, per ring, the median intensity bin for the given gains.
    pub fn medians(&mut self, gains: &[f32; RINGS], raw: &DeviceBuffer<u16>, ring: &DeviceBuffer<u8>) -> Result<Vec<usize>> {
        self.gain_upload.copy_from_slice(gains);
        self.stream.memset_d32_async(&mut self.hist, 0)?;
        let (n, bins) = (raw.len() as i32, BINS as i32);
        unsafe {
            self.stream.copy_htod_async(&mut self.gain, &self.gain_upload)?;
            self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(raw.len() as u32), &[raw, ring, &self.gain, &self.hist, &n, &bins])?;
            self.stream.copy_dtoh_async(&mut self.hist_readback, &self.hist)?;
        }
        self.stream.synchronize()?;
        Ok(self
            .hist_readback
            .chunks(BINS)
            .map(|h| {
                let total: u32 = h.iter().sum();
                let mut acc = 0;
                h.iter().position(|&c| {
                    acc += c;
                    2 * acc >= total
                })
                .unwrap_or(0)
            })
            .collect())
    }
}
