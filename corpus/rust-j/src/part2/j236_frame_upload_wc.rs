//! case: near-miss. Video ingest converts decoded RGB frames to planar floats directly into cudarc's `alloc_pinned` buffer (write-combined) and uploads it: the host only ever writes that buffer, which is what write-combining is for, and the stream is synchronized before each rewrite
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DriverError, PinnedHostSlice};

pub struct RgbFrame<'a> {
    pub width: usize,
    pub height: usize,
    pub pixels: &'a [u8],
}

pub struct PlanarUploader {
    stream: Arc<CudaStream>,
    staging: PinnedHostSlice<f32>,
    device: CudaSlice<f32>,
    plane: usize,
    uploaded: u64,
}

impl PlanarUploader {
    pub fn new(ctx: &Arc<CudaContext>, width: usize, height: usize) -> Result<Self, DriverError> {
        let stream = ctx.default_stream();
        let plane = width * height;
        // write-combined: the host streams writes into it, the DMA engine reads it
        let staging = unsafe { ctx.alloc_pinned::<f32>(3 * plane)? };
        let device = stream.alloc_zeros::<f32>(3 * plane)?;
        Ok(Self { stream, staging, device, plane, uploaded: 0 })
    }

    pub fn upload(&mut self, frame: &RgbFrame<'_>) -> Result<&CudaSlice<f32>, DriverError> {
        // the previous upload may still be reading `staging`
        self.stream.synchronize()?;
        let plane = self.plane;
        let dst = self.staging.as_mut_slice()?;
        for (i, px) in frame.pixels.chunks_exact(3).take(plane).enumerate() {
            dst[i] = px[0] as f32 * (1.0 / 255.0);
            dst[plane + i] = px[1] as f32 * (1.0 / 255.0);
            dst[2 * plane + i] = px[2] as f32 * (1.0 / 255.0);
        }
        self.stream.memcpy_htod(&self.staging, &mut self.device)?;
        self.uploaded += 1;
        Ok(&self.device)
    }

    pub fn frames_uploaded(&self) -> u64 {
        self.uploaded
    }
}
