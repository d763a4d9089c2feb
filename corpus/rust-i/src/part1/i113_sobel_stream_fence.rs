//! case: Sobel edge detector on the runtime layer; a `StreamFence` guard synchronizes its stream in Drop, and the block holding it (upload, kernel, readback into pinned memory) ends before the host counts edge pixels (near-miss: the wait is a Drop impl, also on the `?` early-return paths)
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const SOBEL_SRC: &str = r#"
extern "C" __global__ void sobel(const unsigned char* img, unsigned char* edges, int w, int h, int thresh) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x <= 0 || y <= 0 || x >= w - 1 || y >= h - 1) return;
    int gx = -img[(y-1)*w+x-1] - 2*img[y*w+x-1] - img[(y+1)*w+x-1] + img[(y-1)*w+x+1] + 2*img[y*w+x+1] + img[(y+1)*w+x+1];
    int gy = -img[(y-1)*w+x-1] - 2*img[(y-1)*w+x] - img[(y-1)*w+x+1] + img[(y+1)*w+x-1] + 2*img[(y+1)*w+x] + img[(y+1)*w+x+1];
    edges[y*w+x] = (gx*gx + gy*gy > thresh*thresh) ? 255 : 0;
}
"#;

/// Waits for everything enqueued on the stream when it goes out of scope.
struct StreamFence<'s>(&'s Stream);

impl Drop for StreamFence<'_> {
    fn drop(&mut self) {
        if let Err(e) = self.0.synchronize() {
            eprintln!("stream fence: {e}");
        }
    }
}

pub struct EdgeDetector {
    stream: Stream,
    sobel: Kernel,
    width: usize,
    height: usize,
    host_in: PinnedBuffer<u8>,
    host_out: PinnedBuffer<u8>,
    dev_in: DeviceBuffer<u8>,
    dev_out: DeviceBuffer<u8>,
}

impl EdgeDetector {
    pub fn new(ctx: &Context, width: usize, height: usize) -> Result<Self> {
        let px = width * height;
        Ok(Self {
            stream: ctx.new_stream()?,
            sobel: ctx.load_cuda(SOBEL_SRC)?.function("sobel")?,
            width,
            height,
            host_in: ctx.alloc_pinned(px)?,
            host_out: ctx.alloc_pinned(px)?,
            dev_in: ctx.alloc(px)?,
            dev_out: ctx.alloc_zeroed(px)?,
        })
    }

    pub fn edge_fraction(&mut self, gray: &[u8], thresh: i32) -> Result<f32> {
        self.host_in.copy_from_slice(gray);
        {
            let _fence = StreamFence(&self.stream);
            unsafe { self.stream.copy_htod_async(&mut self.dev_in, &self.host_in)? };
            let (w, h) = (self.width as i32, self.height as i32);
            let cfg = LaunchConfig { grid: ((w as u32).div_ceil(16), (h as u32).div_ceil(16), 1), block: (16, 16, 1), shared_mem_bytes: 0 };
            unsafe { self.stream.launch(&self.sobel, cfg, &[&self.dev_in, &self.dev_out, &w, &h, &thresh])? };
            unsafe { self.stream.copy_dtoh_async(&mut self.host_out, &self.dev_out)? };
        } // `_fence` dropped here: the stream is drained.
        let edges = self.host_out.iter().filter(|&&p| p == 255).count();
        Ok(edges as f32 / (self.width * self.height) as f32)
    }
}
