//! case: batch scheduler keeps its queue counters in cudarc managed memory (`alloc_unified(.., true)`, attached globally) and bumps them from the host right after launching a batch kernel that only touches the job buffers: host access to managed memory while a kernel runs
//! expect: managed_concurrent_access=1

use std::collections::VecDeque;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const BATCH_SRC: &str = r#"
extern "C" __global__ void run_jobs(const float* inputs, float* outputs, unsigned n, unsigned iters) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = inputs[i];
    for (unsigned k = 0; k < iters; ++k) x = x * 0.999f + 0.5f;
    outputs[i] = x;
}
"#;

pub const SLOT_SUBMITTED: usize = 0;
pub const SLOT_COMPLETED: usize = 1;
pub const SLOT_QUEUED: usize = 2;

pub struct Job {
    pub id: u64,
    pub iters: u32,
}

pub struct BatchScheduler {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    counters: UnifiedSlice<u64>,
    queue: VecDeque<Job>,
    inputs: CudaSlice<f32>,
    outputs: CudaSlice<f32>,
}

impl BatchScheduler {
    pub fn new(ctx: &Arc<CudaContext>, lanes: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.default_stream();
        let kernel = ctx.load_module(compile_ptx(BATCH_SRC)?)?.load_function("run_jobs")?;
        let counters = unsafe { ctx.alloc_unified::<u64>(8, true)? };
        Ok(Self {
            ctx: ctx.clone(),
            inputs: stream.alloc_zeros::<f32>(lanes)?,
            outputs: stream.alloc_zeros::<f32>(lanes)?,
            stream,
            kernel,
            counters,
            queue: VecDeque::new(),
        })
    }

    pub fn enqueue(&mut self, job: Job) {
        self.queue.push_back(job);
    }

    pub fn dispatch(&mut self) -> Result<usize, DriverError> {
        let Some(job) = self.queue.pop_front() else { return Ok(0) };
        let n = self.inputs.len() as u32;
        let iters = job.iters;
        unsafe {
            self.stream
                .launch_builder(&self.kernel)
                .arg(&self.inputs)
                .arg(&mut self.outputs)
                .arg(&n)
                .arg(&iters)
                .launch(LaunchConfig::for_num_elems(n))
        }?;
        let queued = self.queue.len() as u64;
        self.counters.as_mut_slice()?[SLOT_SUBMITTED] += 1; // EXPECT: managed_concurrent_access
        self.counters.as_mut_slice()?[SLOT_QUEUED] = queued;
        Ok(1)
    }

    pub fn complete(&mut self) -> Result<u64, DriverError> {
        self.stream.synchronize()?;
        let counters = self.counters.as_mut_slice()?;
        counters[SLOT_COMPLETED] += 1;
        Ok(counters[SLOT_COMPLETED])
    }
}
