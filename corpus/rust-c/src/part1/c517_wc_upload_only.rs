//! case: a texture uploader with the runtime layer keeps a write-combined pinned buffer only for uploads (the host writes it, never reads it) and reads results back through a separate cached pinned buffer
//! expect: none
use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, PinnedFlags, Stream};

const MIP_SRC: &str = r#"
extern "C" __global__ void downsample2x(const float* src, float* dst, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x >= w / 2 || y >= h / 2) return;
    const float* r0 = src + (2 * y) * w;
    const float* r1 = r0 + w;
    dst[y * (w / 2) + x] = 0.25f * (r0[2 * x] + r0[2 * x + 1] + r1[2 * x] + r1[2 * x + 1]);
}
"#;

pub struct TextureUploader {
    stream: Stream,
    mip: Kernel,
    upload: PinnedBuffer<f32>,   // write-combined: host writes only
    readback: PinnedBuffer<f32>, // cached: host reads
    d_level0: DeviceBuffer<f32>,
    d_level1: DeviceBuffer<f32>,
    w: usize,
    h: usize,
}

impl TextureUploader {
    pub fn new(ctx: &Context, w: usize, h: usize) -> cuda_lint_runtime::Result<Self> {
        let wc = PinnedFlags { write_combined: true, ..PinnedFlags::default() };
        Ok(Self {
            stream: ctx.new_stream()?,
            mip: ctx.load_cuda(MIP_SRC)?.function("downsample2x")?,
            upload: ctx.alloc_pinned_with_flags::<f32>(w * h, wc)?,
            readback: ctx.alloc_pinned::<f32>((w / 2) * (h / 2))?,
            d_level0: ctx.alloc::<f32>(w * h)?,
            d_level1: ctx.alloc::<f32>((w / 2) * (h / 2))?,
            w,
            h,
        })
    }

    /// Converts 8-bit texels to floats straight into the write-combined buffer.
    pub fn upload_and_mip(&mut self, texels: &[u8]) -> cuda_lint_runtime::Result<f32> {
        for (dst, &t) in self.upload.iter_mut().zip(texels) {
            *dst = t as f32 / 255.0;
        }
        let (w, h) = (self.w as i32, self.h as i32);
        let cfg = LaunchConfig { grid: ((self.w as u32 / 2).div_ceil(256), self.h as u32 / 2, 1), block: (256, 1, 1), shared_mem_bytes: 0 };
        unsafe {
            self.stream.copy_htod_async(&mut self.d_level0, &self.upload)?;
            self.stream.launch(&self.mip, cfg, &[&self.d_level0, &self.d_level1, &w, &h])?;
            self.stream.copy_dtoh_async(&mut self.readback, &self.d_level1)?;
        }
        self.stream.synchronize()?;
        let mean = self.readback.iter().sum::<f32>() / self.readback.len().max(1) as f32;
        Ok(mean)
    }
}
