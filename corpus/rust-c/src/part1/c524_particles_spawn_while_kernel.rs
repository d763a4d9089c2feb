//! case: a particle system (runtime layer) keeps its spawn queue in managed memory; while the force kernel, which only touches device buffers, runs on the stream, the host appends newly emitted particles to the managed queue (faults on devices without concurrent managed access)
//! expect: managed_concurrent_access=1
use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, ManagedBuffer, Stream};

const PARTICLES_SRC: &str = r#"
extern "C" __global__ void apply_forces(float4* pos_mass, float4* vel, float dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 v = vel[i];
    v.y -= 9.81f * dt;
    vel[i] = v;
    float4 p = pos_mass[i];
    p.x += v.x * dt; p.y += v.y * dt; p.z += v.z * dt;
    pos_mass[i] = p;
}
"#;

#[derive(Clone, Copy, Debug)]
pub struct Emitter {
    pub origin: [f32; 3],
    pub rate: usize,
}

pub struct ParticleSystem {
    stream: Stream,
    forces: Kernel,
    pos_mass: DeviceBuffer<f32>,
    vel: DeviceBuffer<f32>,
    spawn_queue: ManagedBuffer<f32>, // 4 floats per particle to spawn
    live: usize,
}

impl ParticleSystem {
    pub fn new(ctx: &Context, capacity: usize) -> cuda_lint_runtime::Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            forces: ctx.load_cuda(PARTICLES_SRC)?.function("apply_forces")?,
            pos_mass: ctx.alloc_zeroed::<f32>(capacity * 4)?,
            vel: ctx.alloc_zeroed::<f32>(capacity * 4)?,
            spawn_queue: ctx.alloc_managed::<f32>(1024 * 4)?,
            live: 0,
        })
    }

    pub fn frame(&mut self, dt: f32, emitters: &[Emitter], frame_no: u64) -> cuda_lint_runtime::Result<usize> {
        let n = self.live as i32;
        unsafe {
            self.stream.launch(
                &self.forces,
                LaunchConfig::for_num_elems(n.max(1) as u32),
                &[&self.pos_mass, &self.vel, &dt, &n],
            )?;
        }
        // Overlap the emission bookkeeping with the force kernel.
        let mut queued = 0usize;
        for (e, k) in emitters.iter().flat_map(|e| (0..e.rate).map(move |k| (e, k))).take(1024) {
            let jitter = ((frame_no as usize * 31 + k * 17) % 100) as f32 * 0.001;
            self.spawn_queue[queued * 4..queued * 4 + 4].copy_from_slice(&[e.origin[0] + jitter, e.origin[1], e.origin[2], 1.0]); // EXPECT: managed_concurrent_access
            queued += 1;
        }
        self.stream.synchronize()?;
        self.live += queued;
        Ok(queued)
    }
}
