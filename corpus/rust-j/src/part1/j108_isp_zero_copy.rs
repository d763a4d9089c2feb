//! case: camera ISP debayers into a device-mapped pinned buffer (zero-copy) and builds its histogram there; the host reads the mapped buffer only after `stream.synchronize()`, and the raw Bayer frame is refilled only after that same wait
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, PinnedFlags, Result, Stream};

const ISP_SRC: &str = r#"
extern "C" __global__ void debayer_hist(const unsigned short* raw, int w, int h, unsigned char* rgb,
                                        unsigned int* hist) {
    int x = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
    int y = 2 * (blockIdx.y * blockDim.y + threadIdx.y);
    if (x + 1 >= w || y + 1 >= h) return;
    float r = raw[y * w + x] / 4095.0f;
    float g = 0.5f * (raw[y * w + x + 1] + raw[(y + 1) * w + x]) / 4095.0f;
    float b = raw[(y + 1) * w + x + 1] / 4095.0f;
    unsigned char l = (unsigned char)(255.0f * (0.2126f * r + 0.7152f * g + 0.0722f * b));
    int o = 3 * ((y / 2) * (w / 2) + x / 2);
    rgb[o] = (unsigned char)(255.0f * r); rgb[o + 1] = (unsigned char)(255.0f * g); rgb[o + 2] = (unsigned char)(255.0f * b);
    atomicAdd(&hist[l], 1u);
}
"#;

pub struct IspPipeline {
    stream: Stream,
    kernel: Kernel,
    raw_host: PinnedBuffer<u16>,
    raw_dev: DeviceBuffer<u16>,
    rgb_mapped: PinnedBuffer<u8>,
    hist_mapped: PinnedBuffer<u32>,
    width: usize,
    height: usize,
}

pub struct Exposure {
    pub mean_luma: f32,
    pub clipped_fraction: f32,
}

impl IspPipeline {
    pub fn new(ctx: &Context, width: usize, height: usize) -> Result<Self> {
        let mapped = PinnedFlags { device_mapped: true, ..PinnedFlags::default() };
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(ISP_SRC)?.function("debayer_hist")?,
            raw_host: ctx.alloc_pinned::<u16>(width * height)?,
            raw_dev: ctx.alloc::<u16>(width * height)?,
            rgb_mapped: ctx.alloc_pinned_with_flags::<u8>(3 * (width / 2) * (height / 2), mapped)?,
            hist_mapped: ctx.alloc_pinned_with_flags::<u32>(256, mapped)?,
            width,
            height,
        })
    }

    /// `grab` fills the Bayer frame (the sensor driver's readout into our pinned buffer).
    pub fn frame<F: FnMut(&mut [u16])>(&mut self, mut grab: F) -> Result<Exposure> {
        grab(&mut self.raw_host);
        self.hist_mapped.fill(0);
        unsafe { self.stream.copy_htod_async(&mut self.raw_dev, &self.raw_host)? };
        let rgb = self.rgb_mapped.mapped_device_ptr()?;
        let hist = self.hist_mapped.mapped_device_ptr()?;
        let (w, h) = (self.width as i32, self.height as i32);
        let cfg = LaunchConfig {
            grid: ((self.width as u32 / 2).div_ceil(16), (self.height as u32 / 2).div_ceil(16), 1),
            block: (16, 16, 1),
            shared_mem_bytes: 0,
        };
        unsafe { self.stream.launch(&self.kernel, cfg, &[&self.raw_dev, &w, &h, &rgb, &hist])? };
        self.stream.synchronize()?;

        let total: u64 = self.hist_mapped.iter().map(|&c| c as u64).sum();
        let weighted: u64 = self.hist_mapped.iter().enumerate().map(|(l, &c)| l as u64 * c as u64).sum();
        let clipped = self.hist_mapped[250..].iter().map(|&c| c as u64).sum::<u64>();
        let denom = total.max(1) as f32;
        Ok(Exposure { mean_luma: weighted as f32 / denom, clipped_fraction: clipped as f32 / denom })
    }

    pub fn rgb(&self) -> &[u8] {
        &self.rgb_mapped
    }
}
