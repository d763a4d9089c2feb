//! case: a small tensor type that only ever uses cudarc's default stream (no second stream, so cudarc records no events on its pinned buffers) copies a result into a pinned host buffer and reads it through `as_slice` with no synchronize
//! expect: missing_sync=1

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice,
    PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

const ACTIVATIONS: &str = r#"
extern "C" __global__ void gelu_inplace(float* x, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        x[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
    }
}
"#;

pub struct Device {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    gelu: CudaFunction,
}

impl Device {
    pub fn open(ordinal: usize) -> Result<Self, Box<dyn Error>> {
        let ctx = CudaContext::new(ordinal)?;
        // Everything runs on the context's default stream: no `new_stream()` anywhere.
        let stream = ctx.default_stream();
        let module = ctx.load_module(compile_ptx(ACTIVATIONS)?)?;
        let gelu = module.load_function("gelu_inplace")?;
        Ok(Self { ctx, stream, gelu })
    }

    pub fn pinned(&self, len: usize) -> Result<PinnedHostSlice<f32>, DriverError> {
        // Plain page-locked memory (no write-combining): it is read back on the host.
        unsafe { self.ctx.alloc_pinned_with_flags::<f32>(len, 0) }
    }
}

pub struct Tensor {
    data: CudaSlice<f32>,
    shape: Vec<usize>,
}

#[derive(Debug, Clone, Copy)]
pub struct Summary {
    pub mean: f32,
    pub max: f32,
}

impl Tensor {
    pub fn from_pinned(dev: &Device, host: &PinnedHostSlice<f32>, shape: &[usize]) -> Result<Self, DriverError> {
        assert_eq!(shape.iter().product::<usize>(), host.len());
        let data = dev.stream.clone_htod(host)?;
        Ok(Self { data, shape: shape.to_vec() })
    }

    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    pub fn gelu_(&mut self, dev: &Device) -> Result<(), DriverError> {
        let n = self.numel() as u32;
        unsafe {
            dev.stream
                .launch_builder(&dev.gelu)
                .arg(&mut self.data)
                .arg(&n)
                .launch(LaunchConfig::for_num_elems(n))?;
        }
        Ok(())
    }

    /// Copies the tensor into `out` and summarises it on the host.
    pub fn summarize_into(&self, dev: &Device, out: &mut PinnedHostSlice<f32>) -> Result<Summary, DriverError> {
        dev.stream.memcpy_dtoh(&self.data, out)?;
        let host = out.as_slice()?; // EXPECT: missing_sync
        let sum: f32 = host.iter().sum();
        let max = host.iter().copied().fold(f32::MIN, f32::max);
        Ok(Summary { mean: sum / self.numel() as f32, max })
    }
}

pub fn run() -> Result<Summary, Box<dyn Error>> {
    let dev = Device::open(0)?;
    let shape = [64usize, 1024];
    let n: usize = shape.iter().product();

    let mut input = dev.pinned(n)?;
    for (i, v) in input.as_mut_slice()?.iter_mut().enumerate() {
        *v = (i % 97) as f32 / 48.0 - 1.0;
    }
    let mut t = Tensor::from_pinned(&dev, &input, &shape)?;
    t.gelu_(&dev)?;

    let mut out = dev.pinned(n)?;
    let summary = t.summarize_into(&dev, &mut out)?;
    // Surface any asynchronous launch error before the buffers go away.
    dev.stream.synchronize()?;
    Ok(summary)
}
