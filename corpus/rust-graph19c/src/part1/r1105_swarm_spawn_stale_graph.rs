//! Boids-style swarm whose struct owns the graph of one frame (four substeps).
//!
//! Halfway through the run a second flock joins: `spawn` grows the position and
//! velocity buffers, copies the existing birds over, seeds the newcomers and
//! releases the old buffers.

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{
    sys, CudaContext, CudaFunction, CudaGraph, CudaSlice, CudaStream, LaunchConfig,
    PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

type Res<T> = Result<T, Box<dyn Error>>;

const SUBSTEPS: usize = 4;

const BOIDS_SRC: &str = r#"
extern "C" __global__ void seed_birds(float* pos, float* vel, int first, int count, float radius) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= count) return;
    int i = first + k;
    float a = 2.399963f * i;
    float r = radius * sqrtf((float)(k + 1) / count);
    pos[2 * i] = r * cosf(a);
    pos[2 * i + 1] = r * sinf(a);
    vel[2 * i] = -0.1f * sinf(a);
    vel[2 * i + 1] = 0.1f * cosf(a);
}

extern "C" __global__ void cohesion_step(float* pos, float* vel, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    // pull toward the origin, soft speed limit
    float ax = -0.05f * pos[2 * i], ay = -0.05f * pos[2 * i + 1];
    float vx = vel[2 * i] + ax * dt, vy = vel[2 * i + 1] + ay * dt;
    float s = sqrtf(vx * vx + vy * vy);
    if (s > 1.0f) { vx /= s; vy /= s; }
    vel[2 * i] = vx; vel[2 * i + 1] = vy;
    pos[2 * i] += vx * dt; pos[2 * i + 1] += vy * dt;
}
"#;

pub struct Swarm {
    // The frame graph is dropped before the buffers it was recorded on.
    frame: CudaGraph,
    stream: Arc<CudaStream>,
    seed: CudaFunction,
    pos: CudaSlice<f32>,
    vel: CudaSlice<f32>,
    n: i32,
}

impl Swarm {
    pub fn new(ctx: &Arc<CudaContext>, n: i32, dt: f32) -> Res<Self> {
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream()?;
        let module = ctx.load_module(compile_ptx(BOIDS_SRC)?)?;
        let seed = module.load_function("seed_birds")?;
        let step = module.load_function("cohesion_step")?;

        let mut pos = stream.alloc_zeros::<f32>(2 * n as usize)?;
        let mut vel = stream.alloc_zeros::<f32>(2 * n as usize)?;
        let first = 0i32;
        let radius = 10.0f32;
        unsafe {
            stream
                .launch_builder(&seed)
                .arg(&mut pos)
                .arg(&mut vel)
                .arg(&first)
                .arg(&n)
                .arg(&radius)
                .launch(LaunchConfig::for_num_elems(n as u32))?;
        }

        stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
        for _ in 0..SUBSTEPS {
            unsafe {
                stream
                    .launch_builder(&step)
                    .arg(&mut pos)
                    .arg(&mut vel)
                    .arg(&n)
                    .arg(&dt)
                    .launch(LaunchConfig::for_num_elems(n as u32))?;
            }
        }
        let frame = stream
            .end_capture(sys::CUgraphInstantiate_flags(0))?
            .ok_or("frame capture recorded nothing")?;
        Ok(Self { frame, stream, seed, pos, vel, n })
    }

    /// Adds `extra` birds on an outer ring, keeping the ones already flying.
    pub fn spawn(&mut self, extra: i32) -> Res<()> {
        let old = 2 * self.n as usize;
        let total = self.n + extra;
        let mut pos = self.stream.alloc_zeros::<f32>(2 * total as usize)?;
        let mut vel = self.stream.alloc_zeros::<f32>(2 * total as usize)?;
        self.stream.memcpy_dtod(&self.pos, &mut pos.slice_mut(..old))?;
        self.stream.memcpy_dtod(&self.vel, &mut vel.slice_mut(..old))?;
        let first = self.n;
        let radius = 25.0f32;
        unsafe {
            self.stream
                .launch_builder(&self.seed)
                .arg(&mut pos)
                .arg(&mut vel)
                .arg(&first)
                .arg(&extra)
                .arg(&radius)
                .launch(LaunchConfig::for_num_elems(extra as u32))?;
        }
        // The copies out of the old buffers must be done before they are released.
        self.stream.synchronize()?;
        self.pos = pos;
        self.vel = vel;
        self.n = total;
        Ok(())
    }

    pub fn positions(&self) -> Res<Vec<f32>> {
        let ctx = self.stream.context();
        let mut host = unsafe { ctx.alloc_pinned_with_flags::<f32>(2 * self.n as usize, 0)? };
        self.stream.memcpy_dtoh(&self.pos, &mut host)?;
        self.stream.synchronize()?;
        Ok(host.as_slice()?.to_vec())
    }
}

impl Drop for Swarm {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
    }
}

/// Flies `before` frames with the first flock, lets the second join, flies `after` more.
pub fn fly_two_flocks(first: i32, second: i32, before: usize, after: usize) -> Res<Vec<f32>> {
    let ctx = CudaContext::new(0)?;
    let mut swarm = Swarm::new(&ctx, first, 0.02)?;
    for _ in 0..before {
        swarm.frame.launch()?;
    }
    swarm.spawn(second)?;
    for _ in 0..after {
        swarm.frame.launch()?; // EXPECT: graph_uses_freed_memory
    }
    swarm.stream.synchronize()?;
    swarm.positions()
}
