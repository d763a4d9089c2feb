//! case: a tensor type implements Debug by viewing its DeviceBuffer's address as a host slice
//! expect: host_deref_device_ptr=1
use std::fmt;

use cuda_lint_runtime::{Context, DeviceBuffer, Result};

pub struct Tensor {
    pub shape: Vec<usize>,
    data: DeviceBuffer<f32>,
}

impl Tensor {
    pub fn zeros(ctx: &Context, shape: &[usize]) -> Result<Self> {
        let n = shape.iter().product();
        Ok(Self { shape: shape.to_vec(), data: ctx.alloc_zeroed::<f32>(n)? })
    }
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.data.device_ptr().as_raw() as usize as *const f32;
        let shown = self.data.len().min(8);
        let head = unsafe { std::slice::from_raw_parts(p, shown) }; // EXPECT: host_deref_device_ptr
        f.debug_struct("Tensor").field("shape", &self.shape).field("head", &head).finish()
    }
}

pub fn describe(ctx: &Context) -> Result<String> {
    let t = Tensor::zeros(ctx, &[4, 16])?;
    Ok(format!("{t:?}"))
}
