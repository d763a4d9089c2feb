//! case: video encoder front end on the runtime layer converts each decoded frame to planar YUV into one pinned staging buffer and uploads it with copy_htod_async; the next iteration overwrites the staging buffer while the previous upload may still be reading it (the stream is synchronized once, after the loop)
//! expect: missing_sync=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const DCT_SRC: &str = r#"
extern "C" __global__ void block_energy(const unsigned char* yuv, unsigned* energy, unsigned w, unsigned h, unsigned frame) {
    unsigned bx = blockIdx.x, by = blockIdx.y;
    unsigned x = bx * 8 + threadIdx.x, y = by * 8 + threadIdx.y;
    if (x >= w || y >= h) return;
    int d = (int)yuv[y * w + x] - 128;
    atomicAdd(&energy[frame * ((w / 8) * (h / 8)) + by * (w / 8) + bx], (unsigned)(d * d));
}
"#;

pub struct RgbFrame<'a> {
    pub rgb: &'a [u8],
}

pub struct EncoderFrontEnd {
    w: usize,
    h: usize,
    stream: Stream,
    energy_kernel: Kernel,
    staging: PinnedBuffer<u8>,
    dev_yuv: DeviceBuffer<u8>,
    dev_energy: DeviceBuffer<u32>,
}

fn rgb_to_yuv420(rgb: &[u8], w: usize, h: usize) -> Vec<u8> {
    let mut out = vec![128u8; w * h * 3 / 2];
    for (i, px) in rgb.chunks_exact(3).enumerate().take(w * h) {
        let y = 0.257 * px[0] as f32 + 0.504 * px[1] as f32 + 0.098 * px[2] as f32 + 16.0;
        out[i] = y.clamp(0.0, 255.0) as u8;
    }
    out
}

impl EncoderFrontEnd {
    pub fn new(ctx: &Context, w: usize, h: usize, max_frames: usize) -> Result<Self> {
        let frame_bytes = w * h * 3 / 2;
        Ok(Self {
            w,
            h,
            stream: ctx.new_stream()?,
            energy_kernel: ctx.load_cuda(DCT_SRC)?.function("block_energy")?,
            staging: ctx.alloc_pinned(frame_bytes)?,
            dev_yuv: ctx.alloc(frame_bytes)?,
            dev_energy: ctx.alloc_zeroed(max_frames * (w / 8) * (h / 8))?,
        })
    }

    /// Computes per-macroblock energies for rate control.
    pub fn analyze(&mut self, frames: &[RgbFrame<'_>]) -> Result<Vec<u32>> {
        let (w, h) = (self.w as u32, self.h as u32);
        let cfg = LaunchConfig { grid: (w / 8, h / 8, 1), block: (8, 8, 1), shared_mem_bytes: 0 };
        for (i, frame) in frames.iter().enumerate() {
            let yuv = rgb_to_yuv420(frame.rgb, self.w, self.h);
            self.staging.copy_from_slice(&yuv); // EXPECT: missing_sync
            unsafe { self.stream.copy_htod_async(&mut self.dev_yuv, &self.staging)? };
            let idx = i as u32;
            unsafe { self.stream.launch(&self.energy_kernel, cfg, &[&self.dev_yuv, &self.dev_energy, &w, &h, &idx])? };
        }
        self.stream.synchronize()?;
        let mut energies: PinnedBuffer<u32> = self.staging.context().alloc_pinned(self.dev_energy.len())?;
        unsafe { self.stream.copy_dtoh_async(&mut energies, &self.dev_energy)? };
        self.stream.synchronize()?;
        Ok(energies.to_vec())
    }
}
