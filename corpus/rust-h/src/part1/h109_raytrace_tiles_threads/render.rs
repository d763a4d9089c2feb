use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const TRACE_SRC: &str = r#"
extern "C" __global__ void trace_tile(const float* params, float* rgb, int tile) {
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= tile || py >= tile) return;
    float u = params[5] + px * params[7], v = params[6] + py * params[7];
    float dx = (2.f * u - 1.f) * params[3], dy = (1.f - 2.f * v) * params[4], dz = -1.f;
    float inv = rsqrtf(dx * dx + dy * dy + dz * dz);
    dx *= inv; dy *= inv; dz *= inv;
    // one unit sphere at (0, 0, -3)
    float ox = params[0], oy = params[1], oz = params[2] + 3.f;
    float b = ox * dx + oy * dy + oz * dz, c = ox * ox + oy * oy + oz * oz - 1.f;
    float disc = b * b - c;
    float shade = disc > 0.f ? fmaxf(0.f, -(b + sqrtf(disc))) : 0.f;
    int i = 3 * (py * tile + px);
    rgb[i] = shade; rgb[i + 1] = 0.5f * shade; rgb[i + 2] = disc > 0.f ? 0.2f : 0.6f + 0.4f * v;
}
"#;

pub struct TileRenderer {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    d_params: CudaSlice<f32>,
    d_rgb: CudaSlice<f32>,
    h_rgb: PinnedHostSlice<f32>,
}

impl TileRenderer {
    pub fn new(ctx: &Arc<CudaContext>, pixels: usize) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        let stream = ctx.new_stream()?;
        let kernel = ctx.load_module(compile_ptx(TRACE_SRC)?)?.load_function("trace_tile")?;
        let d_params = stream.alloc_zeros::<f32>(8)?;
        let d_rgb = stream.alloc_zeros::<f32>(3 * pixels)?;
        let h_rgb = unsafe { ctx.alloc_pinned_with_flags::<f32>(3 * pixels, 0)? };
        Ok(Self { stream, kernel, d_params, d_rgb, h_rgb })
    }

    pub fn render(&mut self, params: &[f32; 8]) -> Result<Vec<f32>, cudarc::driver::DriverError> {
        self.stream.memcpy_htod(params, &mut self.d_params)?;
        let tile = 64i32;
        let cfg = LaunchConfig { grid_dim: (4, 4, 1), block_dim: (16, 16, 1), shared_mem_bytes: 0 };
        let mut launch = self.stream.launch_builder(&self.kernel);
        launch.arg(&self.d_params).arg(&mut self.d_rgb).arg(&tile);
        unsafe { launch.launch(cfg) }?;
        self.stream.memcpy_dtoh(&self.d_rgb, &mut self.h_rgb)?;
        self.stream.synchronize()?;
        Ok(self.h_rgb.as_slice()?.to_vec())
    }
}
