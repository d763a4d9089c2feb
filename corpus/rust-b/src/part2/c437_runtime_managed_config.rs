//! case: an inference server keeps its hot-reloadable config in cudaMallocManaged memory (cudaMemAttachGlobal) and reads it on the host right after enqueuing a kernel that does not use it
//! expect: managed_concurrent_access=1
use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys as rt;

const SRC: &str = r#"
extern "C" __global__ void relu_inplace(float* x, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = fmaxf(x[i], 0.0f);
}
"#;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ServeConfig {
    max_batch: u32,
    temperature: f32,
    reload_epoch: u64,
}

pub struct Server {
    stream: Arc<CudaStream>,
    relu: CudaFunction,
    acts: CudaSlice<f32>,
    config: *mut ServeConfig,
    seen_epoch: u64,
}

impl Server {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        let mut p: *mut c_void = std::ptr::null_mut();
        unsafe {
            rt::cudaMallocManaged(&mut p, std::mem::size_of::<ServeConfig>(), rt::cudaMemAttachGlobal).result()?;
            std::ptr::write(p.cast::<ServeConfig>(), ServeConfig { max_batch: 32, temperature: 1.0, reload_epoch: 0 });
        }
        let stream = ctx.new_stream()?;
        Ok(Self {
            relu: ctx.load_module(compile_ptx(SRC)?)?.load_function("relu_inplace")?,
            acts: stream.alloc_zeros(1 << 22)?,
            stream,
            config: p.cast(),
            seen_epoch: 0,
        })
    }

    /// Runs one batch; returns true when a new config was picked up.
    pub fn batch(&mut self, n: u32) -> Result<bool, Box<dyn std::error::Error>> {
        unsafe { self.stream.launch_builder(&self.relu).arg(&mut self.acts).arg(&n).launch(LaunchConfig::for_num_elems(n))? };
        let epoch = unsafe { (*self.config).reload_epoch }; // EXPECT: managed_concurrent_access
        let reloaded = epoch != self.seen_epoch;
        self.seen_epoch = epoch;
        self.stream.synchronize()?;
        Ok(reloaded)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        unsafe {
            let _ = rt::cudaFree(self.config.cast());
        }
    }
}
