//! case: GPU job scheduler (cudarc) that keeps its counters in globally attached managed memory (alloc_unified(.., true)) and bumps them on the host right after enqueuing a job kernel that does not touch them: a host access while a kernel may run
//! expect: managed_concurrent_access=1

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;
use std::collections::VecDeque;
use std::sync::Arc;

const JOBS_SRC: &str = r#"
extern "C" __global__ void run_jobs(const float* params, float* results, unsigned n, unsigned iters) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = params[i];
    for (unsigned k = 0; k < iters; ++k) x = x * 0.5f + 1.0f / (x + 1.0f);
    results[i] = x;
}
"#;

pub const SUBMITTED: usize = 0;
pub const LAUNCHES: usize = 1;
pub const COMPLETED: usize = 2;

pub struct Job {
    pub id: u64,
    pub param: f32,
}

pub trait JobSink {
    fn completed(&mut self, ids: &[u64], results: &[f32]);
}

pub struct Scheduler {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    queue: VecDeque<Job>,
    metrics: UnifiedSlice<u64>,
    d_params: CudaSlice<f32>,
    d_results: CudaSlice<f32>,
    batch: usize,
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

impl Scheduler {
    pub fn new(ctx: &Arc<CudaContext>, batch: usize) -> Res<Self> {
        let module = ctx.load_module(compile_ptx(JOBS_SRC)?)?;
        let stream = ctx.new_stream()?;
        let mut metrics = unsafe { ctx.alloc_unified::<u64>(8, true)? };
        metrics.as_mut_slice()?.fill(0);
        Ok(Scheduler {
            kernel: module.load_function("run_jobs")?,
            queue: VecDeque::new(),
            metrics,
            d_params: stream.alloc_zeros(batch)?,
            d_results: stream.alloc_zeros(batch)?,
            batch,
            stream,
        })
    }

    pub fn submit(&mut self, job: Job) {
        self.queue.push_back(job);
    }

    /// Runs one batch; `params_host` is the caller's page-locked parameter block.
    pub fn tick(&mut self, params_host: &cudarc::driver::PinnedHostSlice<f32>, sink: &mut dyn JobSink) -> Res<usize> {
        let take = self.queue.len().min(self.batch);
        if take == 0 {
            return Ok(0);
        }
        let jobs: Vec<Job> = self.queue.drain(..take).collect();
        self.stream.memcpy_htod(params_host, &mut self.d_params)?;
        let n = take as u32;
        let iters = 64u32;
        unsafe {
            self.stream
                .launch_builder(&self.kernel)
                .arg(&self.d_params)
                .arg(&mut self.d_results)
                .arg(&n)
                .arg(&iters)
                .launch(LaunchConfig::for_num_elems(n))?;
        }
        // Book-keeping while the GPU works.
        self.metrics.as_mut_slice()?[SUBMITTED] += take as u64; // EXPECT: managed_concurrent_access
        self.metrics.as_mut_slice()?[LAUNCHES] += 1;

        let mut results = unsafe { self.stream.context().alloc_pinned_with_flags::<f32>(take, 0)? };
        self.stream.memcpy_dtoh(&self.d_results.slice(0..take), &mut results)?;
        self.stream.synchronize()?;
        let ids: Vec<u64> = jobs.iter().map(|j| j.id).collect();
        sink.completed(&ids, results.as_slice()?);
        self.metrics.as_mut_slice()?[COMPLETED] += take as u64;
        Ok(take)
    }

    pub fn counters(&self) -> Res<[u64; 3]> {
        let m = self.metrics.as_slice()?;
        Ok([m[SUBMITTED], m[LAUNCHES], m[COMPLETED]])
    }
}
