//! case: EBU R128-style loudness meter with two cudarc streams (upload and compute: multi-stream mode, event tracking on by default); per-block mean squares come back into non-write-combined pinned memory and are read through as_slice, which waits on the event cudarc recorded after the copy (near-miss: no explicit synchronize)
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const MS_SRC: &str = r#"
extern "C" __global__ void block_mean_square(const float* x, float* ms, unsigned block_len, unsigned n_blocks) {
    __shared__ float acc[256];
    unsigned b = blockIdx.x;
    if (b >= n_blocks) return;
    float s = 0.f;
    for (unsigned i = threadIdx.x; i < block_len; i += blockDim.x) { float v = x[b * block_len + i]; s += v * v; }
    acc[threadIdx.x] = s;
    __syncthreads();
    for (unsigned w = blockDim.x / 2; w > 0; w >>= 1) { if (threadIdx.x < w) acc[threadIdx.x] += acc[threadIdx.x + w]; __syncthreads(); }
    if (threadIdx.x == 0) ms[b] = acc[0] / block_len;
}
"#;

pub struct LoudnessMeter {
    upload: Arc<CudaStream>,
    compute: Arc<CudaStream>,
    kernel: CudaFunction,
    block_len: usize,
    pcm_host: PinnedHostSlice<f32>,
    ms_host: PinnedHostSlice<f32>,
    pcm_dev: CudaSlice<f32>,
    ms_dev: CudaSlice<f32>,
}

impl LoudnessMeter {
    pub fn new(ctx: &Arc<CudaContext>, block_len: usize, max_blocks: usize) -> Result<Self, Box<dyn std::error::Error>> {
        assert!(ctx.is_event_tracking());
        let upload = ctx.new_stream()?;
        let compute = ctx.new_stream()?;
        let kernel = ctx.load_module(compile_ptx(MS_SRC)?)?.load_function("block_mean_square")?;
        Ok(Self {
            pcm_host: unsafe { ctx.alloc_pinned_with_flags::<f32>(block_len * max_blocks, 0)? },
            ms_host: unsafe { ctx.alloc_pinned_with_flags::<f32>(max_blocks, 0)? },
            pcm_dev: upload.alloc_zeros::<f32>(block_len * max_blocks)?,
            ms_dev: compute.alloc_zeros::<f32>(max_blocks)?,
            upload,
            compute,
            kernel,
            block_len,
        })
    }

    /// Returns the integrated loudness (LUFS, ungated) of `pcm`.
    pub fn measure(&mut self, pcm: &[f32]) -> Result<f32, Box<dyn std::error::Error>> {
        let n_blocks = (pcm.len() / self.block_len).min(self.ms_host.len());
        let used = n_blocks * self.block_len;
        self.pcm_host.as_mut_slice()?[..used].copy_from_slice(&pcm[..used]);
        self.upload.memcpy_htod(&self.pcm_host, &mut self.pcm_dev)?;

        // The compute stream waits on pcm_dev's write event (recorded by the upload).
        let (bl, nb) = (self.block_len as u32, n_blocks as u32);
        let cfg = LaunchConfig { grid_dim: (nb, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
        unsafe {
            self.compute.launch_builder(&self.kernel).arg(&self.pcm_dev).arg(&mut self.ms_dev).arg(&bl).arg(&nb).launch(cfg)?;
        }
        self.compute.memcpy_dtoh(&self.ms_dev, &mut self.ms_host)?;

        // as_slice synchronizes the event recorded on ms_host after the copy.
        let ms = self.ms_host.as_slice()?;
        let mean: f32 = ms[..n_blocks].iter().sum::<f32>() / n_blocks.max(1) as f32;
        Ok(-0.691 + 10.0 * mean.max(1e-12).log10())
    }
}
