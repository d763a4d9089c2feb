//! case: molecular-dynamics integrator keeps positions and velocities in cudarc UnifiedSlices on the default stream and writes a trajectory frame every few steps from `as_slice`, without an explicit synchronize; correct, because passing a UnifiedSlice to a launch always records its event and `as_slice` waits on it
//! expect: none

use std::io::Write;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaStream, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const VERLET_SRC: &str = r#"
extern "C" __global__ void lj_verlet(float* pos, float* vel, int n, float dt, float box_len) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float fx = 0, fy = 0, fz = 0;
    for (int j = 0; j < n; ++j) {
        if (j == i) continue;
        float dx = pos[3*i] - pos[3*j], dy = pos[3*i+1] - pos[3*j+1], dz = pos[3*i+2] - pos[3*j+2];
        dx -= box_len * rintf(dx / box_len); dy -= box_len * rintf(dy / box_len); dz -= box_len * rintf(dz / box_len);
        float r2 = dx*dx + dy*dy + dz*dz + 1e-6f, inv6 = 1.0f / (r2*r2*r2);
        float f = 24.0f * inv6 * (2.0f * inv6 - 1.0f) / r2;
        fx += f * dx; fy += f * dy; fz += f * dz;
    }
    vel[3*i] += dt * fx; vel[3*i+1] += dt * fy; vel[3*i+2] += dt * fz;
    pos[3*i] = fmodf(pos[3*i] + dt * vel[3*i] + box_len, box_len);
    pos[3*i+1] = fmodf(pos[3*i+1] + dt * vel[3*i+1] + box_len, box_len);
    pos[3*i+2] = fmodf(pos[3*i+2] + dt * vel[3*i+2] + box_len, box_len);
}
"#;

pub struct MdSystem {
    stream: Arc<CudaStream>,
    step_fn: CudaFunction,
    pos: UnifiedSlice<f32>,
    vel: UnifiedSlice<f32>,
    n: usize,
    box_len: f32,
}

impl MdSystem {
    pub fn lattice(ctx: &Arc<CudaContext>, per_side: usize, spacing: f32) -> Result<Self, Box<dyn std::error::Error>> {
        let n = per_side.pow(3);
        let stream = ctx.default_stream();
        let step_fn = ctx.load_module(compile_ptx(VERLET_SRC)?)?.load_function("lj_verlet")?;
        let mut pos = unsafe { ctx.alloc_unified::<f32>(3 * n, true)? };
        let mut vel = unsafe { ctx.alloc_unified::<f32>(3 * n, true)? };
        for (i, p) in pos.as_mut_slice()?.chunks_exact_mut(3).enumerate() {
            let (x, y, z) = (i % per_side, (i / per_side) % per_side, i / (per_side * per_side));
            p.copy_from_slice(&[x as f32 * spacing, y as f32 * spacing, z as f32 * spacing]);
        }
        vel.as_mut_slice()?.fill(0.0);
        Ok(MdSystem { stream, step_fn, pos, vel, n, box_len: per_side as f32 * spacing })
    }

    pub fn run(&mut self, steps: usize, dt: f32, every: usize, xyz: &mut dyn Write) -> Result<(), Box<dyn std::error::Error>> {
        let n = self.n as i32;
        for step in 0..steps {
            let mut launch = self.stream.launch_builder(&self.step_fn);
            launch.arg(&mut self.pos).arg(&mut self.vel).arg(&n).arg(&dt).arg(&self.box_len);
            unsafe { launch.launch(LaunchConfig::for_num_elems(self.n as u32)) }?;
            if step % every == 0 {
                let frame = self.pos.as_slice()?;
                writeln!(xyz, "{}\nstep {}", self.n, step)?;
                for p in frame.chunks_exact(3) {
                    writeln!(xyz, "Ar {:.4} {:.4} {:.4}", p[0], p[1], p[2])?;
                }
            }
        }
        Ok(())
    }
}
