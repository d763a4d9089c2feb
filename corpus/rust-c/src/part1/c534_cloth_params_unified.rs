//! case: a cloth simulation keeps its per-frame parameters in a cudarc `UnifiedSlice` (attached globally); after enqueuing the solve (uses the parameters) and the integrate kernel (does not), it writes next frame's wind into the parameters: `as_mut_slice` waits for the solve's event only, the integrate kernel may still run
//! expect: managed_concurrent_access=1
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const CLOTH_SRC: &str = r#"
extern "C" __global__ void solve_constraints(const float* params, float* pos, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + 1 >= n) return;
    float rest = params[3], k = params[4];
    float d = pos[i + 1] - pos[i];
    pos[i] += 0.5f * k * (d - rest);
}
extern "C" __global__ void integrate(float* pos, float* vel, float dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    vel[i] *= 0.99f;
    pos[i] += vel[i] * dt;
}
"#;

pub struct ClothSim {
    stream: Arc<CudaStream>,
    solve: CudaFunction,
    integrate: CudaFunction,
    params: UnifiedSlice<f32>, // wind xyz, rest length, stiffness
    pos: CudaSlice<f32>,
    vel: CudaSlice<f32>,
}

impl ClothSim {
    pub fn new(ctx: &Arc<CudaContext>, n: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let module = ctx.load_module(compile_ptx(CLOTH_SRC)?)?;
        let stream = ctx.default_stream();
        let mut params = unsafe { ctx.alloc_unified::<f32>(5, true)? };
        params.as_mut_slice()?.copy_from_slice(&[0.0, 0.0, 0.0, 0.01, 0.8]);
        Ok(Self {
            solve: module.load_function("solve_constraints")?,
            integrate: module.load_function("integrate")?,
            pos: stream.alloc_zeros::<f32>(n)?,
            vel: stream.alloc_zeros::<f32>(n)?,
            params,
            stream,
        })
    }

    pub fn step(&mut self, dt: f32, next_wind: [f32; 3]) -> Result<(), Box<dyn std::error::Error>> {
        let n = self.pos.len() as i32;
        let cfg = LaunchConfig::for_num_elems(n as u32);
        unsafe {
            self.stream.launch_builder(&self.solve).arg(&self.params).arg(&mut self.pos).arg(&n).launch(cfg)?;
            self.stream.launch_builder(&self.integrate).arg(&mut self.pos).arg(&mut self.vel).arg(&dt).arg(&n).launch(cfg)?;
        }
        // Prepare the next frame while the integrator runs.
        self.params.as_mut_slice()?[..3].copy_from_slice(&next_wind); // EXPECT: managed_concurrent_access
        Ok(())
    }
}
