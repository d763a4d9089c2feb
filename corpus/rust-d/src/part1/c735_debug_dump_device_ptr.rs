//! case: a histogram-equalization pass (cudarc's driver::result) keeps its bins in memory from cuMemAlloc; a debug path added later logs the first bins by dereferencing the device pointer on the host, after synchronizing
//! expect: host_deref_device_ptr=1

use std::ffi::c_void;
use std::mem::size_of;
use std::sync::Arc;

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{CUdeviceptr, CUstream};
use cudarc::driver::{CudaContext, CudaFunction};
use cudarc::nvrtc::compile_ptx;

const EQ_CU: &str = r#"
extern "C" __global__ void hist256(const unsigned char* img, int n, unsigned int* bins) {
    __shared__ unsigned int local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[img[i]], 1u);
    __syncthreads();
    atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}
"#;

pub struct Equalizer {
    _ctx: Arc<CudaContext>,
    hist: CudaFunction,
    stream: CUstream,
    bins: CUdeviceptr,
    verbose: bool,
}

impl Equalizer {
    pub fn new(ctx: Arc<CudaContext>, stream: CUstream, verbose: bool) -> Result<Self, Box<dyn std::error::Error>> {
        let hist = ctx.load_module(compile_ptx(EQ_CU)?)?.load_function("hist256")?;
        let bins = unsafe { result::malloc_sync(256 * size_of::<u32>())? };
        Ok(Self { _ctx: ctx, hist, stream, bins, verbose })
    }

    /// Fills the bins for `img` (device memory, `n` bytes) and returns the CDF on the host.
    pub fn cdf(&mut self, mut img: CUdeviceptr, mut n: i32) -> Result<Vec<f32>, DriverError> {
        let mut bins_host = [0u32; 256];
        unsafe {
            result::memset_d8_async(self.bins, 0, 256 * size_of::<u32>(), self.stream)?;
            let mut args: [*mut c_void; 3] = [
                (&mut img as *mut CUdeviceptr).cast(),
                (&mut n as *mut i32).cast(),
                (&mut self.bins as *mut CUdeviceptr).cast(),
            ];
            result::launch_kernel(self.hist.cu_function(), (64, 1, 1), (256, 1, 1), 0, self.stream, &mut args)?;
            result::memcpy_dtoh_async(&mut bins_host, self.bins, self.stream)?;
            result::stream::synchronize(self.stream)?;
        }
        if self.verbose {
            let first = unsafe { *(self.bins as *const [u32; 4]) }; // EXPECT: host_deref_device_ptr
            eprintln!("hist256: first bins {first:?}, total {}", n);
        }
        let total = bins_host.iter().map(|&b| b as u64).sum::<u64>().max(1) as f32;
        Ok(bins_host
            .iter()
            .scan(0u64, |acc, &b| {
                *acc += b as u64;
                Some(*acc as f32 / total)
            })
            .collect())
    }
}

impl Drop for Equalizer {
    fn drop(&mut self) {
        unsafe {
            let _ = result::stream::synchronize(self.stream);
            let _ = result::free_sync(self.bins);
        }
    }
}
