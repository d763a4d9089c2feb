//! case: a keypoint detector (runtime layer) writes its sparse results straight into device-mapped pinned memory (zero-copy): the kernel gets the buffer's mapped device pointer, the host reads the buffer itself only after synchronizing the stream, and the device pointer is never dereferenced on the host
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, DevicePtr, Kernel, LaunchConfig, PinnedBuffer, PinnedFlags, Result, Stream};

pub const FAST_CU: &str = r#"
// out[0] is the count; keypoints follow as (x, y) pairs.
extern "C" __global__ void fast9(const unsigned char* img, int width, int height, int thresh,
                                 int* out, int max_kp) {
    int x = blockIdx.x * blockDim.x + threadIdx.x + 3, y = blockIdx.y + 3;
    if (x >= width - 3 || y >= height - 3) return;
    int c = img[y * width + x];
    const int dx[16] = {0, 1, 2, 3, 3, 3, 2, 1, 0, -1, -2, -3, -3, -3, -2, -1};
    const int dy[16] = {-3, -3, -2, -1, 0, 1, 2, 3, 3, 3, 2, 1, 0, -1, -2, -3};
    int run = 0, best = 0;
    for (int k = 0; k < 25; ++k) {
        int p = img[(y + dy[k % 16]) * width + x + dx[k % 16]];
        run = (p > c + thresh || p < c - thresh) ? run + 1 : 0;
        best = max(best, run);
    }
    if (best >= 9) {
        int slot = atomicAdd(&out[0], 1);
        if (slot < max_kp) { out[1 + 2 * slot] = x; out[2 + 2 * slot] = y; }
    }
}
"#;

pub struct Fast9 {
    stream: Stream,
    kernel: Kernel,
    results: PinnedBuffer<i32>,
    results_dev: DevicePtr,
    max_kp: i32,
}

impl Fast9 {
    pub fn new(ctx: &Context, max_kp: usize) -> Result<Self> {
        let flags = PinnedFlags { device_mapped: true, ..PinnedFlags::default() };
        let results = ctx.alloc_pinned_with_flags::<i32>(1 + 2 * max_kp, flags)?;
        let results_dev = results.mapped_device_ptr()?;
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(FAST_CU)?.function("fast9")?,
            results,
            results_dev,
            max_kp: max_kp as i32,
        })
    }

    pub fn detect(&mut self, img: &DeviceBuffer<u8>, width: i32, height: i32, thresh: i32) -> Result<Vec<(i32, i32)>> {
        self.results[0] = 0; // no kernel is running: the previous detect synchronized
        let cfg = LaunchConfig { grid: ((width as u32).div_ceil(64), (height - 6).max(1) as u32, 1), block: (64, 1, 1), shared_mem_bytes: 0 };
        unsafe {
            self.stream.launch(&self.kernel, cfg, &[img, &width, &height, &thresh, &self.results_dev, &self.max_kp])?;
        }
        self.stream.synchronize()?;
        let count = (self.results[0].max(0)).min(self.max_kp) as usize;
        Ok(self.results[1..1 + 2 * count].chunks_exact(2).map(|p| (p[0], p[1])).collect())
    }
}
