//! case: async camera pipeline; `develop` enqueues the demosaic kernel and the download into pinned memory, then awaits a yield "so other tasks run while the GPU works", and reads the developed frame after the await, which waited for nothing on the GPU
//! expect: missing_sync=1

use std::future::Future;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const DEMOSAIC_SRC: &str = r#"
extern "C" __global__ void bilinear_rggb(const unsigned short* raw, unsigned short* rgb, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x <= 0 || y <= 0 || x >= w - 1 || y >= h - 1) return;
    int i = y * w + x;
    int even_x = (x & 1) == 0, even_y = (y & 1) == 0;
    unsigned int c = raw[i];
    unsigned int cross = (raw[i - 1] + raw[i + 1] + raw[i - w] + raw[i + w]) / 4;
    unsigned int diag = (raw[i - w - 1] + raw[i - w + 1] + raw[i + w - 1] + raw[i + w + 1]) / 4;
    unsigned int r, g, b;
    if (even_y && even_x) { r = c; g = cross; b = diag; }
    else if (!even_y && !even_x) { r = diag; g = cross; b = c; }
    else { g = c; r = even_y ? (raw[i - 1] + raw[i + 1]) / 2 : (raw[i - w] + raw[i + w]) / 2;
           b = even_y ? (raw[i - w] + raw[i + w]) / 2 : (raw[i - 1] + raw[i + 1]) / 2; }
    rgb[3 * i] = r; rgb[3 * i + 1] = g; rgb[3 * i + 2] = b;
}
"#;

/// Returns Pending once, then Ready: lets a cooperative executor run other tasks.
struct YieldNow(bool);

impl Future for YieldNow {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

pub struct Developer {
    stream: Stream,
    demosaic: Kernel,
    raw_host: PinnedBuffer<u16>,
    raw_dev: DeviceBuffer<u16>,
    rgb_dev: DeviceBuffer<u16>,
    rgb_host: PinnedBuffer<u16>,
    width: usize,
    height: usize,
}

impl Developer {
    pub fn new(ctx: &Context, width: usize, height: usize) -> Result<Self> {
        Ok(Developer {
            stream: ctx.new_stream()?,
            demosaic: ctx.load_cuda(DEMOSAIC_SRC)?.function("bilinear_rggb")?,
            raw_host: ctx.alloc_pinned(width * height)?,
            raw_dev: ctx.alloc(width * height)?,
            rgb_dev: ctx.alloc_zeroed(3 * width * height)?,
            rgb_host: ctx.alloc_pinned(3 * width * height)?,
            width,
            height,
        })
    }

    /// Develops one RAW frame; returns the 16-bit RGB image and its brightest channel value.
    pub async fn develop(&mut self, raw: &[u16]) -> Result<(Vec<u16>, u16)> {
        self.stream.synchronize()?; // the previous frame's upload has left raw_host
        self.raw_host.copy_from_slice(raw);
        let (w, h) = (self.width as i32, self.height as i32);
        let cfg = LaunchConfig { grid: ((self.width as u32).div_ceil(128), self.height as u32, 1), block: (128, 1, 1), shared_mem_bytes: 0 };
        unsafe {
            self.stream.copy_htod_async(&mut self.raw_dev, &self.raw_host)?;
            self.stream.launch(&self.demosaic, cfg, &[&self.raw_dev, &self.rgb_dev, &w, &h])?;
            self.stream.copy_dtoh_async(&mut self.rgb_host, &self.rgb_dev)?;
        }
        YieldNow(false).await;
        let peak = self.rgb_host.iter().copied().max().unwrap_or(0); // EXPECT: missing_sync
        Ok((self.rgb_host.to_vec(), peak))
    }
}
