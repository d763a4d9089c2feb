//! case: STFT magnitude spectrogram on cudarc's default stream; windows go up through pinned memory and the magnitudes come back into pinned memory allocated without the write-combined flag, read only after `drain`, a helper that synchronizes the stream (near-miss: the sync is in another function)
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const DFT_SRC: &str = r#"
extern "C" __global__ void frame_dft_mag(const float* frames, float* mag, unsigned frame_len, unsigned n_frames) {
    unsigned f = blockIdx.y;
    unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned bins = frame_len / 2 + 1;
    if (f >= n_frames || k >= bins) return;
    float re = 0.f, im = 0.f;
    for (unsigned t = 0; t < frame_len; ++t) {
        float w = 0.5f - 0.5f * __cosf(6.2831853f * t / (frame_len - 1));
        float x = frames[f * frame_len + t] * w;
        float s, c;
        __sincosf(-6.2831853f * k * t / frame_len, &s, &c);
        re += x * c; im += x * s;
    }
    mag[f * bins + k] = sqrtf(re * re + im * im);
}
"#;

fn drain(stream: &CudaStream) -> Result<(), DriverError> {
    // Every readback in this module is followed by this before the host looks at it.
    stream.synchronize()
}

pub struct Spectrogram {
    pub bins: usize,
    pub frames: usize,
    pub data: Vec<f32>,
}

pub struct StftEngine {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    frame_len: usize,
    host_frames: PinnedHostSlice<f32>,
    host_mag: PinnedHostSlice<f32>,
    dev_frames: CudaSlice<f32>,
    dev_mag: CudaSlice<f32>,
}

impl StftEngine {
    pub fn new(ctx: &Arc<CudaContext>, frame_len: usize, max_frames: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.default_stream();
        let kernel = ctx.load_module(compile_ptx(DFT_SRC)?)?.load_function("frame_dft_mag")?;
        let bins = frame_len / 2 + 1;
        Ok(Self {
            kernel,
            frame_len,
            host_frames: unsafe { ctx.alloc_pinned_with_flags::<f32>(frame_len * max_frames, 0)? },
            host_mag: unsafe { ctx.alloc_pinned_with_flags::<f32>(bins * max_frames, 0)? },
            dev_frames: stream.alloc_zeros::<f32>(frame_len * max_frames)?,
            dev_mag: stream.alloc_zeros::<f32>(bins * max_frames)?,
            stream,
        })
    }

    pub fn analyze(&mut self, pcm: &[f32], hop: usize) -> Result<Spectrogram, DriverError> {
        let n_frames = ((pcm.len().saturating_sub(self.frame_len)) / hop + 1).min(self.dev_frames.len() / self.frame_len);
        {
            let frames = self.host_frames.as_mut_slice()?;
            for (f, dst) in frames.chunks_exact_mut(self.frame_len).take(n_frames).enumerate() {
                dst.copy_from_slice(&pcm[f * hop..f * hop + self.frame_len]);
            }
        }
        self.stream.memcpy_htod(&self.host_frames, &mut self.dev_frames)?;
        let bins = self.frame_len / 2 + 1;
        let cfg = LaunchConfig { grid_dim: ((bins as u32).div_ceil(64), n_frames as u32, 1), block_dim: (64, 1, 1), shared_mem_bytes: 0 };
        let (fl, nf) = (self.frame_len as u32, n_frames as u32);
        unsafe {
            self.stream.launch_builder(&self.kernel).arg(&self.dev_frames).arg(&mut self.dev_mag).arg(&fl).arg(&nf).launch(cfg)?;
        }
        self.stream.memcpy_dtoh(&self.dev_mag, &mut self.host_mag)?;
        drain(&self.stream)?;
        let data = self.host_mag.as_slice()?[..bins * n_frames].to_vec();
        Ok(Spectrogram { bins, frames: n_frames, data })
    }
}
