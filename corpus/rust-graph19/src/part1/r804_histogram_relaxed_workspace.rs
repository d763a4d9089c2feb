//! Activation-histogram monitor of a training job: per-block histograms are
//! merged into one, captured once and replayed every N steps. Like the sampler
//! beside it, the per-block workspace is allocated lazily inside the capture,
//! but this capture runs in relaxed mode, where `cuMemAlloc` is permitted (the
//! allocation happens at once and is not recorded in the graph).

use std::sync::Arc;

use cudarc::driver::{
    result, sys, CudaContext, CudaFunction, CudaGraph, CudaSlice, CudaStream, LaunchConfig,
    PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const HIST_KERNELS: &str = r#"
#define MAX_BINS 256
extern "C" __global__ void block_hist(const float *x, unsigned int *partial, float lo,
                                      float inv_width, int n, int bins) {
    __shared__ unsigned int local[MAX_BINS];
    for (int b = threadIdx.x; b < bins; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int b = (int)((x[i] - lo) * inv_width);
        b = min(max(b, 0), bins - 1);
        atomicAdd(&local[b], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < bins; b += blockDim.x) partial[blockIdx.x * bins + b] = local[b];
}

extern "C" __global__ void merge_hist(const unsigned int *partial, unsigned int *hist,
                                      int blocks, int bins) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= bins) return;
    unsigned int total = 0;
    for (int k = 0; k < blocks; ++k) total += partial[k * bins + b];
    hist[b] = total;
}
"#;

const BLOCKS: usize = 64;

pub struct HistogramMonitor {
    stream: Arc<CudaStream>,
    block_hist: CudaFunction,
    merge_hist: CudaFunction,
    d_hist: CudaSlice<u32>,
    partial: sys::CUdeviceptr,
    bins: usize,
    graph: Option<CudaGraph>,
}

impl HistogramMonitor {
    pub fn new(ctx: &Arc<CudaContext>, bins: usize) -> Result<Self> {
        let stream = ctx.new_stream()?;
        let module = ctx.load_module(compile_ptx(HIST_KERNELS)?)?;
        let block_hist = module.load_function("block_hist")?;
        let merge_hist = module.load_function("merge_hist")?;
        let d_hist = stream.alloc_zeros::<u32>(bins.min(256))?;
        Ok(Self {
            stream,
            block_hist,
            merge_hist,
            d_hist,
            partial: 0,
            bins: bins.min(256),
            graph: None,
        })
    }

    /// Captures the histogram of `activations` over [lo, hi).
    pub fn capture(&mut self, activations: &CudaSlice<f32>, lo: f32, hi: f32) -> Result<()> {
        let n = activations.len() as i32;
        let bins = self.bins as i32;
        let blocks = BLOCKS as i32;
        let inv_width = self.bins as f32 / (hi - lo);
        self.graph = None;
        self.stream.synchronize()?;

        self.stream
            .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED)?;
        if self.partial == 0 {
            self.partial =
                unsafe { result::malloc_sync(BLOCKS * self.bins * std::mem::size_of::<u32>()) }?;
        }
        let mut per_block = self.stream.launch_builder(&self.block_hist);
        per_block
            .arg(activations)
            .arg(&self.partial)
            .arg(&lo)
            .arg(&inv_width)
            .arg(&n)
            .arg(&bins);
        unsafe {
            per_block.launch(LaunchConfig {
                grid_dim: (BLOCKS as u32, 1, 1),
                block_dim: (256, 1, 1),
                shared_mem_bytes: 0,
            })
        }?;
        let mut merge = self.stream.launch_builder(&self.merge_hist);
        merge
            .arg(&self.partial)
            .arg(&mut self.d_hist)
            .arg(&blocks)
            .arg(&bins);
        unsafe { merge.launch(LaunchConfig::for_num_elems(self.bins as u32)) }?;
        self.graph = self
            .stream
            .end_capture(sys::CUgraphInstantiate_flags(0))?;
        Ok(())
    }

    /// Replays the captured histogram and returns the bin counts.
    pub fn sample(&mut self, ctx: &Arc<CudaContext>) -> Result<Vec<u32>> {
        let graph = self.graph.as_ref().ok_or("histogram not captured")?;
        let mut h_hist = unsafe { ctx.alloc_pinned_with_flags::<u32>(self.bins, 0)? };
        graph.launch()?;
        self.stream.memcpy_dtoh(&self.d_hist, &mut h_hist)?;
        self.stream.synchronize()?;
        Ok(h_hist.as_slice()?.to_vec())
    }
}

impl Drop for HistogramMonitor {
    fn drop(&mut self) {
        self.graph = None;
        let _ = self.stream.synchronize();
        if self.partial != 0 {
            unsafe {
                let _ = result::free_sync(self.partial);
            }
        }
    }
}
