//! case: GPU job scheduler reads a `__device__` work counter of its module (`cuModuleGetGlobal_v2`) to drive a persistent-kernel work queue, and its Drop "frees" that global with `cuMemFree_v2` as if it were an allocation
//! expect: mismatched_free=1

use std::ffi::CString;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Module, PinnedBuffer, Stream};
use cudarc::driver::sys;

const QUEUE_SRC: &str = r#"
__device__ unsigned int work_cursor;
extern "C" __global__ void drain_queue(const unsigned int* jobs, unsigned int* done, unsigned int n_jobs) {
    while (true) {
        unsigned int j = atomicAdd(&work_cursor, 1u);
        if (j >= n_jobs) return;
        done[j] = jobs[j] * 2u + 1u;
    }
}
"#;

#[derive(Debug)]
pub enum SchedError {
    Runtime(cuda_lint_runtime::Error),
    Driver(sys::CUresult),
}

impl From<cuda_lint_runtime::Error> for SchedError {
    fn from(e: cuda_lint_runtime::Error) -> Self {
        SchedError::Runtime(e)
    }
}

pub struct PersistentScheduler {
    ctx: Context,
    module: Module,
    drain: Kernel,
    stream: Stream,
    cursor: sys::CUdeviceptr,
    cursor_bytes: usize,
    shutting_down: Arc<AtomicBool>,
}

impl PersistentScheduler {
    pub fn new(ctx: &Context) -> Result<Self, SchedError> {
        let module = ctx.load_cuda(QUEUE_SRC)?;
        let drain = module.function("drain_queue")?;
        let stream = ctx.new_stream()?;
        ctx.bind_to_thread()?;
        let name = CString::new("work_cursor").unwrap();
        let mut cursor: sys::CUdeviceptr = 0;
        let mut cursor_bytes = 0usize;
        let r = unsafe { sys::cuModuleGetGlobal_v2(&mut cursor, &mut cursor_bytes, module.as_raw(), name.as_ptr()) };
        if r != sys::CUresult::CUDA_SUCCESS {
            return Err(SchedError::Driver(r));
        }
        Ok(Self { ctx: ctx.clone(), module, drain, stream, cursor, cursor_bytes, shutting_down: Arc::new(AtomicBool::new(false)) })
    }

    pub fn run_batch(&self, jobs: &PinnedBuffer<u32>, results: &mut PinnedBuffer<u32>) -> Result<(), SchedError> {
        let n = jobs.len() as u32;
        let jobs_dev: DeviceBuffer<u32> = self.stream.clone_htod(jobs)?;
        let done_dev = self.ctx.alloc_zeroed::<u32>(jobs.len())?;
        let r = unsafe { sys::cuMemsetD32Async(self.cursor, 0, 1, self.stream.as_raw()) };
        if r != sys::CUresult::CUDA_SUCCESS {
            return Err(SchedError::Driver(r));
        }
        let sms = self.ctx.properties()?.multiprocessor_count as u32;
        let cfg = LaunchConfig { grid: (sms * 2, 1, 1), block: (128, 1, 1), shared_mem_bytes: 0 };
        unsafe { self.stream.launch(&self.drain, cfg, &[&jobs_dev, &done_dev, &n])? };
        self.stream.copy_dtoh(results, &done_dev)?;
        Ok(())
    }

    pub fn shutdown_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.shutting_down)
    }
}

impl Drop for PersistentScheduler {
    fn drop(&mut self) {
        self.shutting_down.store(true, Ordering::SeqCst);
        let _ = self.stream.synchronize();
        if self.ctx.bind_to_thread().is_ok() {
            unsafe {
                let _ = sys::cuMemFree_v2(self.cursor); // EXPECT: mismatched_free
            }
        }
    }
}
