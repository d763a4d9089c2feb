//! case: a video decoder's frame pool deinterlaces on the context's only stream and reads the luma plane back into `alloc_pinned` memory; with one stream cudarc records no event, so `as_slice` waits for nothing, and the plane is write-combined
//! expect: missing_sync=1, write_combined_host_read=1

use std::collections::VecDeque;
use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice,
    PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

/// Line-doubling deinterlacer: every output row `y` takes row `y / 2` of the top field.
const DEINTERLACE_CU: &str = r#"
extern "C" __global__ void deinterlace(const unsigned char* field, unsigned char* frame,
                                       int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x >= width || y >= height) return;
    frame[y * width + x] = field[(y / 2) * width + x];
}
"#;

pub struct DecodedFrame {
    pub pts: u64,
    pub luma: PinnedHostSlice<u8>,
}

pub struct FramePool {
    stream: Arc<CudaStream>,
    deinterlace: CudaFunction,
    free: VecDeque<PinnedHostSlice<u8>>,
    width: usize,
    height: usize,
}

impl FramePool {
    pub fn new(ctx: &Arc<CudaContext>, width: usize, height: usize, depth: usize) -> Result<Self, Box<dyn Error>> {
        let stream = ctx.default_stream();
        let module = ctx.load_module(compile_ptx(DEINTERLACE_CU)?)?;
        let deinterlace = module.load_function("deinterlace")?;
        let free = (0..depth)
            .map(|_| unsafe { ctx.alloc_pinned::<u8>(width * height) })
            .collect::<Result<VecDeque<_>, _>>()?;
        Ok(Self { stream, deinterlace, free, width, height })
    }

    /// Deinterlaces one field into `frame_dev` and starts the readback into a pooled host plane.
    pub fn decode(
        &mut self,
        pts: u64,
        field: &CudaSlice<u8>,
        frame_dev: &mut CudaSlice<u8>,
    ) -> Result<Option<DecodedFrame>, DriverError> {
        let Some(mut luma) = self.free.pop_front() else {
            return Ok(None); // the consumer is behind: drop this field
        };
        let (w, h) = (self.width as i32, self.height as i32);
        let cfg = LaunchConfig {
            grid_dim: ((self.width as u32).div_ceil(256), self.height as u32, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        unsafe {
            self.stream
                .launch_builder(&self.deinterlace)
                .arg(field)
                .arg(&mut *frame_dev)
                .arg(&w)
                .arg(&h)
                .launch(cfg)?;
        }
        self.stream.memcpy_dtoh(&*frame_dev, &mut luma)?;
        Ok(Some(DecodedFrame { pts, luma }))
    }

    pub fn recycle(&mut self, frame: DecodedFrame) {
        self.free.push_back(frame.luma);
    }
}

/// Scene-cut detector: compares the mean luma of consecutive frames.
pub struct SceneCutDetector {
    last_mean: Option<f64>,
    threshold: f64,
}

impl SceneCutDetector {
    pub fn observe(&mut self, pool: &mut FramePool, frame: DecodedFrame) -> Result<bool, DriverError> {
        let n = frame.luma.len() as f64;
        let mean = frame.luma.as_slice()?.iter().map(|&p| p as u64).sum::<u64>() as f64 / n; // EXPECT: missing_sync, write_combined_host_read
        pool.recycle(frame);
        let cut = self
            .last_mean
            .replace(mean)
            .is_some_and(|prev| (prev - mean).abs() > self.threshold);
        Ok(cut)
    }
}
