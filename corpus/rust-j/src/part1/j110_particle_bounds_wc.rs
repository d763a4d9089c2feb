//! case: particle system reads back positions into cudarc's `alloc_pinned` buffer (write-combined in cudarc 0.19) after synchronizing and walks it on the host to compute the emitter's bounding box, an uncached read of write-combined memory
//! expect: write_combined_host_read=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const INTEGRATE_SRC: &str = r#"
extern "C" __global__ void integrate(float* pos, float* vel, int n, float dt, float gx, float gy, float gz) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    vel[3*i] += gx * dt; vel[3*i+1] += gy * dt; vel[3*i+2] += gz * dt;
    pos[3*i] += vel[3*i] * dt; pos[3*i+1] += vel[3*i+1] * dt; pos[3*i+2] += vel[3*i+2] * dt;
    if (pos[3*i+1] < 0.0f) { pos[3*i+1] = 0.0f; vel[3*i+1] *= -0.6f; }
}
"#;

#[derive(Debug, Clone, Copy)]
pub struct Aabb {
    pub min: [f32; 3],
    pub max: [f32; 3],
}

impl Aabb {
    fn empty() -> Self {
        Aabb { min: [f32::MAX; 3], max: [f32::MIN; 3] }
    }
    fn grow(mut self, p: &[f32]) -> Self {
        for k in 0..3 {
            self.min[k] = self.min[k].min(p[k]);
            self.max[k] = self.max[k].max(p[k]);
        }
        self
    }
}

fn bounding_box(xyz: &[f32]) -> Aabb {
    xyz.chunks_exact(3).fold(Aabb::empty(), Aabb::grow)
}

pub struct Emitter {
    stream: Arc<CudaStream>,
    integrate: CudaFunction,
    pos: CudaSlice<f32>,
    vel: CudaSlice<f32>,
    readback: PinnedHostSlice<f32>,
    count: usize,
}

impl Emitter {
    pub fn new(ctx: &Arc<CudaContext>, count: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let integrate = ctx.load_module(compile_ptx(INTEGRATE_SRC)?)?.load_function("integrate")?;
        Ok(Self {
            pos: stream.alloc_zeros(3 * count)?,
            vel: stream.alloc_zeros(3 * count)?,
            readback: unsafe { ctx.alloc_pinned::<f32>(3 * count)? },
            stream,
            integrate,
            count,
        })
    }

    pub fn update(&mut self, dt: f32) -> Result<Aabb, DriverError> {
        let n = self.count as i32;
        let (gx, gy, gz) = (0.0f32, -9.81f32, 0.0f32);
        unsafe {
            self.stream
                .launch_builder(&self.integrate)
                .arg(&mut self.pos)
                .arg(&mut self.vel)
                .arg(&n)
                .arg(&dt)
                .arg(&gx)
                .arg(&gy)
                .arg(&gz)
                .launch(LaunchConfig::for_num_elems(self.count as u32))?;
        }
        self.stream.memcpy_dtoh(&self.pos, &mut self.readback)?;
        self.stream.synchronize()?;
        let bbox = bounding_box(self.readback.as_slice()?); // EXPECT: write_combined_host_read
        Ok(bbox)
    }
}
