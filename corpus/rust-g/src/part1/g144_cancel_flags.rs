//! case: generation server whose client-cancellation flags live in cudarc unified memory (global attach) and are read by the pruning kernel at the end of each step; a cancellation that arrives is written into the flags while the step's attention kernel, which does not use them, may still be running (`as_mut_slice` waits only for work on the flags themselves)
//! expect: managed_concurrent_access=1

use std::sync::mpsc::Receiver;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const STEP_SRC: &str = r#"
extern "C" __global__ void attention_step(const float* q, const float* k, float* out, unsigned dim, unsigned ctx_len) {
    unsigned d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d >= dim) return;
    float acc = 0.0f;
    for (unsigned t = 0; t < ctx_len; ++t) acc += q[d] * k[(size_t)t * dim + d];
    out[d] = acc / ctx_len;
}

extern "C" __global__ void prune_cancelled(const unsigned* cancel, int* active, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && cancel[i]) active[i] = 0;
}
"#;

pub struct Engine {
    stream: Arc<CudaStream>,
    attention: CudaFunction,
    prune: CudaFunction,
    cancel: UnifiedSlice<u32>,
    active: CudaSlice<i32>,
}

impl Engine {
    pub fn new(ctx: &Arc<CudaContext>, max_reqs: usize) -> Result<Self> {
        let stream = ctx.default_stream();
        let module = ctx.load_module(compile_ptx(STEP_SRC)?)?;
        let mut cancel = unsafe { ctx.alloc_unified::<u32>(max_reqs, true)? };
        cancel.as_mut_slice()?.fill(0);
        Ok(Engine {
            attention: module.load_function("attention_step")?,
            prune: module.load_function("prune_cancelled")?,
            active: stream.alloc_zeros::<i32>(max_reqs)?,
            cancel,
            stream,
        })
    }

    pub fn step(&mut self, q: &CudaSlice<f32>, k: &CudaSlice<f32>, out: &mut CudaSlice<f32>, ctx_len: u32, cancellations: &Receiver<usize>) -> Result<()> {
        let dim = q.len() as u32;
        let mut a = self.stream.launch_builder(&self.attention);
        a.arg(q).arg(k).arg(out).arg(&dim).arg(&ctx_len);
        unsafe { a.launch(LaunchConfig::for_num_elems(dim))? };

        // fold in the cancellations that arrived during this step
        for req in cancellations.try_iter() {
            self.cancel.as_mut_slice()?[req] = 1; // EXPECT: managed_concurrent_access
        }

        let n = self.cancel.len() as u32;
        let mut p = self.stream.launch_builder(&self.prune);
        p.arg(&self.cancel).arg(&mut self.active).arg(&n);
        unsafe { p.launch(LaunchConfig::for_num_elems(n))? };
        self.stream.synchronize()?;
        Ok(())
    }
}
