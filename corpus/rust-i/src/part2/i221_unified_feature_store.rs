//! case: online feature store (cudarc, only the context's default stream) keeping features in a UnifiedSlice: after the normalize kernel, as_slice waits on the event the launch records for the unified argument (fine); after refreshing the features with memcpy_dtoh, no event is recorded with a single stream and as_slice reads while the copy is in flight
//! expect: missing_sync=1

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;
use std::sync::Arc;

const NORMALIZE_SRC: &str = r#"
extern "C" __global__ void l2_normalize_rows(float* x, unsigned rows, unsigned dim) {
    unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float s = 0.0f;
    for (unsigned d = 0; d < dim; ++d) s += x[r * dim + d] * x[r * dim + d];
    float inv = s > 0.0f ? rsqrtf(s) : 0.0f;
    for (unsigned d = 0; d < dim; ++d) x[r * dim + d] *= inv;
}
"#;

pub struct FeatureStore {
    stream: Arc<CudaStream>,
    normalize: CudaFunction,
    features: UnifiedSlice<f32>,
    rows: usize,
    dim: usize,
    version: u64,
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

impl FeatureStore {
    pub fn new(ctx: &Arc<CudaContext>, rows: usize, dim: usize) -> Res<Self> {
        let normalize = ctx.load_module(compile_ptx(NORMALIZE_SRC)?)?.load_function("l2_normalize_rows")?;
        let mut features = unsafe { ctx.alloc_unified::<f32>(rows * dim, true)? };
        features.as_mut_slice()?.fill(0.0);
        Ok(FeatureStore { stream: ctx.default_stream(), normalize, features, rows, dim, version: 0 })
    }

    pub fn normalize(&mut self) -> Res<()> {
        let rows = self.rows as u32;
        let dim = self.dim as u32;
        unsafe {
            self.stream
                .launch_builder(&self.normalize)
                .arg(&mut self.features)
                .arg(&rows)
                .arg(&dim)
                .launch(LaunchConfig::for_num_elems(rows))?;
        }
        Ok(())
    }

    /// Reads one row; after `normalize` the unified slice's own event orders this read.
    pub fn row(&self, r: usize) -> Res<Vec<f32>> {
        Ok(self.features.as_slice()?[r * self.dim..(r + 1) * self.dim].to_vec())
    }

    /// Pulls the latest training snapshot from the trainer's device buffer and returns the
    /// norm of row 0 as a cheap consistency probe.
    pub fn refresh_from(&mut self, snapshot: &CudaSlice<f32>) -> Res<f32> {
        self.stream.memcpy_dtoh(snapshot, &mut self.features)?;
        self.version += 1;
        let probe: f32 = self.features.as_slice()?[..self.dim].iter().map(|v| v * v).sum::<f32>().sqrt(); // EXPECT: missing_sync
        Ok(probe)
    }

    pub fn version(&self) -> u64 {
        self.version
    }
}
