//! case: a particle simulation writes each step's forces into write-combined `alloc_pinned` memory (host writes only, which is what write-combining is for) and reads positions back into pinned memory allocated with flags 0; the stream is synchronized before every host access
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const INTEGRATE_SRC: &str = r#"
extern "C" __global__ void integrate(float4* pos, float4* vel, const float4* force, float dt, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 v = vel[i], f = force[i], p = pos[i];
    v.x += f.x * dt; v.y += f.y * dt; v.z += f.z * dt;
    p.x += v.x * dt; p.y += v.y * dt; p.z += v.z * dt;
    vel[i] = v; pos[i] = p;
}
"#;

pub struct Simulation {
    stream: Arc<CudaStream>,
    integrate: CudaFunction,
    pos: CudaSlice<f32>,
    vel: CudaSlice<f32>,
    force: CudaSlice<f32>,
    force_upload: PinnedHostSlice<f32>, // write-combined: host writes, device reads
    pos_readback: PinnedHostSlice<f32>, // cached pinned memory: host reads
    n: usize,
}

impl Simulation {
    pub fn new(ctx: &Arc<CudaContext>, n: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.default_stream();
        Ok(Self {
            integrate: ctx.load_module(compile_ptx(INTEGRATE_SRC)?)?.load_function("integrate")?,
            pos: stream.alloc_zeros::<f32>(4 * n)?,
            vel: stream.alloc_zeros::<f32>(4 * n)?,
            force: stream.alloc_zeros::<f32>(4 * n)?,
            force_upload: unsafe { ctx.alloc_pinned::<f32>(4 * n)? },
            pos_readback: unsafe { ctx.alloc_pinned_with_flags::<f32>(4 * n, 0)? },
            stream,
            n,
        })
    }

    pub fn step(&mut self, external: &[[f32; 3]], dt: f32, gravity: f32) -> Result<f32, DriverError> {
        // Write-only pass over the write-combined buffer.
        self.force_upload
            .as_mut_slice()?
            .chunks_exact_mut(4)
            .zip(external)
            .for_each(|(dst, f)| {
                dst[0] = f[0];
                dst[1] = f[1] - gravity;
                dst[2] = f[2];
                dst[3] = 0.0;
            });
        self.stream.memcpy_htod(&self.force_upload, &mut self.force)?;

        let n = self.n as u32;
        let mut launch = self.stream.launch_builder(&self.integrate);
        launch.arg(&mut self.pos).arg(&mut self.vel).arg(&self.force).arg(&dt).arg(&n);
        unsafe { launch.launch(LaunchConfig::for_num_elems(n)) }?;

        self.stream.memcpy_dtoh(&self.pos, &mut self.pos_readback)?;
        // One stream: cudarc records no event for us, so wait here. This also frees
        // `force_upload` for the next step's writes.
        self.stream.synchronize()?;

        let max_height = self
            .pos_readback
            .as_slice()?
            .chunks_exact(4)
            .map(|p| p[1])
            .fold(f32::MIN, f32::max);
        Ok(max_height)
    }
}
