//! case: a top-k selector takes scratch from the stream-ordered pool (`driver::result::malloc_async`) and returns it with `free_async` on the same stream after the kernels that use it, then reads its pinned result after synchronizing
//! expect: none

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::result;
use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const TOPK_SRC: &str = r#"
extern "C" __global__ void block_max(const float* x, float* tmp_val, unsigned* tmp_idx, unsigned n) {
    __shared__ float v[256]; __shared__ unsigned ix[256];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    v[threadIdx.x] = i < n ? x[i] : -INFINITY; ix[threadIdx.x] = i;
    __syncthreads();
    for (unsigned s = 128; s > 0; s >>= 1) {
        if (threadIdx.x < s && v[threadIdx.x + s] > v[threadIdx.x]) { v[threadIdx.x] = v[threadIdx.x + s]; ix[threadIdx.x] = ix[threadIdx.x + s]; }
        __syncthreads();
    }
    if (threadIdx.x == 0) { tmp_val[blockIdx.x] = v[0]; tmp_idx[blockIdx.x] = ix[0]; }
}
extern "C" __global__ void final_max(const float* tmp_val, const unsigned* tmp_idx, unsigned nblocks, unsigned* best) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    float bv = -INFINITY; unsigned bi = 0;
    for (unsigned b = 0; b < nblocks; ++b) if (tmp_val[b] > bv) { bv = tmp_val[b]; bi = tmp_idx[b]; }
    *best = bi;
}
"#;

pub struct ArgMax {
    stream: Arc<CudaStream>,
    block_max: CudaFunction,
    final_max: CudaFunction,
    best: CudaSlice<u32>,
    best_host: PinnedHostSlice<u32>,
}

impl ArgMax {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, Box<dyn Error>> {
        let stream = ctx.new_stream()?;
        let module = ctx.load_module(compile_ptx(TOPK_SRC)?)?;
        Ok(Self {
            block_max: module.load_function("block_max")?,
            final_max: module.load_function("final_max")?,
            best: stream.alloc_zeros::<u32>(1)?,
            best_host: unsafe { ctx.alloc_pinned_with_flags::<u32>(1, 0)? },
            stream,
        })
    }

    pub fn argmax(&mut self, x: &CudaSlice<f32>) -> Result<usize, Box<dyn Error>> {
        let n = x.len() as u32;
        let nblocks = n.div_ceil(256);
        let cu_stream = self.stream.cu_stream();
        let tmp_val = unsafe { result::malloc_async(cu_stream, nblocks as usize * 4)? };
        let tmp_idx = unsafe { result::malloc_async(cu_stream, nblocks as usize * 4)? };

        let cfg = LaunchConfig { grid_dim: (nblocks, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
        let one = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (32, 1, 1), shared_mem_bytes: 0 };
        unsafe {
            self.stream.launch_builder(&self.block_max).arg(x).arg(&tmp_val).arg(&tmp_idx).arg(&n).launch(cfg)?;
            self.stream.launch_builder(&self.final_max).arg(&tmp_val).arg(&tmp_idx).arg(&nblocks).arg(&mut self.best).launch(one)?;
            // Stream-ordered: the pool reuses these only after the kernels above have run.
            result::free_async(tmp_val, cu_stream)?;
            result::free_async(tmp_idx, cu_stream)?;
        }
        self.stream.memcpy_dtoh(&self.best, &mut self.best_host)?;
        self.stream.synchronize()?;
        Ok(self.best_host.as_slice()?[0] as usize)
    }
}

