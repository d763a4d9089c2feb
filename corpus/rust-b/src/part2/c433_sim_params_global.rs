//! case: a rigid-body simulation keeps controller gains in globally attached unified memory and retunes them on the host while the physics kernel (which does not use them) runs
//! expect: managed_concurrent_access=1
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const SIM_SRC: &str = r#"
extern "C" __global__ void integrate(float* pos, float* vel, float dt, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { vel[i] -= 9.81f * dt; pos[i] += vel[i] * dt; }
}
extern "C" __global__ void control(const float* gains, float* vel, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) vel[i] *= gains[i % 4];
}
"#;

pub struct Simulation {
    stream: Arc<CudaStream>,
    integrate: CudaFunction,
    control: CudaFunction,
    pos: CudaSlice<f32>,
    vel: CudaSlice<f32>,
    gains: UnifiedSlice<f32>,
}

impl Simulation {
    pub fn new(ctx: &Arc<CudaContext>, bodies: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let module = ctx.load_module(compile_ptx(SIM_SRC)?)?;
        let stream = ctx.new_stream()?;
        let mut gains = unsafe { ctx.alloc_unified::<f32>(4, true)? };
        gains.as_mut_slice()?.fill(1.0);
        Ok(Self {
            integrate: module.load_function("integrate")?,
            control: module.load_function("control")?,
            pos: stream.alloc_zeros(bodies)?,
            vel: stream.alloc_zeros(bodies)?,
            gains,
            stream,
        })
    }

    pub fn step(&mut self, dt: f32, damping: f32) -> Result<(), Box<dyn std::error::Error>> {
        let n = self.pos.len() as u32;
        let cfg = LaunchConfig::for_num_elems(n);
        unsafe { self.stream.launch_builder(&self.integrate).arg(&mut self.pos).arg(&mut self.vel).arg(&dt).arg(&n).launch(cfg)? };
        // retune while the integrator runs: the gains are only needed by `control`
        self.gains.as_mut_slice()?.iter_mut().for_each(|g| *g = 1.0 - damping * dt); // EXPECT: managed_concurrent_access
        unsafe { self.stream.launch_builder(&self.control).arg(&self.gains).arg(&mut self.vel).arg(&n).launch(cfg)? };
        self.stream.synchronize()?;
        Ok(())
    }
}

pub fn run(ctx: &Arc<CudaContext>, steps: usize) -> Result<(), Box<dyn std::error::Error>> {
    let mut sim = Simulation::new(ctx, 1 << 20)?;
    (0..steps).try_for_each(|s| sim.step(1e-3, if s < 100 { 0.5 } else { 0.1 }))
}
