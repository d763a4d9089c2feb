//! case: near-miss: the pipeline's wait lives in a helper sub-module that calls cuStreamSynchronize on the raw handle of the same runtime-layer stream (one stream, two handles) before the host reads the pinned result
//! expect: none

mod fence;

use cuda_lint_runtime::{Context, DeviceBuffer, LaunchConfig, PinnedBuffer, Result, Stream};

const PREFIX_SRC: &str = r#"
extern "C" __global__ void block_sums(const unsigned int* flags, unsigned int* sums, unsigned int n) {
    __shared__ unsigned int acc;
    if (threadIdx.x == 0) acc = 0;
    __syncthreads();
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && flags[i]) atomicAdd(&acc, 1u);
    __syncthreads();
    if (threadIdx.x == 0) sums[blockIdx.x] = acc;
}
"#;

pub struct SelectionCounter {
    stream: Stream,
    sums: DeviceBuffer<u32>,
    sums_host: PinnedBuffer<u32>,
}

impl SelectionCounter {
    pub fn new(ctx: &Context, max_n: u32) -> Result<Self> {
        let blocks = LaunchConfig::for_num_elems(max_n).grid.0 as usize;
        Ok(Self { stream: ctx.new_stream()?, sums: ctx.alloc(blocks)?, sums_host: ctx.alloc_pinned(blocks)? })
    }

    /// Number of set flags per 256-element block.
    pub fn per_block(&mut self, ctx: &Context, flags: &DeviceBuffer<u32>) -> Result<Vec<u32>> {
        let kernel = ctx.load_cuda(PREFIX_SRC)?.function("block_sums")?;
        let n = flags.len() as u32;
        let cfg = LaunchConfig::for_num_elems(n);
        let blocks = cfg.grid.0 as usize;
        unsafe {
            self.stream.launch(&kernel, cfg, &[flags, &self.sums, &n])?;
            self.stream.copy_dtoh_async(&mut self.sums_host, &self.sums)?;
        }
        fence::wait(self.stream.as_raw(), "block_sums readback")?;
        Ok(self.sums_host[..blocks].to_vec())
    }
}
