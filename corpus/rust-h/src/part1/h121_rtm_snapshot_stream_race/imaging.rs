use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use super::streams::StreamPair;

type BoxResult<T> = Result<T, Box<dyn std::error::Error>>;

const PROPAGATE_SRC: &str = r#"
extern "C" __global__ void propagate(float* u, float* u_prev, const float* vel, int nx, int nz, int t) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, z = blockIdx.y;
    if (x <= 0 || x >= nx - 1 || z <= 0 || z >= nz - 1) return;
    int i = z * nx + x;
    float lap = u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] - 4.f * u[i];
    float c = vel[i] * 1e-3f;
    float next = 2.f * u[i] - u_prev[i] + c * c * lap;
    if (x == nx / 2 && z == 1) next += __sinf(0.05f * t) * __expf(-0.001f * t);
    u_prev[i] = next;
}
"#;

pub struct ForwardModel {
    pair: StreamPair,
    kernel: CudaFunction,
    d_u: CudaSlice<f32>,
    d_u_prev: CudaSlice<f32>,
    d_vel: CudaSlice<f32>,
    h_snapshot: PinnedHostSlice<f32>,
    nx: usize,
    nz: usize,
}

impl ForwardModel {
    pub fn new(ctx: &Arc<CudaContext>, pair: StreamPair, nx: usize, nz: usize) -> BoxResult<Self> {
        let kernel = ctx.load_module(compile_ptx(PROPAGATE_SRC)?)?.load_function("propagate")?;
        let cells = nx * nz;
        let d_u = pair.compute.alloc_zeros::<f32>(cells)?;
        let d_u_prev = pair.compute.alloc_zeros::<f32>(cells)?;
        let d_vel = pair.compute.alloc_zeros::<f32>(cells)?;
        let h_snapshot = unsafe { ctx.alloc_pinned_with_flags::<f32>(cells, 0)? };
        pair.compute.synchronize()?;
        Ok(Self { pair, kernel, d_u, d_u_prev, d_vel, h_snapshot, nx, nz })
    }

    pub fn load_velocity(&mut self, velocity: &Vec<f32>) -> BoxResult<()> {
        self.pair.compute.memcpy_htod(velocity, &mut self.d_vel)?; // EXPECT: pageable_async_copy
        Ok(())
    }

    pub fn propagate(&mut self, t: usize) -> BoxResult<()> {
        let (nx, nz, t) = (self.nx as i32, self.nz as i32, t as i32);
        let cfg = LaunchConfig { grid_dim: ((self.nx as u32).div_ceil(256), self.nz as u32, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
        let mut launch = self.pair.compute.launch_builder(&self.kernel);
        launch.arg(&mut self.d_u).arg(&mut self.d_u_prev).arg(&self.d_vel).arg(&nx).arg(&nz).arg(&t);
        unsafe { launch.launch(cfg) }?;
        std::mem::swap(&mut self.d_u, &mut self.d_u_prev);
        Ok(())
    }

    /// Saves the current wavefield on the copy stream so propagation can continue meanwhile.
    pub fn snapshot_energy(&mut self) -> BoxResult<f64> {
        self.pair.copy.memcpy_dtoh(&self.d_u, &mut self.h_snapshot)?; // EXPECT: missing_sync
        self.pair.copy.synchronize()?;
        Ok(self.h_snapshot.as_slice()?.iter().map(|&v| (v as f64) * (v as f64)).sum())
    }
}
