use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use super::blackboard::{Blackboard, Intent};

const FLOW_SRC: &str = r#"
extern "C" __global__ void flow_field(const unsigned char* cost, unsigned short* dist, int w, int h, int iters) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int i = y * w + x;
    for (int it = 0; it < iters; ++it) {
        unsigned short best = dist[i];
        if (x > 0) best = min(best, (unsigned short)(dist[i - 1] + cost[i]));
        if (x < w - 1) best = min(best, (unsigned short)(dist[i + 1] + cost[i]));
        if (y > 0) best = min(best, (unsigned short)(dist[i - w] + cost[i]));
        if (y < h - 1) best = min(best, (unsigned short)(dist[i + w] + cost[i]));
        dist[i] = best;
        __syncthreads();
    }
}
"#;

pub struct CrowdSim {
    ai_stream: Arc<CudaStream>,
    flow: CudaFunction,
    cost: CudaSlice<u8>,
    dist: CudaSlice<u16>,
    w: usize,
    h: usize,
}

impl CrowdSim {
    pub fn new(ctx: &Arc<CudaContext>, cost: CudaSlice<u8>, w: usize, h: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let ai_stream = ctx.new_stream()?;
        Ok(Self {
            flow: ctx.load_module(compile_ptx(FLOW_SRC)?)?.load_function("flow_field")?,
            dist: ai_stream.alloc_zeros(w * h)?,
            cost,
            ai_stream,
            w,
            h,
        })
    }

    /// One AI tick: refresh the flow field on the GPU, run behaviour trees on the CPU.
    pub fn tick(&mut self, board: &mut Blackboard, threat_near: &[bool]) -> Result<(), DriverError> {
        let (w, h, iters) = (self.w as i32, self.h as i32, 16i32);
        let cfg = LaunchConfig {
            grid_dim: ((self.w as u32).div_ceil(16), (self.h as u32).div_ceil(16), 1),
            block_dim: (16, 16, 1),
            shared_mem_bytes: 0,
        };
        unsafe {
            self.ai_stream.launch_builder(&self.flow).arg(&self.cost).arg(&mut self.dist).arg(&w).arg(&h).arg(&iters).launch(cfg)?;
        }
        let intents = board.words.as_mut_slice()?; // EXPECT: managed_concurrent_access
        for (intent, &threat) in intents.iter_mut().zip(threat_near) {
            *intent = match (threat, *intent) {
                (true, x) if x == Intent::Chase as u32 => Intent::Chase as u32,
                (true, _) => Intent::Flee as u32,
                (false, x) if x == Intent::Flee as u32 => Intent::Patrol as u32,
                (false, x) => x,
            };
        }
        self.ai_stream.synchronize()?;
        Ok(())
    }
}
