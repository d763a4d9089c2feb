//! case: tokenizer service that writes a 16-entry `__constant__` scale table through `CudaModule::get_global` from a stack array (64 bytes, below the pageable threshold) and reads kernel output from non-write-combined pinned memory after `stream.synchronize()`; the module global is never freed
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const NORM_SRC: &str = r#"
__constant__ float c_scale[16];
extern "C" __global__ void bucket_scale(const float* x, const unsigned* bucket, float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * c_scale[bucket[i] & 15];
}
"#;

pub struct BucketNormalizer {
    stream: Arc<CudaStream>,
    module: Arc<CudaModule>,
    scale: CudaFunction,
    out_host: PinnedHostSlice<f32>,
}

impl BucketNormalizer {
    pub fn new(ctx: &Arc<CudaContext>, max_len: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let module = ctx.load_module(compile_ptx(NORM_SRC)?)?;
        let scale = module.load_function("bucket_scale")?;
        let out_host = unsafe { ctx.alloc_pinned_with_flags::<f32>(max_len, 0)? };
        Ok(Self { stream, module, scale, out_host })
    }

    pub fn set_scales(&self, scales: [f32; 16]) -> Result<(), DriverError> {
        let mut symbol = self.module.get_global("c_scale", &self.stream)?;
        let mut table = unsafe { symbol.transmute_mut::<f32>(16) }.expect("c_scale holds 16 floats");
        self.stream.memcpy_htod(&scales, &mut table)
    }

    pub fn normalize(&mut self, x: &CudaSlice<f32>, buckets: &CudaSlice<u32>) -> Result<Vec<f32>, DriverError> {
        let n = x.len() as u32;
        let mut y = self.stream.alloc_zeros::<f32>(x.len())?;
        unsafe { self.stream.launch_builder(&self.scale).arg(x).arg(buckets).arg(&mut y).arg(&n).launch(LaunchConfig::for_num_elems(n))? };
        self.stream.memcpy_dtoh(&y, &mut self.out_host)?;
        self.stream.synchronize()?;
        Ok(self.out_host.as_slice()?[..x.len()].to_vec())
    }
}
