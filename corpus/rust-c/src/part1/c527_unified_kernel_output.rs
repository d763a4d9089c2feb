//! case: the kernel writes its output straight into a cudarc `UnifiedSlice` passed to the launch builder; cudarc records the slice's event at every launch that takes it (whatever the stream count), and `as_slice` synchronizes that event before the host reads
//! expect: none
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const NORM_SRC: &str = r#"
extern "C" __global__ void l2_normalize_rows(const float* x, float* out, int rows, int dim) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float s = 0.0f;
    for (int k = 0; k < dim; ++k) s += x[r * dim + k] * x[r * dim + k];
    float inv = rsqrtf(fmaxf(s, 1e-24f));
    for (int k = 0; k < dim; ++k) out[r * dim + k] = x[r * dim + k] * inv;
}
"#;

pub struct RowNormalizer {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    out: UnifiedSlice<f32>,
    rows: usize,
    dim: usize,
}

impl RowNormalizer {
    pub fn new(ctx: &Arc<CudaContext>, rows: usize, dim: usize) -> Result<Self, Box<dyn std::error::Error>> {
        Ok(Self {
            stream: ctx.default_stream(),
            kernel: ctx.load_module(compile_ptx(NORM_SRC)?)?.load_function("l2_normalize_rows")?,
            out: unsafe { ctx.alloc_unified::<f32>(rows * dim, true)? },
            rows,
            dim,
        })
    }

    /// Cosine similarity of every row with row 0, computed on the host from unified memory.
    pub fn similarities(&mut self, x: &CudaSlice<f32>) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
        let (rows, dim) = (self.rows as i32, self.dim as i32);
        unsafe {
            self.stream
                .launch_builder(&self.kernel)
                .arg(x)
                .arg(&mut self.out)
                .arg(&rows)
                .arg(&dim)
                .launch(LaunchConfig::for_num_elems(self.rows as u32))?;
        }
        let out = self.out.as_slice()?;
        let first = &out[..self.dim];
        Ok(out
            .chunks_exact(self.dim)
            .map(|row| row.iter().zip(first).map(|(a, b)| a * b).sum())
            .collect())
    }
}
