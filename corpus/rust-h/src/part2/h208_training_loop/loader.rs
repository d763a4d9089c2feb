use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DriverError, PinnedHostSlice};

pub struct DeviceBatch {
    pub x: CudaSlice<f32>,
    pub y: CudaSlice<f32>,
    pub rows: usize,
}

/// Uploads batches through write-combined staging: the host only ever writes it.
pub struct DataLoader {
    stream: Arc<CudaStream>,
    x_staging: PinnedHostSlice<f32>,
    y_staging: PinnedHostSlice<f32>,
    batch: usize,
    dim: usize,
}

impl DataLoader {
    pub fn new(ctx: &Arc<CudaContext>, stream: Arc<CudaStream>, batch: usize, dim: usize) -> Result<Self, DriverError> {
        Ok(Self {
            stream,
            x_staging: unsafe { ctx.alloc_pinned::<f32>(batch * dim)? },
            y_staging: unsafe { ctx.alloc_pinned::<f32>(batch)? },
            batch,
            dim,
        })
    }

    pub fn next_batch(&mut self, samples: &[f32], targets: &[f32]) -> Result<DeviceBatch, DriverError> {
        let rows = targets.len().min(self.batch);
        self.x_staging.as_mut_slice()?[..rows * self.dim].copy_from_slice(&samples[..rows * self.dim]);
        self.y_staging.as_mut_slice()?[..rows].copy_from_slice(&targets[..rows]);
        let x = self.stream.clone_htod(&self.x_staging)?;
        let y = self.stream.clone_htod(&self.y_staging)?;
        // the staging buffers are reused by the next batch: wait for both uploads
        self.stream.synchronize()?;
        Ok(DeviceBatch { x, y, rows })
    }
}
