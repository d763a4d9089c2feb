//! case: HDR tone-mapping stage allocates its download buffer with `PinnedFlags { write_combined: true }` (copied from the upload path) and, after synchronizing correctly, computes the output luminance statistics by reading that write-combined memory on the host
//! expect: write_combined_host_read=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, PinnedFlags, Result, Stream};

const TONEMAP_SRC: &str = r#"
extern "C" __global__ void reinhard(const float* hdr, unsigned char* ldr, int n_pixels, float exposure) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_pixels) return;
    for (int c = 0; c < 3; ++c) {
        float v = hdr[3 * i + c] * exposure;
        v = v / (1.0f + v);
        ldr[3 * i + c] = (unsigned char)(255.0f * powf(v, 1.0f / 2.2f));
    }
}
"#;

const STAGING: PinnedFlags = PinnedFlags { portable: false, device_mapped: false, write_combined: true };

pub struct LumaStats {
    pub mean: f32,
    pub clipped_fraction: f32,
}

pub struct ToneMapper {
    stream: Stream,
    kernel: Kernel,
    upload: PinnedBuffer<f32>,
    download: PinnedBuffer<u8>,
    hdr: DeviceBuffer<f32>,
    ldr: DeviceBuffer<u8>,
    pixels: usize,
}

impl ToneMapper {
    pub fn new(ctx: &Context, width: usize, height: usize) -> Result<Self> {
        let pixels = width * height;
        Ok(ToneMapper {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(TONEMAP_SRC)?.function("reinhard")?,
            upload: ctx.alloc_pinned_with_flags(3 * pixels, STAGING)?,
            download: ctx.alloc_pinned_with_flags(3 * pixels, STAGING)?,
            hdr: ctx.alloc(3 * pixels)?,
            ldr: ctx.alloc(3 * pixels)?,
            pixels,
        })
    }

    pub fn map_frame(&mut self, hdr: &[f32], exposure: f32) -> Result<(&[u8], LumaStats)> {
        self.upload.copy_from_slice(hdr);
        let n = self.pixels as i32;
        unsafe {
            self.stream.copy_htod_async(&mut self.hdr, &self.upload)?;
            self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(self.pixels as u32), &[&self.hdr, &self.ldr, &n, &exposure])?;
            self.stream.copy_dtoh_async(&mut self.download, &self.ldr)?;
        }
        self.stream.synchronize()?;
        let (sum, clipped) = self.download.chunks_exact(3).fold((0u64, 0usize), |(s, c), px| { // EXPECT: write_combined_host_read
            let y = (54 * px[0] as u64 + 183 * px[1] as u64 + 19 * px[2] as u64) / 256;
            (s + y, c + usize::from(px.iter().any(|&v| v == 255)))
        });
        let stats = LumaStats {
            mean: sum as f32 / self.pixels.max(1) as f32,
            clipped_fraction: clipped as f32 / self.pixels.max(1) as f32,
        };
        Ok((&self.download, stats))
    }
}
