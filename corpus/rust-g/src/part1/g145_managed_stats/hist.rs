use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys as rt;

use super::{managed_alloc, Result, STATS_SRC};

pub const BINS: usize = 1024;

pub struct TokenHistogram {
    hist: *mut u32,
}

impl TokenHistogram {
    pub fn new() -> Result<Self> {
        let hist = managed_alloc(BINS * 4)? as *mut u32;
        unsafe { std::slice::from_raw_parts_mut(hist, BINS) }.fill(0);
        Ok(TokenHistogram { hist })
    }

    /// One decode step: bias the logits, reset the per-step histogram, count the step's tokens.
    pub fn step(&self, stream: &Arc<CudaStream>, logits: &mut CudaSlice<f32>, bias: &CudaSlice<f32>, tokens: &CudaSlice<i32>) -> Result<Vec<u32>> {
        let module = stream.context().load_module(compile_ptx(STATS_SRC)?)?;
        let (bias_k, count_k) = (module.load_function("logits_bias")?, module.load_function("count_tokens")?);
        let vocab = logits.len() as u32;
        let mut b = stream.launch_builder(&bias_k);
        b.arg(&mut *logits).arg(bias).arg(&vocab);
        unsafe { b.launch(LaunchConfig::for_num_elems(vocab))? };

        unsafe { std::slice::from_raw_parts_mut(self.hist, BINS) }.fill(0); // EXPECT: managed_concurrent_access

        let (n, bins, hist_ptr) = (tokens.len() as u32, BINS as u32, self.hist as u64);
        let mut c = stream.launch_builder(&count_k);
        c.arg(tokens).arg(&n).arg(&hist_ptr).arg(&bins);
        unsafe { c.launch(LaunchConfig::for_num_elems(n))? };
        stream.synchronize()?;
        Ok(unsafe { std::slice::from_raw_parts(self.hist, BINS) }.to_vec())
    }
}

impl Drop for TokenHistogram {
    fn drop(&mut self) {
        unsafe {
            let _ = rt::cudaDeviceSynchronize();
            let _ = rt::cudaFree(self.hist as *mut std::ffi::c_void);
        }
    }
}
