use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

use super::ring::MirroredRing;

pub const BLOCK: usize = 512;
pub const TAPS: usize = 32;

const FIR_SRC: &str = r#"
extern "C" __global__ void push_and_filter(float* ring, const float* mirror, const float* block,
                                           const float* taps, float* out,
                                           unsigned int head, unsigned int cap, unsigned int ntaps)
{
    unsigned int i = threadIdx.x;
    unsigned int pos = (head + i) % cap;
    ring[pos] = block[i];
    __syncthreads();
    // mirror[pos - k] is contiguous for k < cap: indices below zero fall into the first view
    const float* window = mirror + pos;
    float acc = 0.0f;
    for (unsigned int k = 0; k < ntaps; ++k) acc += taps[k] * window[-(int)k];
    out[i] = acc;
}
"#;

pub struct StreamingFir {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    ring: MirroredRing,
    head: u32,
    staging: PinnedHostSlice<f32>,
    d_block: CudaSlice<f32>,
    d_taps: CudaSlice<f32>,
    d_out: CudaSlice<f32>,
    out: PinnedHostSlice<f32>,
}

impl StreamingFir {
    pub fn new(ctx: &Arc<CudaContext>, history_bytes: usize) -> Result<Self, Box<dyn Error>> {
        let stream = ctx.new_stream()?;
        let kernel = ctx.load_module(compile_ptx(FIR_SRC)?)?.load_function("push_and_filter")?;
        let ring = MirroredRing::new(ctx, history_bytes)?;
        let taps: [f32; TAPS] = std::array::from_fn(|k| 1.0 / (1.0 + k as f32));
        let mut d_taps = stream.alloc_zeros::<f32>(TAPS)?;
        stream.memcpy_htod(&taps, &mut d_taps)?;
        Ok(Self {
            staging: unsafe { ctx.alloc_pinned::<f32>(BLOCK)? },
            d_block: stream.alloc_zeros::<f32>(BLOCK)?,
            d_out: stream.alloc_zeros::<f32>(BLOCK)?,
            out: unsafe { ctx.alloc_pinned_with_flags::<f32>(BLOCK, 0)? },
            d_taps,
            ring,
            head: 0,
            stream,
            kernel,
        })
    }

    /// Filters one block of `BLOCK` samples and returns the output energy.
    pub fn push(&mut self, samples: &[f32]) -> Result<f32, Box<dyn Error>> {
        self.staging.as_mut_slice()?.copy_from_slice(&samples[..BLOCK]);
        self.stream.memcpy_htod(&self.staging, &mut self.d_block)?;

        let (ring, mirror) = (self.ring.head(), self.ring.mirror());
        let cap = self.ring.len::<f32>() as u32;
        let ntaps = TAPS as u32;
        let cfg = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (BLOCK as u32, 1, 1), shared_mem_bytes: 0 };
        let mut launch = self.stream.launch_builder(&self.kernel);
        launch
            .arg(&ring)
            .arg(&mirror)
            .arg(&self.d_block)
            .arg(&self.d_taps)
            .arg(&mut self.d_out)
            .arg(&self.head)
            .arg(&cap)
            .arg(&ntaps);
        unsafe { launch.launch(cfg)? }; // EXPECT: unfenced_vmm_alias
        self.head = (self.head + BLOCK as u32) % cap;

        self.stream.memcpy_dtoh(&self.d_out, &mut self.out)?;
        self.stream.synchronize()?;
        Ok(self.out.as_slice()?.iter().map(|y| y * y).sum())
    }
}
