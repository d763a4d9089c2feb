//! case: a tensor type reads results back into pinned memory (flags 0) while the context only ever uses its default stream; cudarc records no event on the pinned slice with one stream, so `as_slice` right after the copy waits for nothing and the mean is taken from stale bytes
//! expect: missing_sync=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const GELU_SRC: &str = r#"
extern "C" __global__ void gelu_fwd(const float* x, float* y, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
    }
}
"#;

pub struct Tensor {
    data: CudaSlice<f32>,
    shape: Vec<usize>,
    stream: Arc<CudaStream>,
}

impl Tensor {
    pub fn zeros(stream: &Arc<CudaStream>, shape: &[usize]) -> Result<Self, DriverError> {
        let numel: usize = shape.iter().product();
        Ok(Self { data: stream.alloc_zeros::<f32>(numel)?, shape: shape.to_vec(), stream: stream.clone() })
    }

    /// Uploads through a page-locked staging buffer and waits, so the staging buffer can go.
    pub fn upload(stream: &Arc<CudaStream>, values: &[f32], shape: &[usize]) -> Result<Self, DriverError> {
        let mut staging = unsafe { stream.context().alloc_pinned_with_flags::<f32>(values.len(), 0)? };
        staging.as_mut_slice()?.copy_from_slice(values);
        let data = stream.clone_htod(&staging)?;
        stream.synchronize()?;
        Ok(Self { data, shape: shape.to_vec(), stream: stream.clone() })
    }

    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// Page-locked destination so the transfer is a real DMA and does not stall the host.
    pub fn to_host_pinned(&self) -> Result<PinnedHostSlice<f32>, DriverError> {
        let ctx = self.stream.context();
        let mut host = unsafe { ctx.alloc_pinned_with_flags::<f32>(self.numel(), 0)? };
        self.stream.memcpy_dtoh(&self.data, &mut host)?;
        Ok(host)
    }
}

pub fn gelu_mean(ordinal: usize, values: &[f32], shape: &[usize]) -> Result<f32, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(ordinal)?;
    let stream = ctx.default_stream();
    let gelu = ctx.load_module(compile_ptx(GELU_SRC)?)?.load_function("gelu_fwd")?;

    let input = Tensor::upload(&stream, values, shape)?;
    let mut out = Tensor::zeros(&stream, shape)?;

    let n = input.numel() as u32;
    let mut launch = stream.launch_builder(&gelu);
    launch.arg(&input.data).arg(&mut out.data).arg(&n);
    unsafe { launch.launch(LaunchConfig::for_num_elems(n))? };

    let host = out.to_host_pinned()?;
    let sum: f32 = host.as_slice()?.iter().sum(); // EXPECT: missing_sync
    Ok(sum / n as f32)
}
