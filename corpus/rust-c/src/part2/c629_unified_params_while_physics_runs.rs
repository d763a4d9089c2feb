//! case: a cloth simulation keeps its tunable parameters in a cudarc `UnifiedSlice` (attached globally) and lets the UI thread's values be written into it right after launching the collision kernel, which does not use the parameters but is still running
//! expect: managed_concurrent_access=1

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const CLOTH_SRC: &str = r#"
extern "C" __global__ void collide_sphere(float* pos, unsigned n, float cx, float cy, float cz, float r) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float dx = pos[3*i] - cx, dy = pos[3*i+1] - cy, dz = pos[3*i+2] - cz;
    float d = sqrtf(dx*dx + dy*dy + dz*dz);
    if (d < r && d > 0.f) { float s = r / d; pos[3*i] = cx + dx*s; pos[3*i+1] = cy + dy*s; pos[3*i+2] = cz + dz*s; }
}
extern "C" __global__ void integrate(float* pos, float* prev, const float* params, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 3 * n) return;
    float dt = params[0], damping = params[1], gravity = params[2];
    float p = pos[i], q = prev[i];
    float a = (i % 3 == 1) ? -gravity : 0.f;
    pos[i] = p + (p - q) * damping + a * dt * dt;
    prev[i] = p;
}
"#;

#[derive(Clone, Copy, Debug)]
pub struct UiParams {
    pub dt: f32,
    pub damping: f32,
    pub gravity: f32,
}

pub struct Cloth {
    collide_stream: Arc<CudaStream>,
    step_stream: Arc<CudaStream>,
    collide: CudaFunction,
    integrate: CudaFunction,
    pos: CudaSlice<f32>,
    prev: CudaSlice<f32>,
    params: UnifiedSlice<f32>,
    n: u32,
}

impl Cloth {
    pub fn new(ctx: &Arc<CudaContext>, n: usize) -> Result<Self, Box<dyn Error>> {
        let module = ctx.load_module(compile_ptx(CLOTH_SRC)?)?;
        let step_stream = ctx.new_stream()?;
        let collide_stream = ctx.new_stream()?;
        let mut params = unsafe { ctx.alloc_unified::<f32>(4, true)? };
        params.as_mut_slice()?.copy_from_slice(&[1.0 / 60.0, 0.99, 9.81, 0.0]);
        Ok(Self {
            collide: module.load_function("collide_sphere")?,
            integrate: module.load_function("integrate")?,
            pos: step_stream.alloc_zeros::<f32>(3 * n)?,
            prev: step_stream.alloc_zeros::<f32>(3 * n)?,
            params,
            n: n as u32,
            collide_stream,
            step_stream,
        })
    }

    pub fn frame(&mut self, ui: UiParams, sphere: [f32; 4]) -> Result<(), Box<dyn Error>> {
        let n = self.n;
        let cfg = LaunchConfig::for_num_elems(n);
        let [cx, cy, cz, r] = sphere;
        unsafe {
            self.collide_stream
                .launch_builder(&self.collide)
                .arg(&mut self.pos)
                .arg(&n)
                .arg(&cx)
                .arg(&cy)
                .arg(&cz)
                .arg(&r)
                .launch(cfg)?;
        }
        // Apply the UI's values for the next integration step while the collision pass runs.
        self.params.as_mut_slice()?.copy_from_slice(&[ui.dt, ui.damping, ui.gravity, 0.0]); // EXPECT: managed_concurrent_access

        let cfg3 = LaunchConfig::for_num_elems(3 * n);
        unsafe {
            self.step_stream
                .launch_builder(&self.integrate)
                .arg(&mut self.pos)
                .arg(&mut self.prev)
                .arg(&self.params)
                .arg(&n)
                .launch(cfg3)?;
        }
        self.step_stream.synchronize()?;
        Ok(())
    }
}
