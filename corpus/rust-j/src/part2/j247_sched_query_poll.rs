//! case: near-miss. Cooperative GPU task scheduler polls `stream.query()` (runtime layer) between host tasks instead of blocking, and falls back to `synchronize()` at the deadline; the pinned result is read only once one of the two has reported the stream idle
//! expect: none

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const REDUCE_SRC: &str = r#"
extern "C" __global__ void sum_costs(const float* costs, unsigned n, float* total) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(total, costs[i]);
}
"#;

pub type HostTask = Box<dyn FnOnce() + Send>;

pub struct CoopScheduler {
    stream: Stream,
    kernel: Kernel,
    total_dev: DeviceBuffer<f32>,
    total_host: PinnedBuffer<f32>,
    host_tasks: VecDeque<HostTask>,
    pub deadline: Duration,
}

impl CoopScheduler {
    pub fn new(ctx: &Context) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(REDUCE_SRC)?.function("sum_costs")?,
            total_dev: ctx.alloc_zeroed::<f32>(1)?,
            total_host: ctx.alloc_pinned::<f32>(1)?,
            host_tasks: VecDeque::new(),
            deadline: Duration::from_millis(5),
        })
    }

    pub fn push_host_task(&mut self, t: HostTask) {
        self.host_tasks.push_back(t);
    }

    /// Sums `costs` on the GPU, running queued host tasks while it works.
    pub fn total_cost(&mut self, costs: &DeviceBuffer<f32>) -> Result<f32> {
        let n = costs.len() as u32;
        self.stream.memset_d32_async(&mut self.total_dev, 0)?;
        unsafe { self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(n), &[costs, &self.total_dev, &n])? };
        // SAFETY: total_host is read only after the stream reports idle below.
        unsafe { self.stream.copy_dtoh_async(&mut self.total_host, &self.total_dev)? };
        let start = Instant::now();
        loop {
            if self.stream.query()? {
                break;
            }
            if start.elapsed() >= self.deadline {
                self.stream.synchronize()?;
                break;
            }
            match self.host_tasks.pop_front() {
                Some(task) => task(),
                None => std::thread::yield_now(),
            }
        }
        Ok(self.total_host[0])
    }
}
