//! Camera side: FAST-like corner scores on the vision stream (device buffers only).

use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};

pub const VISION_SRC: &str = r#"
extern "C" __global__ void corner_score(const unsigned char* img, unsigned w, unsigned h, int thresh,
                                        float* score) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 3 || y < 3 || x >= (int)w - 3 || y >= (int)h - 3) return;
    const int dx[16] = {0, 1, 2, 3, 3, 3, 2, 1, 0, -1, -2, -3, -3, -3, -2, -1};
    const int dy[16] = {-3, -3, -2, -1, 0, 1, 2, 3, 3, 3, 2, 1, 0, -1, -2, -3};
    int c = img[y * w + x], brighter = 0, darker = 0;
    for (int k = 0; k < 16; ++k) {
        int p = img[(y + dy[k]) * w + x + dx[k]];
        brighter += p > c + thresh;
        darker += p < c - thresh;
    }
    score[y * w + x] = (brighter >= 12 || darker >= 12) ? (float)max(brighter, darker) : 0.f;
}
"#;

pub struct CornerDetector {
    pub stream: Arc<CudaStream>,
    pub kernel: CudaFunction,
    pub scores: CudaSlice<f32>,
    pub w: u32,
    pub h: u32,
}

impl CornerDetector {
    /// Enqueues scoring of `frame`; returns without waiting.
    pub fn enqueue(&mut self, frame: &CudaSlice<u8>) -> Result<(), DriverError> {
        let thresh = 20i32;
        let cfg = LaunchConfig { grid_dim: (self.w.div_ceil(16), self.h.div_ceil(16), 1), block_dim: (16, 16, 1), shared_mem_bytes: 0 };
        let mut b = self.stream.launch_builder(&self.kernel);
        b.arg(frame).arg(&self.w).arg(&self.h).arg(&thresh).arg(&mut self.scores);
        unsafe { b.launch(cfg)? };
        Ok(())
    }
}
