//! case: the same kind of inference batcher, staged through pinned buffers: requests are written into write-combined pinned memory (host writes only), logits come back into cached pinned memory and are read after `stream.synchronize()`
//! expect: none

use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice,
    PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

const FEATURES: usize = 1024;
const CLASSES: usize = 512;
const MAX_BATCH: usize = 128;

const MLP_CU: &str = r#"
extern "C" __global__ void linear_relu(const float* x, const float* w, float* y,
                                       int rows, int in_dim, int out_dim) {
    int r = blockIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows || c >= out_dim) return;
    float acc = 0.f;
    for (int k = 0; k < in_dim; ++k) acc += x[r * in_dim + k] * w[c * in_dim + k];
    y[r * out_dim + c] = fmaxf(acc, 0.f);
}
"#;

pub trait Model {
    fn name(&self) -> &str;
    fn infer(&mut self, batch: &[&[f32]]) -> Result<Vec<Vec<f32>>, DriverError>;
}

pub struct GpuMlp {
    stream: Arc<CudaStream>,
    linear: CudaFunction,
    w: CudaSlice<f32>,
    x_dev: CudaSlice<f32>,
    y_dev: CudaSlice<f32>,
    upload: PinnedHostSlice<f32>,   // write-combined: the host only writes it
    download: PinnedHostSlice<f32>, // cached: the host reads it
}

impl GpuMlp {
    pub fn new(ctx: &Arc<CudaContext>, w: CudaSlice<f32>) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.default_stream();
        let linear = ctx.load_module(compile_ptx(MLP_CU)?)?.load_function("linear_relu")?;
        let x_dev = stream.alloc_zeros::<f32>(MAX_BATCH * FEATURES)?;
        let y_dev = stream.alloc_zeros::<f32>(MAX_BATCH * CLASSES)?;
        let upload = unsafe { ctx.alloc_pinned::<f32>(MAX_BATCH * FEATURES)? };
        let download = unsafe { ctx.alloc_pinned_with_flags::<f32>(MAX_BATCH * CLASSES, 0)? };
        Ok(Self { stream, linear, w, x_dev, y_dev, upload, download })
    }
}

impl Model for GpuMlp {
    fn name(&self) -> &str {
        "mlp-1024x512"
    }

    fn infer(&mut self, batch: &[&[f32]]) -> Result<Vec<Vec<f32>>, DriverError> {
        let rows = batch.len().min(MAX_BATCH);
        {
            let staging = self.upload.as_mut_slice()?;
            staging
                .chunks_mut(FEATURES)
                .zip(batch.iter().take(rows))
                .for_each(|(dst, src)| dst[..src.len().min(FEATURES)].copy_from_slice(&src[..src.len().min(FEATURES)]));
        }
        self.stream.memcpy_htod(&self.upload, &mut self.x_dev)?;
        let (r, i, o) = (rows as i32, FEATURES as i32, CLASSES as i32);
        let cfg = LaunchConfig { grid_dim: ((CLASSES as u32).div_ceil(128), rows as u32, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
        unsafe {
            self.stream
                .launch_builder(&self.linear)
                .arg(&self.x_dev)
                .arg(&self.w)
                .arg(&mut self.y_dev)
                .arg(&r)
                .arg(&i)
                .arg(&o)
                .launch(cfg)?;
        }
        self.stream.memcpy_dtoh(&self.y_dev, &mut self.download)?;
        self.stream.synchronize()?;
        let out = self.download.as_slice()?;
        Ok(out.chunks_exact(CLASSES).take(rows).map(<[f32]>::to_vec).collect())
    }
}

pub fn run_all(models: &mut [Box<dyn Model>], batch: &[&[f32]]) -> Result<Vec<(String, Vec<Vec<f32>>)>, DriverError> {
    models
        .iter_mut()
        .map(|m| Ok((m.name().to_string(), m.infer(batch)?)))
        .collect()
}
