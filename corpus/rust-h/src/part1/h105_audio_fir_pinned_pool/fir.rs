use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext, CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use super::pool::PinnedBlock;

pub const MAX_TAPS: usize = 64;

const FIR_SRC: &str = r#"
extern "C" __global__ void fir_direct(const float* x, float* y, const float* h, int n, int ntaps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.f;
    for (int k = 0; k < ntaps && k <= i; ++k) acc += h[k] * x[i - k];
    y[i] = acc;
}
"#;

/// Direct-form FIR on raw device allocations (`cuMemAlloc`), fed from pinned blocks.
pub struct FirFilter {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    d_taps: sys::CUdeviceptr,
    d_in: sys::CUdeviceptr,
    d_out: sys::CUdeviceptr,
    n_taps: usize,
    block_len: usize,
}

impl FirFilter {
    pub fn new(ctx: &Arc<CudaContext>, taps: &[f32; MAX_TAPS], block_len: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let kernel = ctx.load_module(compile_ptx(FIR_SRC)?)?.load_function("fir_direct")?;
        let bytes = block_len * std::mem::size_of::<f32>();
        let (d_taps, d_in, d_out) = unsafe {
            (
                result::malloc_sync(std::mem::size_of_val(taps))?,
                result::malloc_sync(bytes)?,
                result::malloc_sync(bytes)?,
            )
        };
        // The tap vector is 256 bytes: stream-ordered before the first launch.
        unsafe { result::memcpy_htod_async(d_taps, taps, stream.cu_stream())? };
        Ok(Self { stream, kernel, d_taps, d_in, d_out, n_taps: taps.len(), block_len })
    }

    /// Filters `block` in place; the block is idle again when this returns.
    pub fn process(&mut self, block: &mut PinnedBlock) -> Result<(), DriverError> {
        let cu_stream = self.stream.cu_stream();
        unsafe { result::memcpy_htod_async(self.d_in, block.as_slice(), cu_stream)? };
        let (n, ntaps) = (self.block_len as i32, self.n_taps as i32);
        let mut launch = self.stream.launch_builder(&self.kernel);
        launch.arg(&self.d_in).arg(&self.d_out).arg(&self.d_taps).arg(&n).arg(&ntaps);
        unsafe { launch.launch(LaunchConfig::for_num_elems(self.block_len as u32)) }?;
        unsafe { result::memcpy_dtoh_async(block.as_mut_slice(), self.d_out, cu_stream)? };
        self.stream.synchronize()
    }
}

impl Drop for FirFilter {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        unsafe {
            let _ = result::free_sync(self.d_taps);
            let _ = result::free_sync(self.d_in);
            let _ = result::free_sync(self.d_out);
        }
    }
}
