//! case: a statistics engine picks a backend at run time behind `Box<dyn Backend>`; the CUDA backend's `load` copies the caller's column (any length) into its device buffer with cudarc's `memcpy_htod` from a plain `&[f32]`, a pageable source; its two-value readback into a `[f32; 2]` is far below the size threshold
//! expect: pageable_async_copy=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type BoxError = Box<dyn std::error::Error>;

pub trait Backend {
    fn name(&self) -> &'static str;
    fn load(&mut self, column: &[f32]) -> Result<(), BoxError>;
    fn variance(&mut self) -> Result<f32, BoxError>;
}

pub struct CpuBackend {
    data: Vec<f32>,
}

impl Backend for CpuBackend {
    fn name(&self) -> &'static str {
        "cpu"
    }
    fn load(&mut self, column: &[f32]) -> Result<(), BoxError> {
        self.data = column.to_vec();
        Ok(())
    }
    fn variance(&mut self) -> Result<f32, BoxError> {
        let n = self.data.len().max(1) as f32;
        let mean = self.data.iter().sum::<f32>() / n;
        Ok(self.data.iter().map(|x| (x - mean) * (x - mean)).sum::<f32>() / n)
    }
}

const MOMENTS_SRC: &str = r#"
extern "C" __global__ void moments(const float* x, unsigned int n, float* sums) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { atomicAdd(&sums[0], x[i]); atomicAdd(&sums[1], x[i] * x[i]); }
}
"#;

pub struct CudaBackend {
    stream: Arc<CudaStream>,
    moments: CudaFunction,
    data: CudaSlice<f32>,
    len: usize,
}

impl CudaBackend {
    pub fn new(capacity: usize) -> Result<Self, BoxError> {
        let ctx = CudaContext::new(0)?;
        let stream = ctx.default_stream();
        Ok(Self {
            moments: ctx.load_module(compile_ptx(MOMENTS_SRC)?)?.load_function("moments")?,
            data: stream.alloc_zeros::<f32>(capacity)?,
            stream,
            len: 0,
        })
    }
}

impl Backend for CudaBackend {
    fn name(&self) -> &'static str {
        "cuda"
    }
    fn load(&mut self, column: &[f32]) -> Result<(), BoxError> {
        let mut dst = self.data.slice_mut(..column.len());
        self.stream.memcpy_htod(column, &mut dst)?; // EXPECT: pageable_async_copy
        self.len = column.len();
        Ok(())
    }
    fn variance(&mut self) -> Result<f32, BoxError> {
        let mut sums = self.stream.alloc_zeros::<f32>(2)?;
        let n = self.len as u32;
        let mut launch = self.stream.launch_builder(&self.moments);
        launch.arg(&self.data).arg(&n).arg(&mut sums);
        unsafe { launch.launch(LaunchConfig::for_num_elems(n)) }?;
        let mut host = [0.0f32; 2];
        self.stream.memcpy_dtoh(&sums, &mut host)?;
        let nf = n.max(1) as f32;
        let mean = host[0] / nf;
        Ok(host[1] / nf - mean * mean)
    }
}

pub fn pick_backend(prefer_gpu: bool, capacity: usize) -> Box<dyn Backend> {
    if prefer_gpu {
        match CudaBackend::new(capacity) {
            Ok(b) => return Box::new(b),
            Err(e) => eprintln!("falling back to CPU: {e}"),
        }
    }
    Box::new(CpuBackend { data: Vec::new() })
}

pub fn column_variances(backend: &mut dyn Backend, columns: &[Vec<f32>]) -> Result<Vec<f32>, BoxError> {
    columns
        .iter()
        .map(|c| {
            backend.load(c)?;
            backend.variance()
        })
        .collect()
}
