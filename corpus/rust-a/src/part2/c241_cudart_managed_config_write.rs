//! case: a cudaMallocManaged run configuration rewritten by the host between launches of a cudarc kernel that does not read it, without waiting for the kernel
//! expect: managed_concurrent_access=1
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys as rt;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct RunConfig {
    pub iteration: u32,
    pub temperature: f32,
}

const SRC: &str = r#"
extern "C" __global__ void anneal(float* energy, float t, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) energy[i] = energy[i] * expf(-1.0f / t);
}
"#;

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let f = ctx.load_module(compile_ptx(SRC)?)?.load_function("anneal")?;
    let mut raw: *mut c_void = null_mut();
    let e = unsafe { rt::cudaMallocManaged(&mut raw, std::mem::size_of::<RunConfig>(), rt::cudaMemAttachGlobal) };
    if e != rt::cudaError_t::cudaSuccess {
        return Err(format!("cudaMallocManaged: {e:?}").into());
    }
    let cfg = raw as *mut RunConfig;
    unsafe { cfg.write(RunConfig { iteration: 0, temperature: 10.0 }) };

    let mut energy = stream.alloc_zeros::<f32>(1 << 20)?;

    let n = energy.len() as u32;
    let mut temperature = 10.0f32;
    for iteration in 1..=50 {
        unsafe { stream.launch_builder(&f).arg(&mut energy).arg(&temperature).arg(&n).launch(LaunchConfig::for_num_elems(n)) }?;
        temperature *= 0.95;
        // keep the schedule in managed memory for the checkpoint writer
        unsafe { cfg.write(RunConfig { iteration, temperature }) }; // EXPECT: managed_concurrent_access
    }
    stream.synchronize()?;
    unsafe { rt::cudaFree(raw) };
    Ok(())
}
