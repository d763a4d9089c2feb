//! case: cudarc with event tracking disabled and two streams: the copy stream joins the compute stream before reading the kernel's output, then is synchronized before the pinned result is read
//! expect: none
use std::error::Error;

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const RAMP_SRC: &str = r#"
extern "C" __global__ void ramp(float* y, float slope, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = slope * (float)i;
}
"#;

pub fn ramp_sum(n: usize, slope: f32) -> Result<f32, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    // SAFETY: this function orders its two streams itself (join) before sharing `y`.
    unsafe { ctx.disable_event_tracking() };
    let compute = ctx.new_stream()?;
    let copy = ctx.new_stream()?;
    let ramp = ctx.load_module(compile_ptx(RAMP_SRC)?)?.load_function("ramp")?;

    let mut y = compute.alloc_zeros::<f32>(n)?;
    let len = n as u32;
    let mut launch = compute.launch_builder(&ramp);
    launch.arg(&mut y).arg(&slope).arg(&len);
    // SAFETY: ramp(float*, float, unsigned) over y's n floats.
    unsafe { launch.launch(LaunchConfig::for_num_elems(len)) }?;

    copy.join(&compute)?; // copy waits for the kernel
    // SAFETY: read after copy.synchronize(). Flags 0: cached memory.
    let mut host = unsafe { ctx.alloc_pinned_with_flags::<f32>(n, 0)? };
    copy.memcpy_dtoh(&y, &mut host)?;
    copy.synchronize()?;
    let sum = host.as_slice()?.iter().sum();
    compute.synchronize()?;
    Ok(sum)
}
