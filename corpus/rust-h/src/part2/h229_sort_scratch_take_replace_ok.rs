//! case: radix-sort stage of a query engine keeping its temporary storage in an `Option` field; growing it `replace`s the old block and frees it with `cuMemFreeAsync` on the same stream the sort kernels ran on (stream-ordered), and `release`/`Drop` `take` it and free it the same way
//! expect: none

use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const HISTO_SRC: &str = r#"
extern "C" __global__ void digit_histogram(const unsigned* keys, unsigned* counts, unsigned n, unsigned shift) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&counts[blockIdx.x * 256 + ((keys[i] >> shift) & 0xff)], 1u);
}
"#;

struct Scratch {
    ptr: CUdeviceptr,
    bytes: usize,
}

pub struct SortStage {
    stream: Arc<CudaStream>,
    histogram: CudaFunction,
    scratch: Option<Scratch>,
}

impl SortStage {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let histogram = ctx.load_module(compile_ptx(HISTO_SRC)?)?.load_function("digit_histogram")?;
        Ok(Self { stream, histogram, scratch: None })
    }

    fn ensure_scratch(&mut self, bytes: usize) -> Result<CUdeviceptr, DriverError> {
        if let Some(s) = self.scratch.as_ref().filter(|s| s.bytes >= bytes) {
            return Ok(s.ptr);
        }
        let stream = self.stream.cu_stream();
        let mut ptr: CUdeviceptr = 0;
        unsafe { sys::cuMemAllocAsync(&mut ptr, bytes, stream).result()? };
        if let Some(old) = self.scratch.replace(Scratch { ptr, bytes }) {
            // earlier passes on this stream used it: the free is ordered after them
            unsafe { sys::cuMemFreeAsync(old.ptr, stream).result()? };
        }
        Ok(ptr)
    }

    /// One 8-bit digit pass: per-block digit histograms into the scratch area.
    pub fn histogram_pass(&mut self, keys: &CudaSlice<u32>, shift: u32) -> Result<CUdeviceptr, DriverError> {
        let n = keys.len() as u32;
        let cfg = LaunchConfig::for_num_elems(n);
        let counts_bytes = cfg.grid_dim.0 as usize * 256 * 4;
        let counts = self.ensure_scratch(counts_bytes)?;
        unsafe { sys::cuMemsetD32Async(counts, 0, counts_bytes / 4, self.stream.cu_stream()).result()? };
        unsafe { self.stream.launch_builder(&self.histogram).arg(keys).arg(&counts).arg(&n).arg(&shift).launch(cfg)? };
        Ok(counts)
    }

    pub fn release(&mut self) -> Result<(), DriverError> {
        if let Some(s) = self.scratch.take() {
            unsafe { sys::cuMemFreeAsync(s.ptr, self.stream.cu_stream()).result()? };
        }
        Ok(())
    }
}

impl Drop for SortStage {
    fn drop(&mut self) {
        let _ = self.release();
        let _ = self.stream.synchronize();
    }
}
