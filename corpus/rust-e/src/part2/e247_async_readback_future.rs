//! case: near-miss of a read before sync in async code: an `async fn` enqueues the readback and awaits a small future that polls the stream until it reports completion, so the pinned result is read only after the copy has finished
//! expect: none

use std::future::Future;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};

use cuda_lint_runtime::{Context, DeviceBuffer, Error, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const TOPK_SRC: &str = r#"
extern "C" __global__ void block_max(const float* x, float* block_best, unsigned int n) {
    __shared__ float best[256];
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    best[threadIdx.x] = i < n ? x[i] : -3.4e38f;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) best[threadIdx.x] = fmaxf(best[threadIdx.x], best[threadIdx.x + s]);
        __syncthreads();
    }
    if (threadIdx.x == 0) block_best[blockIdx.x] = best[0];
}
"#;

/// Resolves once every operation enqueued on the stream so far has completed.
pub struct StreamDone<'s> {
    stream: &'s Stream,
}

impl Future for StreamDone<'_> {
    type Output = Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        match self.stream.query() {
            Ok(true) => Poll::Ready(Ok(())),
            Ok(false) => {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
            Err(e) => Poll::Ready(Err(e)),
        }
    }
}

pub fn done(stream: &Stream) -> StreamDone<'_> {
    StreamDone { stream }
}

pub struct MaxReducer {
    stream: Stream,
    kernel: Kernel,
    partial: DeviceBuffer<f32>,
    partial_host: PinnedBuffer<f32>,
}

impl MaxReducer {
    pub fn new(ctx: &Context, max_n: u32) -> Result<Self> {
        let blocks = LaunchConfig::for_num_elems(max_n).grid.0 as usize;
        Ok(Self { stream: ctx.new_stream()?, kernel: ctx.load_cuda(TOPK_SRC)?.function("block_max")?, partial: ctx.alloc(blocks)?, partial_host: ctx.alloc_pinned(blocks)? })
    }

    pub async fn max(&mut self, x: &DeviceBuffer<f32>) -> Result<f32> {
        let n = x.len() as u32;
        let cfg = LaunchConfig::for_num_elems(n);
        if cfg.grid.0 as usize > self.partial.len() {
            return Err(Error::InvalidArgument { call: "block_max", reason: format!("{n} elements exceed the reducer's capacity") });
        }
        unsafe {
            self.stream.launch(&self.kernel, cfg, &[x, &self.partial, &n])?;
            self.stream.copy_dtoh_async(&mut self.partial_host, &self.partial)?;
        }
        done(&self.stream).await?;
        let blocks = cfg.grid.0 as usize;
        Ok(self.partial_host[..blocks].iter().copied().fold(f32::NEG_INFINITY, f32::max))
    }
}
