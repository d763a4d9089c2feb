use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys as rt;

use super::{managed_alloc, Result, STATS_SRC};

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SamplingConfig {
    pub temperature: f32,
    pub top_p: f32,
    pub top_k: u32,
    pub seed: u32,
}

pub struct ConfiguredSampler {
    cfg: *mut SamplingConfig,
}

impl ConfiguredSampler {
    pub fn new(initial: SamplingConfig) -> Result<Self> {
        let cfg = managed_alloc(std::mem::size_of::<SamplingConfig>())? as *mut SamplingConfig;
        unsafe { cfg.write(initial) };
        Ok(ConfiguredSampler { cfg })
    }

    /// Samples with the greedy kernel for the warm-up token, then switches to the request's
    /// sampling config for the rest.
    pub fn first_two(&self, stream: &Arc<CudaStream>, logits: &CudaSlice<f32>, out: &mut CudaSlice<i32>, request: SamplingConfig) -> Result<()> {
        let module = stream.context().load_module(compile_ptx(STATS_SRC)?)?;
        let (greedy, configured) = (module.load_function("sample_greedy")?, module.load_function("sample_with_config")?);
        let vocab = logits.len() as u32;

        let mut g = stream.launch_builder(&greedy);
        g.arg(logits).arg(&vocab).arg(&mut *out);
        unsafe { g.launch(LaunchConfig::for_num_elems(1))? };

        unsafe { self.cfg.write(request) }; // EXPECT: managed_concurrent_access

        let cfg_ptr = self.cfg as u64;
        let mut c = stream.launch_builder(&configured);
        c.arg(logits).arg(&cfg_ptr).arg(&vocab).arg(&mut *out);
        unsafe { c.launch(LaunchConfig::for_num_elems(1))? };
        stream.synchronize()?;
        Ok(())
    }
}

impl Drop for ConfiguredSampler {
    fn drop(&mut self) {
        unsafe {
            let _ = rt::cudaDeviceSynchronize();
            let _ = rt::cudaFree(self.cfg as *mut std::ffi::c_void);
        }
    }
}
