//! case: continuous-batching scheduler that keeps per-request token budgets in cudarc unified memory allocated host-attached (`alloc_unified(.., false)`, `CU_MEM_ATTACH_HOST`); the host updates the budgets while the decode kernel, which never touches them, runs on the stream
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const DECODE_SRC: &str = r#"
extern "C" __global__ void decode_step(const float* hidden, const float* lm_head, int* next,
                                       unsigned dim, unsigned vocab, unsigned batch) {
    unsigned b = blockIdx.x;
    if (b >= batch) return;
    __shared__ float best[256];
    __shared__ int best_id[256];
    float bv = -1e30f; int bi = 0;
    for (unsigned v = threadIdx.x; v < vocab; v += blockDim.x) {
        float s = 0.0f;
        for (unsigned k = 0; k < dim; ++k) s += hidden[(size_t)b * dim + k] * lm_head[(size_t)v * dim + k];
        if (s > bv) { bv = s; bi = v; }
    }
    best[threadIdx.x] = bv; best_id[threadIdx.x] = bi;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (unsigned t = 1; t < blockDim.x; ++t) if (best[t] > bv) { bv = best[t]; bi = best_id[t]; }
        next[b] = bi;
    }
}
"#;

pub struct Scheduler {
    stream: Arc<CudaStream>,
    decode: CudaFunction,
    budgets: UnifiedSlice<u32>,
    active: Vec<usize>,
}

impl Scheduler {
    pub fn new(ctx: &Arc<CudaContext>, max_requests: usize) -> Result<Self> {
        let stream = ctx.new_stream()?;
        let decode = ctx.load_module(compile_ptx(DECODE_SRC)?)?.load_function("decode_step")?;
        let mut budgets = unsafe { ctx.alloc_unified::<u32>(max_requests, false)? };
        budgets.as_mut_slice()?.fill(0);
        Ok(Scheduler { stream, decode, budgets, active: Vec::new() })
    }

    pub fn admit(&mut self, slot: usize, max_new_tokens: u32) -> Result<()> {
        self.budgets.as_mut_slice()?[slot] = max_new_tokens;
        self.active.push(slot);
        Ok(())
    }

    /// Launches one decode step, then does the host-side bookkeeping while it runs.
    pub fn step(&mut self, hidden: &CudaSlice<f32>, lm_head: &CudaSlice<f32>, next: &mut CudaSlice<i32>, dim: u32, vocab: u32) -> Result<Vec<usize>> {
        let batch = self.active.len() as u32;
        let cfg = LaunchConfig { grid_dim: (batch.max(1), 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
        let mut b = self.stream.launch_builder(&self.decode);
        b.arg(hidden).arg(lm_head).arg(next).arg(&dim).arg(&vocab).arg(&batch);
        unsafe { b.launch(cfg)? };

        let budgets = self.budgets.as_mut_slice()?;
        let mut finished = Vec::new();
        self.active.retain(|&slot| {
            budgets[slot] = budgets[slot].saturating_sub(1);
            let done = budgets[slot] == 0;
            if done {
                finished.push(slot);
            }
            !done
        });
        self.stream.synchronize()?;
        Ok(finished)
    }
}
