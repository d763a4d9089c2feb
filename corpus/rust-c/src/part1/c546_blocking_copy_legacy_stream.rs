//! case: a histogram kernel runs on a cudarc stream from `new_stream` (non-blocking), and the result is fetched with `result::memcpy_dtoh_sync` (cuMemcpyDtoH, legacy default stream): the blocking copy does not wait for non-blocking streams, so it may read the bins while the kernel still writes them
//! expect: missing_sync=1
use std::sync::Arc;

use cudarc::driver::{result, CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const HIST_SRC: &str = r#"
extern "C" __global__ void byte_hist(const unsigned char* data, unsigned int* bins, int n) {
    __shared__ unsigned int local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}
"#;

pub struct EntropyProbe {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    bins: CudaSlice<u32>,
}

impl EntropyProbe {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let kernel = ctx.load_module(compile_ptx(HIST_SRC)?)?.load_function("byte_hist")?;
        let bins = stream.alloc_zeros::<u32>(256)?;
        Ok(Self { stream, kernel, bins })
    }

    /// Shannon entropy (bits per byte) of a device buffer, e.g. to detect compressed payloads.
    pub fn entropy(&mut self, data: &CudaSlice<u8>) -> Result<f64, Box<dyn std::error::Error>> {
        let n = data.len() as i32;
        self.stream.memset_zeros(&mut self.bins)?;
        let cfg = LaunchConfig { grid_dim: (120, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
        unsafe {
            self.stream.launch_builder(&self.kernel).arg(data).arg(&mut self.bins).arg(&n).launch(cfg)?;
        }
        let mut counts = [0u32; 256];
        {
            let (bins_ptr, _record) = self.bins.device_ptr(&self.stream);
            unsafe { result::memcpy_dtoh_sync(&mut counts, bins_ptr)? }; // EXPECT: missing_sync
        }
        let total: u64 = counts.iter().map(|&c| c as u64).sum();
        Ok(counts
            .iter()
            .filter(|&&c| c > 0)
            .map(|&c| {
                let p = c as f64 / total as f64;
                -p * p.log2()
            })
            .sum())
    }
}
