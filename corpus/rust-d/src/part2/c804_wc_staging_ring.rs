//! case: an image filter keeps a ring of `alloc_pinned` staging slots and uses each slot both to upload a frame and to receive the filtered frame; the stream is synchronized before the host reads the result, but cudarc's `alloc_pinned` memory is write-combined, so the host read of the readback is uncached
//! expect: write_combined_host_read=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const BLUR_SRC: &str = r#"
extern "C" __global__ void box_blur_3(const unsigned char* src, unsigned char* dst, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int acc = 0, cnt = 0;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            int xx = x + dx, yy = y + dy;
            if (xx >= 0 && yy >= 0 && xx < w && yy < h) { acc += src[yy * w + xx]; ++cnt; }
        }
    dst[y * w + x] = (unsigned char)(acc / cnt);
}
"#;

pub struct FrameFilter {
    stream: Arc<CudaStream>,
    blur: CudaFunction,
    ring: Vec<PinnedHostSlice<u8>>,
    next: usize,
    src_dev: CudaSlice<u8>,
    dst_dev: CudaSlice<u8>,
    width: usize,
    height: usize,
}

impl FrameFilter {
    pub fn new(ctx: &Arc<CudaContext>, width: usize, height: usize, slots: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.default_stream();
        let px = width * height;
        let ring = (0..slots)
            .map(|_| unsafe { ctx.alloc_pinned::<u8>(px) })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            blur: ctx.load_module(compile_ptx(BLUR_SRC)?)?.load_function("box_blur_3")?,
            src_dev: stream.alloc_zeros::<u8>(px)?,
            dst_dev: stream.alloc_zeros::<u8>(px)?,
            stream,
            ring,
            next: 0,
            width,
            height,
        })
    }

    /// Filters one grayscale frame; returns a histogram of the result for auto-exposure.
    pub fn process(&mut self, frame: &[u8]) -> Result<[u32; 256], DriverError> {
        let idx = self.next;
        self.next = (idx + 1) % self.ring.len();
        let slot = &mut self.ring[idx];

        slot.as_mut_slice()?.copy_from_slice(frame);
        self.stream.memcpy_htod(slot, &mut self.src_dev)?;

        let (w, h) = (self.width as i32, self.height as i32);
        let cfg = LaunchConfig {
            grid_dim: ((self.width as u32).div_ceil(16), (self.height as u32).div_ceil(16), 1),
            block_dim: (16, 16, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = self.stream.launch_builder(&self.blur);
        launch.arg(&self.src_dev).arg(&mut self.dst_dev).arg(&w).arg(&h);
        unsafe { launch.launch(cfg) }?;

        self.stream.memcpy_dtoh(&self.dst_dev, slot)?;
        self.stream.synchronize()?;

        let mut hist = [0u32; 256];
        let filtered = slot.as_slice()?; // EXPECT: write_combined_host_read
        filtered.iter().for_each(|&p| hist[p as usize] += 1);
        Ok(hist)
    }
}
