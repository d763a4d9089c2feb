//! case: sharded aggregation over `std::thread::scope`, one stream per shard from `new_stream`; each worker copies its partial sums into its own non-write-combined pinned buffer and reads them through `as_slice` with no explicit synchronize, which is correct here because with event tracking on and several streams cudarc records an event at the copy and `as_slice` waits on it
//! expect: none

use std::sync::Arc;
use std::thread;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const PARTIAL_SRC: &str = r#"
extern "C" __global__ void block_sums(const float* x, float* sums, unsigned n) {
    __shared__ float acc[256];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    acc[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) acc[threadIdx.x] += acc[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = acc[0];
}
"#;

pub struct ShardedSum {
    ctx: Arc<CudaContext>,
    kernel: CudaFunction,
}

impl ShardedSum {
    pub fn new(ctx: Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        let kernel = ctx.load_module(compile_ptx(PARTIAL_SRC)?)?.load_function("block_sums")?;
        Ok(Self { ctx, kernel })
    }

    fn shard_sum(&self, shard: &CudaSlice<f32>) -> Result<f64, DriverError> {
        let stream = self.ctx.new_stream()?;
        let n = shard.len() as u32;
        let cfg = LaunchConfig { grid_dim: (n.div_ceil(256).max(1), 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
        let mut partial = stream.alloc_zeros::<f32>(cfg.grid_dim.0 as usize)?;
        let mut host = unsafe { self.ctx.alloc_pinned_with_flags::<f32>(partial.len(), 0)? };
        unsafe { stream.launch_builder(&self.kernel).arg(shard).arg(&mut partial).arg(&n).launch(cfg)? };
        stream.memcpy_dtoh(&partial, &mut host)?;
        Ok(host.as_slice()?.iter().map(|&v| v as f64).sum())
    }

    pub fn total(&self, shards: &[CudaSlice<f32>]) -> Result<f64, DriverError> {
        thread::scope(|scope| {
            let workers: Vec<_> = shards.iter().map(|shard| scope.spawn(move || self.shard_sum(shard))).collect();
            workers
                .into_iter()
                .map(|w| w.join().expect("shard worker panicked"))
                .try_fold(0.0, |acc, r| r.map(|s| acc + s))
        })
    }
}
