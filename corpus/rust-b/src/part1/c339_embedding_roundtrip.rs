//! case: an embedding service clones query vectors to the device and back with cudarc's clone_htod/clone_dtoh, mapped over a batch
//! expect: pageable_async_copy=2
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaStream, LaunchConfig, PushKernelArg};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

const NORM_SRC: &str = r#"
extern "C" __global__ void l2_normalize(float* v, unsigned n) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    float s = 0.0f;
    for (unsigned i = 0; i < n; ++i) s += v[i] * v[i];
    s = rsqrtf(s + 1e-12f);
    for (unsigned i = 0; i < n; ++i) v[i] *= s;
}
"#;

pub struct Embedder {
    stream: Arc<CudaStream>,
    norm: CudaFunction,
}

impl Embedder {
    pub fn new() -> Res<Self> {
        let ctx = CudaContext::new(0)?;
        let stream = ctx.default_stream();
        let norm = ctx.load_module(cudarc::nvrtc::compile_ptx(NORM_SRC)?)?.load_function("l2_normalize")?;
        Ok(Self { stream, norm })
    }

    fn normalize_one(&self, v: &Vec<f32>) -> Res<Vec<f32>> {
        let mut d = self.stream.clone_htod(v)?; // EXPECT: pageable_async_copy
        let n = v.len() as u32;
        let cfg = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1, 1, 1), shared_mem_bytes: 0 };
        unsafe { self.stream.launch_builder(&self.norm).arg(&mut d).arg(&n).launch(cfg) }?;
        // A Vec destination: the copy is complete when clone_dtoh returns.
        Ok(self.stream.clone_dtoh(&d)?) // EXPECT: pageable_async_copy
    }

    pub fn normalize_batch(&self, batch: &[Vec<f32>]) -> Res<Vec<Vec<f32>>> {
        batch.iter().map(|v| self.normalize_one(v)).collect()
    }
}
