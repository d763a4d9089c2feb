//! case: a reduction writes its result into a UnifiedSlice through the launch builder on the default stream; cudarc records the slice's event on every launch, so as_slice waits for the kernel
//! expect: none
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void block_sums(const float* x, float* sums, unsigned n) {
    __shared__ float s[256];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = s[0];
}
"#;

pub struct Reducer {
    stream: Arc<CudaStream>,
    f: CudaFunction,
    partial: UnifiedSlice<f32>,
}

impl Reducer {
    pub fn new(ctx: &Arc<CudaContext>, max_blocks: usize) -> Result<Self, Box<dyn std::error::Error>> {
        Ok(Self {
            stream: ctx.default_stream(),
            f: ctx.load_module(compile_ptx(SRC)?)?.load_function("block_sums")?,
            partial: unsafe { ctx.alloc_unified::<f32>(max_blocks, true)? },
        })
    }

    pub fn sum(&mut self, x: &CudaSlice<f32>) -> Result<f64, Box<dyn std::error::Error>> {
        let n = x.len() as u32;
        let cfg = LaunchConfig::for_num_elems(n);
        let blocks = cfg.grid_dim.0 as usize;
        assert!(blocks <= self.partial.len());
        unsafe { self.stream.launch_builder(&self.f).arg(x).arg(&mut self.partial).arg(&n).launch(cfg)? };
        // as_slice synchronizes the event the launch recorded on `partial`
        let partial = self.partial.as_slice()?;
        Ok(partial[..blocks].iter().map(|&v| v as f64).sum())
    }
}
