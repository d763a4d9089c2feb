//! case: cudarc alloc_pinned (write-combined) used as an upload staging buffer: the host only writes it, the device reads it
//! expect: none
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DriverError, PinnedHostSlice};

pub struct Uploader {
    stream: Arc<CudaStream>,
    staging: PinnedHostSlice<u16>,
}

impl Uploader {
    pub fn new(ctx: &Arc<CudaContext>, capacity: usize) -> Result<Self, DriverError> {
        Ok(Uploader { stream: ctx.default_stream(), staging: unsafe { ctx.alloc_pinned::<u16>(capacity) }? })
    }

    /// Quantizes `values` into the staging area and ships them to `dst`.
    pub fn upload_quantized(&mut self, values: &[f32], dst: &mut CudaSlice<u16>) -> Result<(), DriverError> {
        let staging = self.staging.as_mut_slice()?;
        for (slot, v) in staging.iter_mut().zip(values) {
            *slot = (v.clamp(0.0, 1.0) * u16::MAX as f32) as u16;
        }
        self.stream.memcpy_htod(&self.staging, dst)?;
        Ok(())
    }
}

pub fn run() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let mut up = Uploader::new(&ctx, 4096)?;
    let mut dst = up.stream.alloc_zeros::<u16>(4096)?;
    let frame: Vec<f32> = (0..4096).map(|i| (i as f32 / 4096.0).sin().abs()).collect();
    up.upload_quantized(&frame, &mut dst)?;
    up.stream.synchronize()?;
    Ok(())
}
