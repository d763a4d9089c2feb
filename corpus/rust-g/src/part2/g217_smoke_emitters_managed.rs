//! case: smoke/particle simulation on the project's runtime layer: emitter positions live in a ManagedBuffer (cuMemAllocManaged, global) that only the spawn kernel reads; the host rewrites them for the next frame while the advection kernel, which uses only device buffers, may still run on the simulation stream
//! expect: managed_concurrent_access=1

use cuda_lint_runtime::{Context, DeviceBuffer, LaunchConfig, ManagedBuffer, Result, Stream};

const SMOKE_SRC: &str = r#"
extern "C" __global__ void advect(float4* particles, const float4* velocity_grid, unsigned n,
                                  unsigned grid, float dt) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = particles[i];
    if (p.w <= 0.f) return;                      // dead
    int gx = min(max((int)(p.x * grid), 0), (int)grid - 1);
    int gy = min(max((int)(p.y * grid), 0), (int)grid - 1);
    int gz = min(max((int)(p.z * grid), 0), (int)grid - 1);
    float4 v = velocity_grid[(gz * grid + gy) * grid + gx];
    p.x += v.x * dt; p.y += v.y * dt; p.z += v.z * dt; p.w -= dt;
    particles[i] = p;
}

extern "C" __global__ void spawn(float4* particles, const float4* emitters, unsigned nemit,
                                 unsigned per_emitter, unsigned first_slot, unsigned capacity) {
    unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= nemit * per_emitter) return;
    float4 e = emitters[k / per_emitter];
    unsigned slot = (first_slot + k) % capacity;
    float jitter = ((k * 2654435761u) & 1023) / 1023.f - 0.5f;
    particles[slot] = make_float4(e.x + 0.01f * jitter, e.y, e.z - 0.01f * jitter, e.w);
}
"#;

pub struct SmokeSim {
    ctx: Context,
    stream: Stream,
    advect: cuda_lint_runtime::Kernel,
    spawn: cuda_lint_runtime::Kernel,
    particles: DeviceBuffer<[f32; 4]>,
    velocity: DeviceBuffer<[f32; 4]>,
    emitters: ManagedBuffer<[f32; 4]>,
    grid: u32,
    next_slot: u32,
}

impl SmokeSim {
    pub fn new(capacity: usize, grid: u32, max_emitters: usize) -> Result<Self> {
        let ctx = Context::new(0)?;
        let module = ctx.load_cuda(SMOKE_SRC)?;
        let advect = module.function("advect")?;
        let spawn = module.function("spawn")?;
        let stream = ctx.new_stream()?;
        let mut particles = ctx.alloc::<[f32; 4]>(capacity)?;
        let mut velocity = ctx.alloc::<[f32; 4]>((grid * grid * grid) as usize)?;
        stream.memset_d8_async(&mut particles, 0)?;
        stream.memset_d8_async(&mut velocity, 0)?;
        let emitters = ctx.alloc_managed::<[f32; 4]>(max_emitters)?;
        stream.synchronize()?;
        Ok(Self { ctx, stream, advect, spawn, particles, velocity, emitters, grid, next_slot: 0 })
    }

    /// One frame: advect what exists, then spawn from the emitters at their new positions.
    pub fn frame<F>(&mut self, t: f32, dt: f32, mut emitter_at: F) -> Result<()>
    where
        F: FnMut(usize, f32) -> [f32; 4],
    {
        let n = self.particles.len() as u32;
        unsafe {
            self.stream.launch(
                &self.advect,
                LaunchConfig::for_num_elems(n),
                &[&self.particles, &self.velocity, &n, &self.grid, &dt],
            )?;
        }

        // Move the emitters along their paths for this frame.
        for (i, e) in self.emitters.iter_mut().enumerate() { // EXPECT: managed_concurrent_access
            *e = emitter_at(i, t);
        }

        self.stream.synchronize()?;
        let nemit = self.emitters.num_elems() as u32;
        let per_emitter = 64u32;
        let capacity = n;
        let first = self.next_slot;
        unsafe {
            self.stream.launch(
                &self.spawn,
                LaunchConfig::for_num_elems(nemit * per_emitter),
                &[&self.particles, &self.emitters, &nemit, &per_emitter, &first, &capacity],
            )?;
        }
        self.next_slot = (self.next_slot + nemit * per_emitter) % capacity;
        self.stream.synchronize()
    }
}

pub fn run_smoke(frames: usize) -> Result<()> {
    let mut sim = SmokeSim::new(1 << 20, 64, 16)?;
    for f in 0..frames {
        let t = f as f32 / 60.0;
        sim.frame(t, 1.0 / 60.0, |i, t| {
            let a = t + i as f32 * 0.39;
            [0.5 + 0.3 * a.cos(), 0.1, 0.5 + 0.3 * a.sin(), 3.0]
        })?;
    }
    let _ = sim.ctx.mem_get_info()?;
    Ok(())
}
