//! case: video transcoder frame ring; each slot uploads a pinned NV12 frame, converts it on the slot's own stream and downloads RGBA into pinned memory, but `take_output` copies the RGBA bytes for the encoder without waiting for the slot's stream
//! expect: missing_sync=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const NV12_TO_RGBA: &str = r#"
extern "C" __global__ void nv12_to_rgba(const unsigned char* nv12, unsigned char* rgba,
                                        int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x >= width || y >= height) return;
    int Y = nv12[y * width + x];
    int uv = width * height + (y / 2) * width + (x & ~1);
    int U = nv12[uv] - 128, V = nv12[uv + 1] - 128;
    int r = Y + ((359 * V) >> 8);
    int g = Y - ((88 * U + 183 * V) >> 8);
    int b = Y + ((454 * U) >> 8);
    unsigned char* p = rgba + 4 * (y * width + x);
    p[0] = min(max(r, 0), 255); p[1] = min(max(g, 0), 255);
    p[2] = min(max(b, 0), 255); p[3] = 255;
}
"#;

struct Slot {
    stream: Stream,
    host_in: PinnedBuffer<u8>,
    dev_in: DeviceBuffer<u8>,
    dev_out: DeviceBuffer<u8>,
    host_out: PinnedBuffer<u8>,
    pts: Option<i64>,
}

pub struct FrameRing {
    ctx: Context,
    kernel: Kernel,
    slots: Vec<Slot>,
    next: usize,
    width: usize,
    height: usize,
}

impl FrameRing {
    pub fn new(ordinal: usize, depth: usize, width: usize, height: usize) -> Result<Self> {
        let ctx = Context::new(ordinal)?;
        let kernel = ctx.load_cuda(NV12_TO_RGBA)?.function("nv12_to_rgba")?;
        let nv12_bytes = width * height * 3 / 2;
        let rgba_bytes = width * height * 4;
        let slots = (0..depth)
            .map(|_| -> Result<Slot> {
                Ok(Slot {
                    stream: ctx.new_stream()?,
                    host_in: ctx.alloc_pinned(nv12_bytes)?,
                    dev_in: ctx.alloc(nv12_bytes)?,
                    dev_out: ctx.alloc(rgba_bytes)?,
                    host_out: ctx.alloc_pinned(rgba_bytes)?,
                    pts: None,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(FrameRing { ctx, kernel, slots, next: 0, width, height })
    }

    /// Queues one decoded frame and returns the slot it went to.
    pub fn submit(&mut self, pts: i64, nv12: &[u8]) -> Result<usize> {
        let idx = self.next;
        self.next = (self.next + 1) % self.slots.len();
        let (w, h) = (self.width as i32, self.height as i32);
        let cfg = LaunchConfig {
            grid: ((self.width as u32).div_ceil(128), self.height as u32, 1),
            block: (128, 1, 1),
            shared_mem_bytes: 0,
        };
        let slot = &mut self.slots[idx];
        // The slot's previous frame must have left both staging buffers.
        slot.stream.synchronize()?;
        slot.host_in.copy_from_slice(nv12);
        unsafe {
            slot.stream.copy_htod_async(&mut slot.dev_in, &slot.host_in)?;
            slot.stream.launch(&self.kernel, cfg, &[&slot.dev_in, &slot.dev_out, &w, &h])?;
            slot.stream.copy_dtoh_async(&mut slot.host_out, &slot.dev_out)?;
        }
        slot.pts = Some(pts);
        Ok(idx)
    }

    /// Hands the converted frame of `idx` to the caller.
    pub fn take_output(&mut self, idx: usize) -> Option<(i64, Vec<u8>)> {
        let slot = &mut self.slots[idx];
        let pts = slot.pts.take()?;
        let rgba = slot.host_out.to_vec(); // EXPECT: missing_sync
        Some((pts, rgba))
    }
}

pub fn transcode(
    ring: &mut FrameRing,
    frames: &[(i64, Vec<u8>)],
    mut encode: impl FnMut(i64, &[u8]),
) -> Result<()> {
    for (pts, nv12) in frames {
        let idx = ring.submit(*pts, nv12)?;
        if let Some((pts, rgba)) = ring.take_output(idx) {
            encode(pts, &rgba);
        }
    }
    ring.ctx.synchronize()
}
