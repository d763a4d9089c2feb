//! case: N-body integrator that keeps positions in a host `Vec` and re-uploads them every step with `memcpy_htod`, and reads the velocities back with `clone_dtoh` into a new `Vec`: two copies whose host side is pageable memory of run-time size (slow, staged, no overlap); both are otherwise correct
//! expect: pageable_async_copy=2

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type BoxResult<T> = Result<T, Box<dyn std::error::Error>>;

const FORCES_SRC: &str = r#"
extern "C" __global__ void accumulate_forces(const float* pos, float* vel, int n, float dt, float soft2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float px = pos[4 * i], py = pos[4 * i + 1], pz = pos[4 * i + 2];
    float ax = 0.f, ay = 0.f, az = 0.f;
    for (int j = 0; j < n; ++j) {
        float dx = pos[4 * j] - px, dy = pos[4 * j + 1] - py, dz = pos[4 * j + 2] - pz;
        float inv = rsqrtf(dx * dx + dy * dy + dz * dz + soft2);
        float s = pos[4 * j + 3] * inv * inv * inv;
        ax += dx * s; ay += dy * s; az += dz * s;
    }
    vel[3 * i] += ax * dt; vel[3 * i + 1] += ay * dt; vel[3 * i + 2] += az * dt;
}
"#;

/// Something that advances particle positions on the host given velocities.
pub trait Integrator {
    fn drift(&self, positions: &mut [f32], velocities: &[f32], dt: f32);
}

pub struct LeapFrog;

impl Integrator for LeapFrog {
    fn drift(&self, positions: &mut [f32], velocities: &[f32], dt: f32) {
        positions
            .chunks_exact_mut(4)
            .zip(velocities.chunks_exact(3))
            .for_each(|(p, v)| {
                p[0] += v[0] * dt;
                p[1] += v[1] * dt;
                p[2] += v[2] * dt;
            });
    }
}

pub struct NBodySim<I: Integrator> {
    stream: Arc<CudaStream>,
    forces: CudaFunction,
    /// x, y, z, mass per body (galaxy runs use 10^5 to 10^6 bodies).
    positions: Vec<f32>,
    d_pos: CudaSlice<f32>,
    d_vel: CudaSlice<f32>,
    n_bodies: usize,
    integrator: I,
}

impl<I: Integrator> NBodySim<I> {
    pub fn new(ctx: &Arc<CudaContext>, positions: Vec<f32>, integrator: I) -> BoxResult<Self> {
        let n_bodies = positions.len() / 4;
        let stream = ctx.new_stream()?;
        let forces = ctx.load_module(compile_ptx(FORCES_SRC)?)?.load_function("accumulate_forces")?;
        let d_pos = stream.alloc_zeros::<f32>(positions.len())?;
        let d_vel = stream.alloc_zeros::<f32>(3 * n_bodies)?;
        Ok(Self { stream, forces, positions, d_pos, d_vel, n_bodies, integrator })
    }

    pub fn step(&mut self, dt: f32) -> BoxResult<f32> {
        self.stream.memcpy_htod(&self.positions, &mut self.d_pos)?; // EXPECT: pageable_async_copy

        let n = self.n_bodies as i32;
        let soft2 = 1e-4f32;
        let mut launch = self.stream.launch_builder(&self.forces);
        launch.arg(&self.d_pos).arg(&mut self.d_vel).arg(&n).arg(&dt).arg(&soft2);
        unsafe { launch.launch(LaunchConfig::for_num_elems(self.n_bodies as u32)) }?;

        // A copy into pageable memory returns only once it has completed.
        let velocities: Vec<f32> = self.stream.clone_dtoh(&self.d_vel)?; // EXPECT: pageable_async_copy
        self.integrator.drift(&mut self.positions, &velocities, dt);

        let kinetic = self
            .positions
            .chunks_exact(4)
            .zip(velocities.chunks_exact(3))
            .map(|(p, v)| 0.5 * p[3] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]))
            .sum();
        Ok(kinetic)
    }
}

pub fn simulate(ctx: &Arc<CudaContext>, initial: Vec<f32>, steps: usize) -> BoxResult<Vec<f32>> {
    let mut sim = NBodySim::new(ctx, initial, LeapFrog)?;
    (0..steps).map(|_| sim.step(1e-3)).collect()
}
