//! case: an event-ingest loop page-locks one batch Vec with `cuMemHostRegister`, then for each batch copies it to the device with `cuMemcpyHtoDAsync` and launches the histogram kernel, refilling the same Vec for the next batch without waiting: registered memory is pinned, so the previous copy may still be reading it
//! expect: missing_sync=1

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const HIST_SRC: &str = r#"
extern "C" __global__ void latency_hist(const unsigned int* lat_us, unsigned int n, unsigned int* bins) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int b = min(31u, 31u - __clz(lat_us[i] | 1u));
        atomicAdd(&bins[b], 1u);
    }
}
"#;

pub struct Ingest {
    stream: Arc<CudaStream>,
    hist: CudaFunction,
    batch_dev: CUdeviceptr,
    bins: cudarc::driver::CudaSlice<u32>,
    batch: Vec<u32>,
}

impl Ingest {
    pub fn new(ctx: &Arc<CudaContext>, batch_len: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let hist = ctx.load_module(compile_ptx(HIST_SRC)?)?.load_function("latency_hist")?;
        let mut batch = vec![0u32; batch_len];
        let mut batch_dev = 0;
        unsafe {
            sys::cuMemHostRegister_v2(batch.as_mut_ptr() as *mut c_void, batch_len * 4, 0).result()?;
            sys::cuMemAlloc_v2(&mut batch_dev, batch_len * 4).result()?;
        }
        Ok(Self { bins: stream.alloc_zeros::<u32>(32)?, stream, hist, batch_dev, batch })
    }

    pub fn run<I: Iterator<Item = u32>>(&mut self, mut source: I) -> Result<u64, DriverError> {
        let mut total = 0u64;
        loop {
            let mut n = 0usize;
            for (slot, v) in self.batch.iter_mut().zip(source.by_ref()) {
                *slot = v; // EXPECT: missing_sync
                n += 1;
            }
            if n == 0 {
                break;
            }
            unsafe {
                sys::cuMemcpyHtoDAsync_v2(self.batch_dev, self.batch.as_ptr() as *const c_void, n * 4, self.stream.cu_stream())
                    .result()?;
            }
            let (ptr, n32) = (self.batch_dev, n as u32);
            let mut launch = self.stream.launch_builder(&self.hist);
            launch.arg(&ptr).arg(&n32).arg(&mut self.bins);
            unsafe { launch.launch(LaunchConfig::for_num_elems(n32)) }?;
            total += n as u64;
        }
        self.stream.synchronize()?;
        Ok(total)
    }
}

impl Drop for Ingest {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        unsafe {
            sys::cuMemHostUnregister(self.batch.as_mut_ptr() as *mut c_void);
            sys::cuMemFree_v2(self.batch_dev);
        }
    }
}
