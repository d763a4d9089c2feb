//! case: near-miss. Scheduler's job kernel accumulates per-queue latency stats in a runtime-layer `ManagedBuffer`; the host reads and resets the stats only after `ctx.synchronize()`, in `drain_stats`, which every caller goes through
//! expect: none

use std::collections::HashMap;

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, ManagedBuffer, Result, Stream};

const JOBS_SRC: &str = r#"
extern "C" __global__ void run_and_time(const unsigned* queue_of, const float* cost, float* out,
                                        unsigned long long* stats, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long t0 = clock64();
    float x = cost[i];
    for (int k = 0; k < 64; ++k) x = sqrtf(x + 1.0f);
    out[i] = x;
    atomicAdd(&stats[queue_of[i] & 15u], (unsigned long long)(clock64() - t0));
}
"#;

pub struct QueueStats {
    pub cycles: HashMap<u32, u64>,
}

pub struct JobRunner {
    ctx: Context,
    streams: Vec<Stream>,
    kernel: Kernel,
    stats: ManagedBuffer<u64>,
}

impl JobRunner {
    pub fn new(ctx: &Context, lanes: usize) -> Result<Self> {
        let streams = (0..lanes).map(|_| ctx.new_stream()).collect::<Result<Vec<_>>>()?;
        Ok(Self { ctx: ctx.clone(), streams, kernel: ctx.load_cuda(JOBS_SRC)?.function("run_and_time")?, stats: ctx.alloc_managed::<u64>(16)? })
    }

    pub fn submit(&self, lane: usize, queue_of: &DeviceBuffer<u32>, cost: &DeviceBuffer<f32>, out: &mut DeviceBuffer<f32>) -> Result<()> {
        let n = cost.len() as u32;
        let s = &self.streams[lane % self.streams.len()];
        unsafe { s.launch(&self.kernel, LaunchConfig::for_num_elems(n), &[queue_of, cost, &*out, &self.stats, &n]) }
    }

    pub fn drain_stats(&mut self) -> Result<QueueStats> {
        self.ctx.synchronize()?;
        let cycles = self.stats.iter().enumerate().filter(|&(_, &c)| c > 0).map(|(q, &c)| (q as u32, c)).collect();
        self.stats.fill(0);
        Ok(QueueStats { cycles })
    }
}
