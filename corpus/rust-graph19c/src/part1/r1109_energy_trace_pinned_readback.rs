//! Kinetic-energy trace of a harmonic-trap N-body run.
//!
//! One frame is a captured graph: a velocity-Verlet step, a block-wise reduction
//! of the kinetic energy, and the download of the per-block partial sums into a
//! pinned `PinnedHostSlice`. The host sums the partials once per frame.

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{
    sys, CudaContext, CudaFunction, CudaGraph, CudaSlice, CudaStream, LaunchConfig,
    PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

type Res<T> = Result<T, Box<dyn Error>>;

const BLOCK: u32 = 256;

const TRAP_SRC: &str = r#"
extern "C" __global__ void place_shell(float* pos, float* vel, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float t = 6.2831853f * i / n;
    pos[3 * i] = cosf(t); pos[3 * i + 1] = sinf(t); pos[3 * i + 2] = 0.01f * (i % 7);
    vel[3 * i] = -sinf(t); vel[3 * i + 1] = cosf(t); vel[3 * i + 2] = 0.0f;
}

extern "C" __global__ void verlet_trap(float* pos, float* vel, int n, float dt, float k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 3 * n) return;
    float v = vel[i] - 0.5f * dt * k * pos[i];
    float x = pos[i] + dt * v;
    vel[i] = v - 0.5f * dt * k * x;
    pos[i] = x;
}

extern "C" __global__ void kinetic_partials(const float* vel, float* partial, int n) {
    __shared__ float acc[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float e = 0.0f;
    if (i < n) {
        float vx = vel[3 * i], vy = vel[3 * i + 1], vz = vel[3 * i + 2];
        e = 0.5f * (vx * vx + vy * vy + vz * vz);
    }
    acc[threadIdx.x] = e;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) acc[threadIdx.x] += acc[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = acc[0];
}
"#;

pub struct EnergyTrace {
    frame: CudaGraph,
    stream: Arc<CudaStream>,
    pos: CudaSlice<f32>,
    vel: CudaSlice<f32>,
    partial: CudaSlice<f32>,
    partial_host: PinnedHostSlice<f32>,
}

impl EnergyTrace {
    pub fn new(ctx: &Arc<CudaContext>, n: i32, dt: f32, k: f32) -> Res<Self> {
        // Single-stream program; the frame graph must not wait on events recorded
        // before the capture, so per-buffer event tracking is off.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream()?;
        let module = ctx.load_module(compile_ptx(TRAP_SRC)?)?;
        let place = module.load_function("place_shell")?;
        let verlet = module.load_function("verlet_trap")?;
        let kinetic = module.load_function("kinetic_partials")?;

        let blocks = (n as u32).div_ceil(BLOCK);
        let mut pos = unsafe { stream.alloc::<f32>(3 * n as usize)? };
        let mut vel = unsafe { stream.alloc::<f32>(3 * n as usize)? };
        let mut partial = stream.alloc_zeros::<f32>(blocks as usize)?;
        let mut partial_host = unsafe { ctx.alloc_pinned_with_flags::<f32>(blocks as usize, 0)? };
        partial_host.as_mut_slice()?.fill(0.0);

        let per_particle = LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        unsafe {
            stream
                .launch_builder(&place)
                .arg(&mut pos)
                .arg(&mut vel)
                .arg(&n)
                .launch(per_particle)?;
        }

        stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
        unsafe {
            stream
                .launch_builder(&verlet)
                .arg(&mut pos)
                .arg(&mut vel)
                .arg(&n)
                .arg(&dt)
                .arg(&k)
                .launch(LaunchConfig::for_num_elems(3 * n as u32))?;
            stream
                .launch_builder(&kinetic)
                .arg(&vel)
                .arg(&mut partial)
                .arg(&n)
                .launch(per_particle)?;
        }
        stream.memcpy_dtoh(&partial, &mut partial_host)?;
        let frame = stream
            .end_capture(sys::CUgraphInstantiate_flags(0))?
            .ok_or("frame capture recorded nothing")?;

        Ok(Self { frame, stream, pos, vel, partial, partial_host })
    }

    /// Runs `frames` frames and returns the kinetic energy after each.
    pub fn trace(&mut self, frames: usize) -> Res<Vec<f32>> {
        let mut energies = Vec::with_capacity(frames);
        for _ in 0..frames {
            self.frame.launch()?;
            let ke: f32 = self.partial_host.as_slice()?.iter().sum(); // EXPECT: missing_sync
            energies.push(ke);
        }
        self.stream.synchronize()?;
        Ok(energies)
    }
}

impl Drop for EnergyTrace {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
    }
}

/// Relative energy drift over the run (symplectic integrator: should stay small).
pub fn energy_drift(n: i32, frames: usize) -> Res<f32> {
    let ctx = CudaContext::new(0)?;
    let mut sim = EnergyTrace::new(&ctx, n, 1e-3, 1.0)?;
    let trace = sim.trace(frames)?;
    let (first, last) = match (trace.first(), trace.last()) {
        (Some(&a), Some(&b)) => (a, b),
        _ => return Ok(0.0),
    };
    Ok(((last - first) / first.max(f32::MIN_POSITIVE)).abs())
}
