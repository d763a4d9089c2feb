//! case: an n-body stepper on cudarc's default stream uploads a 32-byte parameter array from the stack every step (pageable but far below the size where pinning matters), keeps the bulk state on the device, and reads snapshots from plain pinned memory after synchronizing
//! expect: none

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const NBODY_SRC: &str = r#"
extern "C" __global__ void step(float4* pos, float4* vel, const float* params, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float dt = params[0], soft = params[1], damping = params[2];
    float4 p = pos[i];
    float3 a = make_float3(0.f, 0.f, 0.f);
    for (unsigned j = 0; j < n; ++j) {
        float4 q = pos[j];
        float3 d = make_float3(q.x - p.x, q.y - p.y, q.z - p.z);
        float inv = rsqrtf(d.x * d.x + d.y * d.y + d.z * d.z + soft);
        float s = q.w * inv * inv * inv;
        a.x += d.x * s; a.y += d.y * s; a.z += d.z * s;
    }
    float4 v = vel[i];
    v.x = (v.x + a.x * dt) * damping; v.y = (v.y + a.y * dt) * damping; v.z = (v.z + a.z * dt) * damping;
    vel[i] = v;
    pos[i] = make_float4(p.x + v.x * dt, p.y + v.y * dt, p.z + v.z * dt, p.w);
}
"#;

#[derive(Clone, Copy)]
pub struct SimParams {
    pub dt: f32,
    pub softening: f32,
    pub damping: f32,
}

impl SimParams {
    fn packed(&self, step: u64) -> [f32; 8] {
        [self.dt, self.softening, self.damping, step as f32, 0.0, 0.0, 0.0, 0.0]
    }
}

pub struct NBody {
    stream: Arc<CudaStream>,
    step_fn: CudaFunction,
    pos: CudaSlice<f32>,
    vel: CudaSlice<f32>,
    params: CudaSlice<f32>,
    snapshot: PinnedHostSlice<f32>,
    n: usize,
    steps: u64,
}

impl NBody {
    pub fn new(ctx: &Arc<CudaContext>, initial: &PinnedHostSlice<f32>) -> Result<Self, Box<dyn Error>> {
        let stream = ctx.default_stream();
        let step_fn = ctx.load_module(compile_ptx(NBODY_SRC)?)?.load_function("step")?;
        let n = initial.len() / 4;
        Ok(Self {
            pos: stream.clone_htod(initial)?,
            vel: stream.alloc_zeros::<f32>(4 * n)?,
            params: stream.alloc_zeros::<f32>(8)?,
            snapshot: unsafe { ctx.alloc_pinned_with_flags::<f32>(4 * n, 0)? },
            stream,
            step_fn,
            n,
            steps: 0,
        })
    }

    pub fn advance(&mut self, p: SimParams, steps: u32) -> Result<(), Box<dyn Error>> {
        let n = self.n as u32;
        let cfg = LaunchConfig::for_num_elems(n);
        for _ in 0..steps {
            let packed = p.packed(self.steps);
            self.stream.memcpy_htod(&packed, &mut self.params)?;
            unsafe {
                self.stream
                    .launch_builder(&self.step_fn)
                    .arg(&mut self.pos)
                    .arg(&mut self.vel)
                    .arg(&self.params)
                    .arg(&n)
                    .launch(cfg)?;
            }
            self.steps += 1;
        }
        Ok(())
    }

    /// Centre of mass of the current state.
    pub fn centre_of_mass(&mut self) -> Result<[f32; 3], Box<dyn Error>> {
        self.stream.memcpy_dtoh(&self.pos, &mut self.snapshot)?;
        self.stream.synchronize()?;
        let (mut c, mut m) = ([0f32; 3], 0f32);
        for body in self.snapshot.as_slice()?.chunks_exact(4) {
            c[0] += body[0] * body[3];
            c[1] += body[1] * body[3];
            c[2] += body[2] * body[3];
            m += body[3];
        }
        Ok(c.map(|x| x / m))
    }
}
