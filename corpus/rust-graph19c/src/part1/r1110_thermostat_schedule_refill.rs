//! Annealing schedule driven through a captured Berendsen-thermostat step.
//!
//! The target temperature of each step is written by the host into a one-value
//! pinned buffer that the graph uploads at the start of every replay; the
//! per-block kinetic energies come back through pinned memory at its end.

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{
    sys, CudaContext, CudaGraph, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice,
    PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

type Res<T> = Result<T, Box<dyn Error>>;

const THERMO_SRC: &str = r#"
extern "C" __global__ void maxwell_init(float* vel, int n, unsigned seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 3 * n) return;
    unsigned h = (i + 1) * 2654435761u ^ seed;
    h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    vel[i] = (h & 0xffffff) / 16777215.0f - 0.5f;
}

extern "C" __global__ void block_kinetic(const float* vel, float* partial, int n) {
    __shared__ float acc[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float e = 0.0f;
    if (i < n) e = 0.5f * (vel[3*i]*vel[3*i] + vel[3*i+1]*vel[3*i+1] + vel[3*i+2]*vel[3*i+2]);
    acc[threadIdx.x] = e;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) acc[threadIdx.x] += acc[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = acc[0];
}

extern "C" __global__ void berendsen(float* vel, const float* partial, int blocks, int n,
                                     const float* target_t, float tau) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 3 * n) return;
    float ke = 0.0f;
    for (int b = 0; b < blocks; ++b) ke += partial[b];
    float t_now = 2.0f * ke / (3.0f * n);
    float lambda = sqrtf(1.0f + tau * (target_t[0] / fmaxf(t_now, 1e-6f) - 1.0f));
    vel[i] *= lambda;
}
"#;

pub struct Annealer {
    step: CudaGraph,
    stream: Arc<CudaStream>,
    vel: CudaSlice<f32>,
    partial: CudaSlice<f32>,
    target_dev: CudaSlice<f32>,
    target_host: PinnedHostSlice<f32>,
    partial_host: PinnedHostSlice<f32>,
    n: i32,
}

impl Annealer {
    pub fn new(ctx: &Arc<CudaContext>, n: i32, tau: f32) -> Res<Self> {
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream()?;
        let module = ctx.load_module(compile_ptx(THERMO_SRC)?)?;
        let init = module.load_function("maxwell_init")?;
        let kinetic = module.load_function("block_kinetic")?;
        let rescale = module.load_function("berendsen")?;

        let blocks = (n as u32).div_ceil(128);
        let mut vel = unsafe { stream.alloc::<f32>(3 * n as usize)? };
        let mut partial = stream.alloc_zeros::<f32>(blocks as usize)?;
        let mut target_dev = stream.alloc_zeros::<f32>(1)?;
        let mut target_host = unsafe { ctx.alloc_pinned_with_flags::<f32>(1, 0)? };
        let mut partial_host = unsafe { ctx.alloc_pinned_with_flags::<f32>(blocks as usize, 0)? };
        let seed = 0x9e37_79b9u32;
        let coords = LaunchConfig::for_num_elems(3 * n as u32);
        let per_block = LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (128, 1, 1),
            shared_mem_bytes: 0,
        };
        let nblocks = blocks as i32;

        unsafe {
            stream.launch_builder(&init).arg(&mut vel).arg(&n).arg(&seed).launch(coords)?;
        }

        stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
        stream.memcpy_htod(&target_host, &mut target_dev)?;
        unsafe {
            stream
                .launch_builder(&kinetic)
                .arg(&vel)
                .arg(&mut partial)
                .arg(&n)
                .launch(per_block)?;
            stream
                .launch_builder(&rescale)
                .arg(&mut vel)
                .arg(&partial)
                .arg(&nblocks)
                .arg(&n)
                .arg(&target_dev)
                .arg(&tau)
                .launch(coords)?;
            stream
                .launch_builder(&kinetic)
                .arg(&vel)
                .arg(&mut partial)
                .arg(&n)
                .launch(per_block)?;
        }
        stream.memcpy_dtoh(&partial, &mut partial_host)?;
        let step = stream
            .end_capture(sys::CUgraphInstantiate_flags(0))?
            .ok_or("thermostat capture recorded nothing")?;

        // Recording ran nothing, so the staging buffers are free to fill now.
        target_host.as_mut_slice()?[0] = 1.0;
        partial_host.as_mut_slice()?.fill(0.0);

        Ok(Self { step, stream, vel, partial, target_dev, target_host, partial_host, n })
    }

    /// Follows `schedule` (one target temperature per step); returns the reached temperatures.
    pub fn anneal(&mut self, schedule: &[f32]) -> Res<Vec<f32>> {
        let dof = 3.0 * self.n as f32;
        let mut reached = Vec::with_capacity(schedule.len());
        for &t in schedule {
            self.target_host.as_mut_slice()?[0] = t;
            self.step.launch()?;
            self.stream.synchronize()?;
            let ke: f32 = self.partial_host.as_slice()?.iter().sum();
            reached.push(2.0 * ke / dof);
        }
        Ok(reached)
    }
}

impl Drop for Annealer {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
    }
}

/// Linear cooling from `hot` to `cold` over `steps` steps.
pub fn cool_down(n: i32, hot: f32, cold: f32, steps: usize) -> Res<Vec<f32>> {
    let ctx = CudaContext::new(0)?;
    let mut annealer = Annealer::new(&ctx, n, 0.1)?;
    let schedule: Vec<f32> = (0..steps)
        .map(|s| hot + (cold - hot) * s as f32 / steps.max(1) as f32)
        .collect();
    annealer.anneal(&schedule)
}
