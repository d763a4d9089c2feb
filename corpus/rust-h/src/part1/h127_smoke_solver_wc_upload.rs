//! case: smoke simulation that streams boundary conditions in through cudarc's write-combined `alloc_pinned` buffer (host writes only, through `as_mut_slice`, which in multi-stream mode waits for the previous upload's event) and reads the density field back into a separate plain pinned buffer after synchronizing
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const ADVECT_SRC: &str = r#"
extern "C" __global__ void advect_density(const float* inflow, float* density, int nx, int ny, float decay) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= nx || y >= ny) return;
    int i = y * nx + x;
    float up = y > 0 ? density[i - nx] : inflow[x];
    density[i] = decay * (0.5f * density[i] + 0.5f * up);
}
"#;

pub trait InflowProfile {
    fn value(&self, x: f32, t: f32) -> f32;
}

pub struct PulsingJet {
    pub center: f32,
    pub width: f32,
    pub period: f32,
}

impl InflowProfile for PulsingJet {
    fn value(&self, x: f32, t: f32) -> f32 {
        let envelope = (-((x - self.center) / self.width).powi(2)).exp();
        envelope * (0.5 + 0.5 * (std::f32::consts::TAU * t / self.period).sin())
    }
}

pub struct SmokeSolver<P: InflowProfile> {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    inflow_staging: PinnedHostSlice<f32>,
    density_readback: PinnedHostSlice<f32>,
    d_inflow: CudaSlice<f32>,
    d_density: CudaSlice<f32>,
    nx: usize,
    ny: usize,
    profile: P,
}

impl<P: InflowProfile> SmokeSolver<P> {
    pub fn new(ctx: &Arc<CudaContext>, nx: usize, ny: usize, profile: P) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        Ok(Self {
            kernel: ctx.load_module(compile_ptx(ADVECT_SRC)?)?.load_function("advect_density")?,
            // Write-combined: the host only ever writes this one.
            inflow_staging: unsafe { ctx.alloc_pinned::<f32>(nx)? },
            density_readback: unsafe { ctx.alloc_pinned_with_flags::<f32>(nx * ny, 0)? },
            d_inflow: stream.alloc_zeros::<f32>(nx)?,
            d_density: stream.alloc_zeros::<f32>(nx * ny)?,
            stream,
            nx,
            ny,
            profile,
        })
    }

    pub fn advance(&mut self, frames: usize, dt: f32) -> Result<(), DriverError> {
        let (nx, ny, decay) = (self.nx as i32, self.ny as i32, 0.995f32);
        let cfg = LaunchConfig { grid_dim: ((self.nx as u32).div_ceil(128), self.ny as u32, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
        for frame in 0..frames {
            let t = frame as f32 * dt;
            let width = self.nx as f32;
            let profile = &self.profile;
            self.inflow_staging
                .as_mut_slice()?
                .iter_mut()
                .enumerate()
                .for_each(|(x, v)| *v = profile.value(x as f32 / width, t));
            self.stream.memcpy_htod(&self.inflow_staging, &mut self.d_inflow)?;
            let mut launch = self.stream.launch_builder(&self.kernel);
            launch.arg(&self.d_inflow).arg(&mut self.d_density).arg(&nx).arg(&ny).arg(&decay);
            unsafe { launch.launch(cfg) }?;
        }
        Ok(())
    }

    /// Total smoke mass and the densest row.
    pub fn diagnostics(&mut self) -> Result<(f32, usize), DriverError> {
        self.stream.memcpy_dtoh(&self.d_density, &mut self.density_readback)?;
        self.stream.synchronize()?;
        let field = self.density_readback.as_slice()?;
        let mass = field.iter().sum();
        let densest = field
            .chunks_exact(self.nx)
            .map(|row| row.iter().sum::<f32>())
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map_or(0, |(y, _)| y);
        Ok((mass, densest))
    }
}
