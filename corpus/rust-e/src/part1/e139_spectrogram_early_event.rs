//! case: streaming spectrogram service records its "frame ready" event right after the magnitude kernel but enqueues the device-to-host copy of the spectrogram after the record, so waiting on the event does not cover the copy and the host reads the pinned spectrogram too early
//! expect: missing_sync=1

use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const STFT_SRC: &str = r#"
extern "C" __global__ void dft_magnitude(const float* audio, int hop, int win, int bins, float* mag_db) {
    int frame = blockIdx.y, k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= bins) return;
    float re = 0.0f, im = 0.0f;
    for (int n = 0; n < win; ++n) {
        float w = 0.5f - 0.5f * __cosf(6.2831853f * n / (win - 1));
        float s = audio[frame * hop + n] * w, ph = -6.2831853f * k * n / win;
        re += s * __cosf(ph); im += s * __sinf(ph);
    }
    mag_db[frame * bins + k] = 10.0f * log10f(re * re + im * im + 1e-12f);
}
"#;

pub struct SpectrogramService {
    stream: Stream,
    kernel: Kernel,
    audio_host: PinnedBuffer<f32>,
    audio_dev: DeviceBuffer<f32>,
    mag_dev: DeviceBuffer<f32>,
    mag_host: PinnedBuffer<f32>,
    ready: Event,
    hop: usize,
    win: usize,
    frames: usize,
}

impl SpectrogramService {
    pub fn new(ctx: &Context, block_samples: usize, hop: usize, win: usize) -> Result<Self> {
        let frames = (block_samples - win) / hop + 1;
        let bins = win / 2 + 1;
        Ok(SpectrogramService {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(STFT_SRC)?.function("dft_magnitude")?,
            audio_host: ctx.alloc_pinned(block_samples)?,
            audio_dev: ctx.alloc(block_samples)?,
            mag_dev: ctx.alloc(frames * bins)?,
            mag_host: ctx.alloc_pinned(frames * bins)?,
            ready: ctx.new_event()?,
            hop,
            win,
            frames,
        })
    }

    fn enqueue(&mut self, block: &[f32]) -> Result<()> {
        self.audio_host.copy_from_slice(block);
        let bins = (self.win / 2 + 1) as i32;
        let (hop, win) = (self.hop as i32, self.win as i32);
        let cfg = LaunchConfig { grid: ((bins as u32).div_ceil(128), self.frames as u32, 1), block: (128, 1, 1), shared_mem_bytes: 0 };
        unsafe {
            self.stream.copy_htod_async(&mut self.audio_dev, &self.audio_host)?;
            self.stream.launch(&self.kernel, cfg, &[&self.audio_dev, &hop, &win, &bins, &self.mag_dev])?;
        }
        self.stream.record_event(&self.ready)?;
        unsafe { self.stream.copy_dtoh_async(&mut self.mag_host, &self.mag_dev)? };
        Ok(())
    }

    /// Returns the loudest bin of each frame of the block.
    pub fn process(&mut self, block: &[f32]) -> Result<Vec<usize>> {
        self.enqueue(block)?;
        self.ready.synchronize()?;
        let bins = self.win / 2 + 1;
        let loudest = |frame: &[f32]| frame.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).map_or(0, |(k, _)| k);
        let peaks = self.mag_host.chunks_exact(bins).map(loudest).collect(); // EXPECT: missing_sync
        Ok(peaks)
    }
}
