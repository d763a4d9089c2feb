//! case: streaming STFT on the default stream alone: every hop block is written into one staging buffer (cudarc `alloc_pinned`, only written by the host) and copied up, with no synchronization inside the loop; from the second block on, the host overwrites the staging buffer while the previous block's host-to-device copy may still be reading it (single stream: cudarc records no event, so `as_mut_slice` waits for nothing)
//! expect: missing_sync=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const FRAME_SRC: &str = r#"
// Windowed DFT magnitude of one frame, one thread per output bin (small frames).
extern "C" __global__ void frame_magnitudes(const float* frame, float* spec, int frame_len, int bins, int column) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= bins) return;
    float re = 0.f, im = 0.f;
    for (int n = 0; n < frame_len; ++n) {
        float w = 0.5f - 0.5f * __cosf(6.2831853f * n / (frame_len - 1));
        float s, c;
        __sincosf(-6.2831853f * k * n / frame_len, &s, &c);
        re += w * frame[n] * c; im += w * frame[n] * s;
    }
    spec[column * bins + k] = sqrtf(re * re + im * im);
}
"#;

pub struct Spectrogram {
    pub bins: usize,
    pub columns: usize,
    pub magnitudes: Vec<f32>,
}

pub struct StftEngine {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    staging: PinnedHostSlice<f32>,
    d_frame: CudaSlice<f32>,
    frame_len: usize,
    hop: usize,
}

impl StftEngine {
    pub fn new(ctx: &Arc<CudaContext>, frame_len: usize, hop: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.default_stream();
        Ok(Self {
            kernel: ctx.load_module(compile_ptx(FRAME_SRC)?)?.load_function("frame_magnitudes")?,
            staging: unsafe { ctx.alloc_pinned::<f32>(frame_len)? },
            d_frame: stream.alloc_zeros::<f32>(frame_len)?,
            stream,
            frame_len,
            hop,
        })
    }

    pub fn analyze(&mut self, ctx: &Arc<CudaContext>, signal: &[f32]) -> Result<Spectrogram, Box<dyn std::error::Error>> {
        let bins = self.frame_len / 2 + 1;
        let columns = (signal.len().saturating_sub(self.frame_len)) / self.hop + 1;
        let mut d_spec = self.stream.alloc_zeros::<f32>(bins * columns)?;
        let (frame_len, bins_i) = (self.frame_len as i32, bins as i32);

        for (column, block) in signal.windows(self.frame_len).step_by(self.hop).enumerate() {
            self.staging.as_mut_slice()?.copy_from_slice(block); // EXPECT: missing_sync
            self.stream.memcpy_htod(&self.staging, &mut self.d_frame)?;
            let col = column as i32;
            let mut launch = self.stream.launch_builder(&self.kernel);
            launch.arg(&self.d_frame).arg(&mut d_spec).arg(&frame_len).arg(&bins_i).arg(&col);
            unsafe { launch.launch(LaunchConfig::for_num_elems(bins as u32)) }?;
        }

        let mut readback = unsafe { ctx.alloc_pinned_with_flags::<f32>(bins * columns, 0)? };
        self.stream.memcpy_dtoh(&d_spec, &mut readback)?;
        self.stream.synchronize()?;
        Ok(Spectrogram { bins, columns, magnitudes: readback.as_slice()?.to_vec() })
    }
}
