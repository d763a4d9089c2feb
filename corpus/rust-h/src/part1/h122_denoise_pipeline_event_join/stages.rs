use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type BoxResult<T> = Result<T, Box<dyn std::error::Error>>;

const BILATERAL_SRC: &str = r#"
extern "C" __global__ void bilateral3(float* img, int w, int h, float inv_s2, float inv_r2) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x <= 0 || y <= 0 || x >= w - 1 || y >= h - 1) return;
    float c = img[y * w + x], acc = 0.f, norm = 0.f;
    for (int dy = -1; dy <= 1; ++dy) for (int dx = -1; dx <= 1; ++dx) {
        float v = img[(y + dy) * w + x + dx];
        float wgt = __expf(-(dx * dx + dy * dy) * inv_s2 - (v - c) * (v - c) * inv_r2);
        acc += wgt * v; norm += wgt;
    }
    img[y * w + x] = acc / norm;
}
"#;

const TEMPORAL_SRC: &str = r#"
extern "C" __global__ void ema(float* img, float* history, int n, float alpha) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = alpha * history[i] + (1.f - alpha) * img[i];
    history[i] = v; img[i] = v;
}
"#;

/// One in-place processing step on a frame resident on the device.
pub trait Stage {
    fn name(&self) -> &'static str;
    fn enqueue(&mut self, stream: &Arc<CudaStream>, frame: &mut CudaSlice<f32>, width: usize, height: usize) -> Result<(), DriverError>;
}

pub struct BilateralStage {
    kernel: CudaFunction,
    inv_s2: f32,
    inv_r2: f32,
}

impl BilateralStage {
    pub fn new(ctx: &Arc<CudaContext>, sigma_s: f32, sigma_r: f32) -> BoxResult<Self> {
        let kernel = ctx.load_module(compile_ptx(BILATERAL_SRC)?)?.load_function("bilateral3")?;
        Ok(Self { kernel, inv_s2: 1.0 / (2.0 * sigma_s * sigma_s), inv_r2: 1.0 / (2.0 * sigma_r * sigma_r) })
    }
}

impl Stage for BilateralStage {
    fn name(&self) -> &'static str {
        "bilateral"
    }

    fn enqueue(&mut self, stream: &Arc<CudaStream>, frame: &mut CudaSlice<f32>, width: usize, height: usize) -> Result<(), DriverError> {
        let (w, h) = (width as i32, height as i32);
        let cfg = LaunchConfig { grid_dim: ((width as u32).div_ceil(128), height as u32, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
        let mut launch = stream.launch_builder(&self.kernel);
        launch.arg(frame).arg(&w).arg(&h).arg(&self.inv_s2).arg(&self.inv_r2);
        unsafe { launch.launch(cfg) }?;
        Ok(())
    }
}

pub struct TemporalStage {
    kernel: CudaFunction,
    history: Option<CudaSlice<f32>>,
    pixels: usize,
    alpha: f32,
}

impl TemporalStage {
    pub fn new(ctx: &Arc<CudaContext>, pixels: usize, alpha: f32) -> BoxResult<Self> {
        let kernel = ctx.load_module(compile_ptx(TEMPORAL_SRC)?)?.load_function("ema")?;
        Ok(Self { kernel, history: None, pixels, alpha })
    }
}

impl Stage for TemporalStage {
    fn name(&self) -> &'static str {
        "temporal"
    }

    fn enqueue(&mut self, stream: &Arc<CudaStream>, frame: &mut CudaSlice<f32>, _w: usize, _h: usize) -> Result<(), DriverError> {
        if self.history.is_none() {
            let mut first = stream.alloc_zeros::<f32>(self.pixels)?;
            stream.memcpy_dtod(frame, &mut first)?;
            self.history = Some(first);
        }
        let history = self.history.as_mut().expect("initialized above");
        let n = self.pixels as i32;
        let mut launch = stream.launch_builder(&self.kernel);
        launch.arg(frame).arg(history).arg(&n).arg(&self.alpha);
        unsafe { launch.launch(LaunchConfig::for_num_elems(self.pixels as u32)) }?;
        Ok(())
    }
}
