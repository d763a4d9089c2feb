//! case: a runtime-API job queue allocates its descriptor array with cudaMallocManaged(cudaMemAttachHost), fills it while other kernels run, and attaches it to its stream (single) before the GPU reads it
//! expect: none
use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys as rt;

const SRC: &str = r#"
struct Job { unsigned offset; unsigned len; float scale; };
extern "C" __global__ void run_jobs(const Job* jobs, float* data, unsigned njobs) {
    unsigned j = blockIdx.x;
    if (j >= njobs) return;
    for (unsigned i = threadIdx.x; i < jobs[j].len; i += blockDim.x) data[jobs[j].offset + i] *= jobs[j].scale;
}
extern "C" __global__ void background(float* scratch, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) scratch[i] = scratch[i] * 0.99f;
}
"#;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct Job {
    offset: u32,
    len: u32,
    scale: f32,
}

pub struct JobQueue {
    jobs: *mut Job,
    capacity: usize,
    job_stream: Arc<CudaStream>,
}

impl JobQueue {
    pub fn new(ctx: &Arc<CudaContext>, capacity: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let mut p: *mut c_void = std::ptr::null_mut();
        unsafe { rt::cudaMallocManaged(&mut p, capacity * std::mem::size_of::<Job>(), rt::cudaMemAttachHost).result()? };
        Ok(Self { jobs: p.cast(), capacity, job_stream: ctx.new_stream()? })
    }

    pub fn submit(&mut self, f: &CudaFunction, batch: &[Job], data: &mut CudaSlice<f32>) -> Result<(), Box<dyn std::error::Error>> {
        let n = batch.len().min(self.capacity);
        // host-attached: writable by the CPU whatever the GPU is running
        unsafe { std::ptr::copy_nonoverlapping(batch.as_ptr(), self.jobs, n) };
        let s = self.job_stream.cu_stream() as rt::cudaStream_t;
        unsafe { rt::cudaStreamAttachMemAsync(s, self.jobs.cast(), 0, rt::cudaMemAttachSingle).result()? };
        let jobs_ptr = self.jobs as u64;
        let njobs = n as u32;
        let cfg = LaunchConfig { grid_dim: (njobs.max(1), 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
        unsafe { self.job_stream.launch_builder(f).arg(&jobs_ptr).arg(data).arg(&njobs).launch(cfg)? };
        self.job_stream.synchronize()?;
        unsafe { rt::cudaStreamAttachMemAsync(s, self.jobs.cast(), 0, rt::cudaMemAttachHost).result()? };
        self.job_stream.synchronize()?;
        Ok(())
    }
}

pub fn run(ctx: &Arc<CudaContext>, batches: &[Vec<Job>]) -> Result<(), Box<dyn std::error::Error>> {
    let module = ctx.load_module(compile_ptx(SRC)?)?;
    let (run_jobs, background) = (module.load_function("run_jobs")?, module.load_function("background")?);
    let bg_stream = ctx.new_stream()?;
    let mut scratch: CudaSlice<f32> = bg_stream.alloc_zeros(1 << 24)?;
    let mut queue = JobQueue::new(ctx, 1024)?;
    let mut data: CudaSlice<f32> = queue.job_stream.alloc_zeros(1 << 20)?;
    for batch in batches {
        let n = scratch.len() as u32;
        unsafe { bg_stream.launch_builder(&background).arg(&mut scratch).arg(&n).launch(LaunchConfig::for_num_elems(n))? };
        queue.submit(&run_jobs, batch, &mut data)?;
    }
    bg_stream.synchronize()?;
    unsafe { rt::cudaFree(queue.jobs.cast()).result()? };
    Ok(())
}
