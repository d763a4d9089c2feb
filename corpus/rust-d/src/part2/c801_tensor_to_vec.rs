//! case: a tensor type over cudarc uploads through a pinned staging buffer and runs ReLU in place, but `to_vec` reads a tensor of any size back with `clone_dtoh` into a fresh Vec: a pageable destination for the device-to-host copy
//! expect: pageable_async_copy=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const RELU_SRC: &str = r#"
extern "C" __global__ void relu_inplace(float* x, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        x[i] = v > 0.0f ? v : 0.0f;
    }
}
"#;

pub struct Device {
    stream: Arc<CudaStream>,
    relu: CudaFunction,
}

pub struct Tensor {
    storage: CudaSlice<f32>,
    shape: Vec<usize>,
}

impl Tensor {
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }
}

impl Device {
    pub fn new(ordinal: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let ctx = CudaContext::new(ordinal)?;
        let module = ctx.load_module(compile_ptx(RELU_SRC)?)?;
        Ok(Self {
            stream: ctx.default_stream(),
            relu: module.load_function("relu_inplace")?,
        })
    }

    /// Host slice -> device tensor, through page-locked memory.
    pub fn upload(&self, data: &[f32], shape: &[usize]) -> Result<Tensor, DriverError> {
        assert_eq!(data.len(), shape.iter().product::<usize>());
        let ctx = self.stream.context();
        let mut staging = unsafe { ctx.alloc_pinned_with_flags::<f32>(data.len(), 0)? };
        staging.as_mut_slice()?.copy_from_slice(data);
        let storage = self.stream.clone_htod(&staging)?;
        // `staging` is freed when we return: the copy out of it must be done first.
        self.stream.synchronize()?;
        Ok(Tensor { storage, shape: shape.to_vec() })
    }

    pub fn relu_(&self, t: &mut Tensor) -> Result<(), DriverError> {
        let n = t.numel() as u32;
        let mut launch = self.stream.launch_builder(&self.relu);
        launch.arg(&mut t.storage).arg(&n);
        unsafe { launch.launch(LaunchConfig::for_num_elems(n)) }?;
        Ok(())
    }

    /// Device tensor -> host Vec (used by the Python bindings' `.tolist()`).
    pub fn to_vec(&self, t: &Tensor) -> Result<Vec<f32>, DriverError> {
        self.stream.clone_dtoh(&t.storage) // EXPECT: pageable_async_copy
    }
}

pub fn relu_sum(dev: &Device, input: &[f32]) -> Result<f32, DriverError> {
    let mut t = dev.upload(input, &[input.len()])?;
    dev.relu_(&mut t)?;
    let out = dev.to_vec(&t)?;
    Ok(out.iter().sum())
}
