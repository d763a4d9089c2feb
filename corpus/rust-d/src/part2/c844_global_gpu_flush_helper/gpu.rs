//! The process-wide GPU handle and its helpers.

use std::sync::{Mutex, OnceLock};

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, PinnedBuffer, Result, Stream};

const XOR_SRC: &str = r#"
extern "C" __global__ void xor_blocks(const unsigned int* data, unsigned int n, unsigned int* partial) {
    __shared__ unsigned int acc[256];
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    acc[threadIdx.x] = i < n ? data[i] * 0x9E3779B1u : 0u;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) acc[threadIdx.x] ^= acc[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = acc[0];
}
"#;

pub const MAX_BLOCKS: usize = 4096;

pub struct Gpu {
    pub ctx: Context,
    pub stream: Stream,
    pub xor_blocks: Kernel,
    pub partial: Mutex<(DeviceBuffer<u32>, PinnedBuffer<u32>)>,
}

static GPU: OnceLock<Gpu> = OnceLock::new();

pub fn gpu() -> Result<&'static Gpu> {
    if let Some(g) = GPU.get() {
        return Ok(g);
    }
    let ctx = Context::new(0)?;
    let g = Gpu {
        stream: ctx.new_stream()?,
        xor_blocks: ctx.load_cuda(XOR_SRC)?.function("xor_blocks")?,
        partial: Mutex::new((ctx.alloc(MAX_BLOCKS)?, ctx.alloc_pinned(MAX_BLOCKS)?)),
        ctx,
    };
    Ok(GPU.get_or_init(|| g))
}

/// Waits for everything queued on the process-wide stream.
pub fn flush() -> Result<()> {
    gpu()?.stream.synchronize()
}
