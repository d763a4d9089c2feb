//! case: a training loop's NaN check synchronizes, then peeks at the first loss value through the cudarc slice's raw device pointer
//! expect: host_deref_device_ptr=1
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

pub struct Trainer {
    stream: Arc<CudaStream>,
    loss: CudaSlice<f32>,
    step: u64,
}

impl Trainer {
    pub fn new(stream: Arc<CudaStream>, batch: usize) -> Res<Self> {
        let loss = stream.alloc_zeros::<f32>(batch)?;
        Ok(Self { stream, loss, step: 0 })
    }

    /// Cheap divergence check every 100 steps.
    pub fn diverged(&mut self) -> Res<bool> {
        self.step += 1;
        if self.step % 100 != 0 {
            return Ok(false);
        }
        self.stream.synchronize()?;
        let (ptr, _guard) = self.loss.device_ptr(&self.stream);
        // A device address read as if it were host memory.
        let first = unsafe { *(ptr as *const f32) }; // EXPECT: host_deref_device_ptr
        Ok(!first.is_finite())
    }
}
