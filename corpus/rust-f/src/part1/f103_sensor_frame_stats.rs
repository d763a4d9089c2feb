//! case: per-block partial sums of a sensor frame are copied into a buffer from cudarc's `alloc_pinned` (write-combined in 0.19) and folded on the host after a proper synchronize: correct, but every host read of that buffer is uncached
//! expect: write_combined_host_read=1

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const REDUCE_SRC: &str = r#"
extern "C" __global__ void synth_frame(float* frame, unsigned int n, float phase)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) frame[i] = __sinf(phase + 0.001f * i) * 100.0f;
}

extern "C" __global__ void block_stats(const float* frame, unsigned int n, float* partial_sum, float* partial_max)
{
    __shared__ float s_sum[256];
    __shared__ float s_max[256];
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? frame[i] : 0.0f;
    s_sum[threadIdx.x] = v;
    s_max[threadIdx.x] = i < n ? v : -3.0e38f;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            s_sum[threadIdx.x] += s_sum[threadIdx.x + s];
            s_max[threadIdx.x] = fmaxf(s_max[threadIdx.x], s_max[threadIdx.x + s]);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) { partial_sum[blockIdx.x] = s_sum[0]; partial_max[blockIdx.x] = s_max[0]; }
}
"#;

const BLOCK: u32 = 256;

#[derive(Debug, Default, Clone, Copy)]
pub struct FrameStats {
    pub mean: f32,
    pub max: f32,
}

pub struct StatsCollector {
    stream: Arc<CudaStream>,
    synth: CudaFunction,
    stats: CudaFunction,
    frame: CudaSlice<f32>,
    partial_sum: CudaSlice<f32>,
    partial_max: CudaSlice<f32>,
    /// Host copy of [partial sums | partial maxima].
    host: PinnedHostSlice<f32>,
    blocks: usize,
}

impl StatsCollector {
    pub fn new(ctx: &Arc<CudaContext>, frame_len: usize) -> Result<Self, Box<dyn Error>> {
        let stream = ctx.new_stream()?;
        let module = ctx.load_module(compile_ptx(REDUCE_SRC)?)?;
        let blocks = frame_len.div_ceil(BLOCK as usize);
        Ok(Self {
            synth: module.load_function("synth_frame")?,
            stats: module.load_function("block_stats")?,
            frame: stream.alloc_zeros::<f32>(frame_len)?,
            partial_sum: stream.alloc_zeros::<f32>(blocks)?,
            partial_max: stream.alloc_zeros::<f32>(blocks)?,
            host: unsafe { ctx.alloc_pinned::<f32>(2 * blocks)? },
            blocks,
            stream,
        })
    }

    pub fn collect(&mut self, phase: f32) -> Result<FrameStats, Box<dyn Error>> {
        let n = self.frame.len() as u32;
        let cfg = LaunchConfig { grid_dim: (self.blocks as u32, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 };
        unsafe {
            self.stream.launch_builder(&self.synth).arg(&mut self.frame).arg(&n).arg(&phase).launch(cfg)?;
            self.stream
                .launch_builder(&self.stats)
                .arg(&self.frame)
                .arg(&n)
                .arg(&mut self.partial_sum)
                .arg(&mut self.partial_max)
                .launch(cfg)?;
        }
        let blocks = self.blocks;
        {
            let host = self.host.as_mut_slice()?;
            let (sums, maxes) = host.split_at_mut(blocks);
            self.stream.memcpy_dtoh(&self.partial_sum, sums)?;
            self.stream.memcpy_dtoh(&self.partial_max, maxes)?;
        }
        self.stream.synchronize()?;

        let host = self.host.as_slice()?;
        let sum: f32 = host[..blocks].iter().sum(); // EXPECT: write_combined_host_read
        let max = host[blocks..].iter().copied().fold(f32::MIN, f32::max);
        Ok(FrameStats { mean: sum / n as f32, max })
    }
}

pub fn run() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let mut collector = StatsCollector::new(&ctx, 1 << 22)?;
    for k in 0..4 {
        let s = collector.collect(k as f32 * 0.25)?;
        println!("frame {k}: mean {:.3} max {:.3}", s.mean, s.max);
    }
    Ok(())
}
