//! case: an image-statistics pass reads a 256-bin histogram back into memory from cudarc's `alloc_pinned`, which is write-combined in cudarc 0.19; the copy is synchronized, but the host then scans the bins (a read of uncached memory)
//! expect: write_combined_host_read=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const BINS: usize = 256;

const HIST_SRC: &str = r#"
extern "C" __global__ void luma_hist(const unsigned char* rgb, unsigned int* bins, unsigned int pixels) {
    unsigned int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < pixels) {
        unsigned int y = (77u * rgb[3 * p] + 150u * rgb[3 * p + 1] + 29u * rgb[3 * p + 2]) >> 8;
        atomicAdd(&bins[y], 1u);
    }
}
"#;

pub struct Exposure {
    pub dark_fraction: f32,
    pub peak_bin: usize,
}

pub struct HistogramPass {
    stream: Arc<CudaStream>,
    bins_dev: CudaSlice<u32>,
    bins_host: PinnedHostSlice<u32>,
    kernel: cudarc::driver::CudaFunction,
}

impl HistogramPass {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.default_stream();
        let kernel = ctx.load_module(compile_ptx(HIST_SRC)?)?.load_function("luma_hist")?;
        let bins_dev = stream.alloc_zeros::<u32>(BINS)?;
        let bins_host = unsafe { ctx.alloc_pinned::<u32>(BINS)? };
        Ok(Self { stream, bins_dev, bins_host, kernel })
    }

    pub fn measure(&mut self, frame: &CudaSlice<u8>) -> Result<Exposure, Box<dyn std::error::Error>> {
        let pixels = (frame.len() / 3) as u32;
        self.stream.memset_zeros(&mut self.bins_dev)?;
        let mut launch = self.stream.launch_builder(&self.kernel);
        launch.arg(frame).arg(&mut self.bins_dev).arg(&pixels);
        unsafe { launch.launch(LaunchConfig::for_num_elems(pixels))? };

        self.stream.memcpy_dtoh(&self.bins_dev, &mut self.bins_host)?;
        self.stream.synchronize()?;

        let bins: Vec<u32> = self.bins_host.as_slice()?.to_vec(); // EXPECT: write_combined_host_read
        let total: u64 = bins.iter().map(|&b| b as u64).sum();
        let dark: u64 = bins[..32].iter().map(|&b| b as u64).sum();
        let peak_bin = bins.iter().enumerate().max_by_key(|&(_, &c)| c).map(|(i, _)| i).unwrap_or(0);
        Ok(Exposure { dark_fraction: dark as f32 / total.max(1) as f32, peak_bin })
    }
}
