use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

const HISTOGRAM_SRC: &str = r#"
extern "C" __global__ void byte_histogram(const unsigned char* data, unsigned int n, unsigned int* bins)
{
    __shared__ unsigned int local[256];
    for (unsigned int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (unsigned int b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}
"#;

pub const NUM_BINS: usize = 256;

/// Upload staging, device input, device bins and the pinned readback of one histogram job.
pub struct HistogramPipeline {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    /// Write-combined upload staging: the host only writes it.
    staging: PinnedHostSlice<u8>,
    input: CudaSlice<u8>,
    bins: CudaSlice<u32>,
    /// Ordinary (cached) pinned memory for the result.
    pub(crate) readback: PinnedHostSlice<u32>,
}

impl HistogramPipeline {
    pub fn new(ordinal: usize, capacity: usize) -> Result<Self, Box<dyn Error>> {
        let ctx = CudaContext::new(ordinal)?;
        // The whole job runs on the context's default stream.
        let stream = ctx.default_stream();
        let module = ctx.load_module(compile_ptx(HISTOGRAM_SRC)?)?;
        let kernel = module.load_function("byte_histogram")?;
        let staging = unsafe { ctx.alloc_pinned::<u8>(capacity)? };
        let readback = unsafe { ctx.alloc_pinned_with_flags::<u32>(NUM_BINS, 0)? };
        let input = stream.alloc_zeros::<u8>(capacity)?;
        let bins = stream.alloc_zeros::<u32>(NUM_BINS)?;
        Ok(Self { stream, kernel, staging, input, bins, readback })
    }

    /// Enqueues upload, histogram and readback; returns before any of it has run.
    pub fn submit(&mut self, data: &[u8]) -> Result<(), DriverError> {
        let n = data.len().min(self.staging.len());
        self.staging.as_mut_slice()?[..n].copy_from_slice(&data[..n]);
        self.stream.memcpy_htod(&self.staging, &mut self.input)?;
        self.stream.memset_zeros(&mut self.bins)?;

        let cfg = LaunchConfig { grid_dim: (120, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
        let n = n as u32;
        let mut launch = self.stream.launch_builder(&self.kernel);
        launch.arg(&self.input).arg(&n).arg(&mut self.bins);
        unsafe { launch.launch(cfg)? };

        self.stream.memcpy_dtoh(&self.bins, &mut self.readback)?;
        Ok(())
    }

    pub fn finish(&self) -> Result<(), DriverError> {
        self.stream.synchronize()
    }
}
