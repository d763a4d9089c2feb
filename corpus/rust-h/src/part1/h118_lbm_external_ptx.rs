//! case: lattice-Boltzmann D2Q9 step whose collide-stream kernel comes from a prebuilt PTX file (source not visible); while it runs the host only reads the obstacle mask it staged in pinned memory and uploaded earlier (a host read of the source of a copy, and memory the kernel is never given); velocities come back after synchronize
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::Ptx;

pub struct LbmSolver {
    stream: Arc<CudaStream>,
    collide_stream: CudaFunction,
    f_in: CudaSlice<f32>,
    f_out: CudaSlice<f32>,
    d_obstacle: CudaSlice<u8>,
    d_velocity: CudaSlice<f32>,
    h_obstacle: PinnedHostSlice<u8>,
    h_velocity: PinnedHostSlice<f32>,
    nx: usize,
    ny: usize,
}

impl LbmSolver {
    pub fn new(ctx: &Arc<CudaContext>, nx: usize, ny: usize, ptx_dir: &str, cylinder: (usize, usize, usize)) -> Result<Self, DriverError> {
        let stream = ctx.default_stream();
        let module = ctx.load_module(Ptx::from_file(format!("{ptx_dir}/lbm_d2q9.ptx")))?;
        let collide_stream = module.load_function("lbm_collide_stream")?;
        let cells = nx * ny;

        // Obstacle mask: a cylinder of radius r at (cx, cy), staged once and uploaded.
        let (cx, cy, r) = cylinder;
        let mut h_obstacle = unsafe { ctx.alloc_pinned_with_flags::<u8>(cells, 0)? };
        h_obstacle.as_mut_slice()?.iter_mut().enumerate().for_each(|(i, m)| {
            let (x, y) = ((i % nx) as i64, (i / nx) as i64);
            *m = ((x - cx as i64).pow(2) + (y - cy as i64).pow(2) <= (r * r) as i64) as u8;
        });
        let mut d_obstacle = stream.alloc_zeros::<u8>(cells)?;
        stream.memcpy_htod(&h_obstacle, &mut d_obstacle)?;

        Ok(Self {
            f_in: stream.alloc_zeros::<f32>(9 * cells)?,
            f_out: stream.alloc_zeros::<f32>(9 * cells)?,
            d_obstacle,
            d_velocity: stream.alloc_zeros::<f32>(2 * cells)?,
            h_obstacle,
            h_velocity: unsafe { ctx.alloc_pinned_with_flags::<f32>(2 * cells, 0)? },
            stream,
            collide_stream,
            nx,
            ny,
        })
    }

    /// Runs `steps` steps; returns (solid fraction, max speed).
    pub fn advance(&mut self, steps: usize, omega: f32) -> Result<(f32, f32), DriverError> {
        let (nx, ny) = (self.nx as i32, self.ny as i32);
        let cfg = LaunchConfig { grid_dim: ((self.nx as u32).div_ceil(128), self.ny as u32, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
        for _ in 0..steps {
            let mut launch = self.stream.launch_builder(&self.collide_stream);
            launch.arg(&self.f_in).arg(&mut self.f_out).arg(&self.d_obstacle).arg(&mut self.d_velocity).arg(&nx).arg(&ny).arg(&omega);
            unsafe { launch.launch(cfg) }?;
            std::mem::swap(&mut self.f_in, &mut self.f_out);
        }
        // Host-side bookkeeping while the steps run: the mask is only ever written by the host.
        let mask = unsafe { std::slice::from_raw_parts(self.h_obstacle.as_ptr()?, self.nx * self.ny) };
        let solid = mask.iter().filter(|&&m| m != 0).count() as f32 / mask.len() as f32;

        self.stream.memcpy_dtoh(&self.d_velocity, &mut self.h_velocity)?;
        self.stream.synchronize()?;
        let vmax = self.h_velocity.as_slice()?.chunks_exact(2).map(|v| (v[0] * v[0] + v[1] * v[1]).sqrt()).fold(0f32, f32::max);
        Ok((solid, vmax))
    }
}
