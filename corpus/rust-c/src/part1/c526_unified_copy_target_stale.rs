//! case: a feature-extraction step copies device results into a cudarc `UnifiedSlice` with `memcpy_dtoh` on the only (default) stream and reads it with `as_slice`; with one stream cudarc records no event for the copy, so `as_slice` does not wait for it
//! expect: missing_sync=1
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const POOL_SRC: &str = r#"
extern "C" __global__ void mean_pool(const float* tokens, float* pooled, int seq, int dim) {
    int d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d >= dim) return;
    float s = 0.0f;
    for (int t = 0; t < seq; ++t) s += tokens[t * dim + d];
    pooled[d] = s / seq;
}
"#;

pub struct Embedder {
    stream: Arc<CudaStream>,
    pool: CudaFunction,
    pooled: CudaSlice<f32>,
    features: UnifiedSlice<f32>,
}

impl Embedder {
    pub fn new(dim: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let ctx = CudaContext::new(0)?;
        let stream = ctx.default_stream();
        let pool = ctx.load_module(compile_ptx(POOL_SRC)?)?.load_function("mean_pool")?;
        let pooled = stream.alloc_zeros::<f32>(dim)?;
        let features = unsafe { ctx.alloc_unified::<f32>(dim, true)? };
        Ok(Self { stream, pool, pooled, features })
    }

    pub fn embed(&mut self, tokens: &CudaSlice<f32>, seq: usize) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
        let dim = self.pooled.len() as i32;
        let seq = seq as i32;
        unsafe {
            self.stream
                .launch_builder(&self.pool)
                .arg(tokens)
                .arg(&mut self.pooled)
                .arg(&seq)
                .arg(&dim)
                .launch(LaunchConfig::for_num_elems(dim as u32))?;
        }
        self.stream.memcpy_dtoh(&self.pooled, &mut self.features)?;
        let feats = self.features.as_slice()?; // EXPECT: missing_sync
        let norm = feats.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
        Ok(feats.iter().map(|x| x / norm).collect())
    }
}
