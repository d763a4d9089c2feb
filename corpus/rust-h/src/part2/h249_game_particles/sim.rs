use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtrMut, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use super::GameResult;

const STEP_SRC: &str = r#"
extern "C" __global__ void step_particles(float* pos, float* vel, float dt, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    vel[3 * i + 1] -= 9.81f * dt;
    for (int a = 0; a < 3; ++a) pos[3 * i + a] += vel[3 * i + a] * dt;
    if (pos[3 * i + 1] < 0.0f) { pos[3 * i + 1] = 0.0f; vel[3 * i + 1] *= -0.6f; }
}
"#;

pub struct Simulator {
    stream: Arc<CudaStream>,
    step: CudaFunction,
}

impl Simulator {
    pub fn new(ctx: &Arc<CudaContext>) -> GameResult<Self> {
        let stream = ctx.new_stream()?;
        let step = ctx.load_module(compile_ptx(STEP_SRC)?)?.load_function("step_particles")?;
        Ok(Self { stream, step })
    }

    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    pub fn step(&self, positions: &mut CudaSlice<f32>, velocities: &mut CudaSlice<f32>, dt: f32) -> GameResult<()> {
        let n = (positions.len() / 3) as u32;
        // raw pointers: the kernel takes plain float*; the guards are dropped at once
        let pos = positions.device_ptr_mut(&self.stream).0;
        let vel = velocities.device_ptr_mut(&self.stream).0;
        unsafe { self.stream.launch_builder(&self.step).arg(&pos).arg(&vel).arg(&dt).arg(&n).launch(LaunchConfig::for_num_elems(n))? };
        Ok(())
    }
}
