//! case: game engine frame loop; frame counters live in managed memory (runtime `ManagedBuffer`) that only the HUD overlay kernel reads, and the host bumps the frame counter right after launching the physics kernel, which does not use it but may still be running
//! expect: managed_concurrent_access=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, ManagedBuffer, Result, Stream};

const FRAME: usize = 0;
const BODIES: usize = 1;
const SIM_TIME_US: usize = 2;

const ENGINE_SRC: &str = r#"
extern "C" __global__ void integrate(float* pos, float* vel, float dt, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    vel[i] -= 9.81f * dt;
    pos[i] += vel[i] * dt;
    if (pos[i] < 0.0f) { pos[i] = 0.0f; vel[i] = -0.5f * vel[i]; }
}
extern "C" __global__ void hud_overlay(const unsigned long long* counters, unsigned* pixels, unsigned width) {
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= width) return;
    unsigned long long frame = counters[0];
    pixels[x] = ((frame >> (x % 64)) & 1ull) ? 0xffffffffu : 0xff000000u;
}
"#;

pub struct FrameLoop {
    stream: Stream,
    integrate: Kernel,
    hud_overlay: Kernel,
    pos: DeviceBuffer<f32>,
    vel: DeviceBuffer<f32>,
    hud: DeviceBuffer<u32>,
    telemetry: ManagedBuffer<u64>,
}

impl FrameLoop {
    pub fn new(ctx: &Context, bodies: usize, hud_width: usize) -> Result<Self> {
        let module = ctx.load_cuda(ENGINE_SRC)?;
        let mut telemetry = ctx.alloc_managed::<u64>(8)?;
        telemetry[BODIES] = bodies as u64;
        Ok(Self {
            stream: ctx.new_stream()?,
            integrate: module.function("integrate")?,
            hud_overlay: module.function("hud_overlay")?,
            pos: ctx.alloc_zeroed::<f32>(bodies)?,
            vel: ctx.alloc_zeroed::<f32>(bodies)?,
            hud: ctx.alloc_zeroed::<u32>(hud_width)?,
            telemetry,
        })
    }

    pub fn frame(&mut self, dt: f32, frame_started: std::time::Instant) -> Result<()> {
        let n = self.pos.len() as u32;
        unsafe { self.stream.launch(&self.integrate, LaunchConfig::for_num_elems(n), &[&self.pos, &self.vel, &dt, &n])? };
        self.telemetry[FRAME] += 1; // EXPECT: managed_concurrent_access
        let width = self.hud.len() as u32;
        unsafe { self.stream.launch(&self.hud_overlay, LaunchConfig::for_num_elems(width), &[&self.telemetry, &self.hud, &width])? };
        self.stream.synchronize()?;
        self.telemetry[SIM_TIME_US] = frame_started.elapsed().as_micros() as u64;
        Ok(())
    }
}
