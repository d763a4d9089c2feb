//! Predator-and-prey swarm that records its frame graph lazily.
//!
//! The graph is an `Option`: anything that reallocates the particle buffers
//! (a new flock joining) throws the recorded frame away first, and the next
//! frame records it again over the buffers that are current then.

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{
    sys, CudaContext, CudaFunction, CudaGraph, CudaSlice, CudaStream, LaunchConfig,
    PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

type Res<T> = Result<T, Box<dyn Error>>;

const FLOCK_SRC: &str = r#"
extern "C" __global__ void seed_ring(float* pos, float* vel, int first, int count, float radius) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= count) return;
    int i = first + k;
    float a = 6.2831853f * k / count;
    pos[2 * i] = radius * cosf(a);
    pos[2 * i + 1] = radius * sinf(a);
    vel[2 * i] = 0.0f;
    vel[2 * i + 1] = 0.0f;
}

extern "C" __global__ void flee_step(float* pos, float* vel, const float* predator, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float dx = pos[2 * i] - predator[0], dy = pos[2 * i + 1] - predator[1];
    float d2 = dx * dx + dy * dy + 1e-3f;
    float vx = 0.98f * vel[2 * i] + dt * dx / d2;
    float vy = 0.98f * vel[2 * i + 1] + dt * dy / d2;
    vel[2 * i] = vx; vel[2 * i + 1] = vy;
    pos[2 * i] += vx * dt; pos[2 * i + 1] += vy * dt;
}
"#;

pub struct PreySwarm {
    frame: Option<CudaGraph>,
    stream: Arc<CudaStream>,
    seed: CudaFunction,
    flee: CudaFunction,
    predator: CudaSlice<f32>,
    pos: CudaSlice<f32>,
    vel: CudaSlice<f32>,
    n: i32,
    dt: f32,
}

impl PreySwarm {
    pub fn new(ctx: &Arc<CudaContext>, n: i32, predator_at: [f32; 2], dt: f32) -> Res<Self> {
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream()?;
        let module = ctx.load_module(compile_ptx(FLOCK_SRC)?)?;
        let mut swarm = Self {
            frame: None,
            seed: module.load_function("seed_ring")?,
            flee: module.load_function("flee_step")?,
            predator: stream.alloc_zeros::<f32>(2)?,
            pos: stream.alloc_zeros::<f32>(2 * n as usize)?,
            vel: stream.alloc_zeros::<f32>(2 * n as usize)?,
            stream,
            n: 0,
            dt,
        };
        {
            let mut staging: PinnedHostSlice<f32> = unsafe { ctx.alloc_pinned_with_flags(2, 0)? };
            staging.as_mut_slice()?.copy_from_slice(&predator_at);
            swarm.stream.memcpy_htod(&staging, &mut swarm.predator)?;
            // `staging` is released at the end of this block: wait for its upload.
            swarm.stream.synchronize()?;
        }
        swarm.seed_flock(0, n, 5.0)?;
        swarm.n = n;
        Ok(swarm)
    }

    fn seed_flock(&mut self, first: i32, count: i32, radius: f32) -> Res<()> {
        unsafe {
            self.stream
                .launch_builder(&self.seed)
                .arg(&mut self.pos)
                .arg(&mut self.vel)
                .arg(&first)
                .arg(&count)
                .arg(&radius)
                .launch(LaunchConfig::for_num_elems(count as u32))?;
        }
        Ok(())
    }

    /// The frame graph over the current buffers, recorded on first use.
    fn frame(&mut self) -> Res<&CudaGraph> {
        if self.frame.is_none() {
            let cfg = LaunchConfig::for_num_elems(self.n as u32);
            self.stream
                .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)?;
            let launched = unsafe {
                self.stream
                    .launch_builder(&self.flee)
                    .arg(&mut self.pos)
                    .arg(&mut self.vel)
                    .arg(&self.predator)
                    .arg(&self.n)
                    .arg(&self.dt)
                    .launch(cfg)
            };
            let graph = self.stream.end_capture(sys::CUgraphInstantiate_flags(0));
            launched?;
            self.frame = graph?;
        }
        Ok(self.frame.as_ref().ok_or("empty frame capture")?)
    }

    pub fn run(&mut self, frames: usize) -> Res<()> {
        for _ in 0..frames {
            self.frame()?.launch()?;
        }
        Ok(())
    }

    /// A second flock joins on an outer ring.
    pub fn join_flock(&mut self, extra: i32) -> Res<()> {
        // Whatever is still flying must finish before the frame and its buffers go.
        self.stream.synchronize()?;
        self.frame = None;

        let keep = 2 * self.n as usize;
        let total = self.n + extra;
        let mut pos = self.stream.alloc_zeros::<f32>(2 * total as usize)?;
        let mut vel = self.stream.alloc_zeros::<f32>(2 * total as usize)?;
        self.stream.memcpy_dtod(&self.pos, &mut pos.slice_mut(..keep))?;
        self.stream.memcpy_dtod(&self.vel, &mut vel.slice_mut(..keep))?;
        self.stream.synchronize()?;
        self.pos = pos;
        self.vel = vel;
        let first = self.n;
        self.n = total;
        self.seed_flock(first, extra, 12.0)
    }

    pub fn spread(&self) -> Res<f32> {
        let mut host = unsafe { self.stream.context().alloc_pinned_with_flags::<f32>(2 * self.n as usize, 0)? };
        self.stream.memcpy_dtoh(&self.pos, &mut host)?;
        self.stream.synchronize()?;
        let xy = host.as_slice()?;
        let n = (xy.len() / 2).max(1) as f32;
        let r2: f32 = xy.chunks_exact(2).map(|p| p[0] * p[0] + p[1] * p[1]).sum();
        Ok((r2 / n).sqrt())
    }
}

impl Drop for PreySwarm {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        self.frame = None;
    }
}

/// RMS distance from the predator's start after a second flock joined mid-run.
pub fn prey_spread_with_reinforcements(n: i32, extra: i32, frames: usize) -> Res<(f32, f32)> {
    let ctx = CudaContext::new(0)?;
    let mut swarm = PreySwarm::new(&ctx, n, [0.0, 0.0], 0.01)?;
    swarm.run(frames)?;
    let before = swarm.spread()?;
    swarm.join_flock(extra)?;
    swarm.run(frames)?;
    let after = swarm.spread()?;
    Ok((before, after))
}
