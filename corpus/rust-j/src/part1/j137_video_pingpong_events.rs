//! case: video uploader ping-pongs two pinned frame buffers (`front`/`back` fields swapped each frame) and, before refilling a buffer, synchronizes the event recorded after that buffer's last upload
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const NV12_SRC: &str = r#"
extern "C" __global__ void nv12_to_rgb(const unsigned char* nv12, unsigned char* rgb, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float Y = nv12[y * w + x];
    float U = nv12[w * h + (y / 2) * w + (x & ~1)] - 128.0f;
    float V = nv12[w * h + (y / 2) * w + (x & ~1) + 1] - 128.0f;
    int o = 3 * (y * w + x);
    rgb[o] = (unsigned char)fminf(255.0f, fmaxf(0.0f, Y + 1.402f * V));
    rgb[o + 1] = (unsigned char)fminf(255.0f, fmaxf(0.0f, Y - 0.344f * U - 0.714f * V));
    rgb[o + 2] = (unsigned char)fminf(255.0f, fmaxf(0.0f, Y + 1.772f * U));
}
"#;

struct Slot {
    host: PinnedBuffer<u8>,
    uploaded: Event,
}

pub struct FrameUploader {
    stream: Stream,
    kernel: Kernel,
    front: Slot,
    back: Slot,
    d_nv12: DeviceBuffer<u8>,
    d_rgb: DeviceBuffer<u8>,
    width: usize,
    height: usize,
}

impl FrameUploader {
    pub fn new(ctx: &Context, width: usize, height: usize) -> Result<Self> {
        let bytes = width * height * 3 / 2;
        let slot = || -> Result<Slot> { Ok(Slot { host: ctx.alloc_pinned(bytes)?, uploaded: ctx.new_event()? }) };
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(NV12_SRC)?.function("nv12_to_rgb")?,
            front: slot()?,
            back: slot()?,
            d_nv12: ctx.alloc(bytes)?,
            d_rgb: ctx.alloc(width * height * 3)?,
            width,
            height,
        })
    }

    /// `decode_into` is the CPU decoder writing the next NV12 frame.
    pub fn push<F: FnOnce(&mut [u8])>(&mut self, decode_into: F) -> Result<()> {
        // The buffer about to be refilled was last uploaded two frames ago.
        self.back.uploaded.synchronize()?;
        decode_into(&mut self.back.host);
        unsafe { self.stream.copy_htod_async(&mut self.d_nv12, &self.back.host)? };
        self.stream.record_event(&self.back.uploaded)?;
        let (w, h) = (self.width as i32, self.height as i32);
        let cfg = LaunchConfig {
            grid: ((self.width as u32).div_ceil(16), (self.height as u32).div_ceil(16), 1),
            block: (16, 16, 1),
            shared_mem_bytes: 0,
        };
        unsafe { self.stream.launch(&self.kernel, cfg, &[&self.d_nv12, &self.d_rgb, &w, &h])? };
        std::mem::swap(&mut self.front, &mut self.back);
        Ok(())
    }

    pub fn flush(&self) -> Result<()> {
        self.stream.synchronize()
    }
}
