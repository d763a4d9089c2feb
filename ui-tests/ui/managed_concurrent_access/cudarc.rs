// cudarc: a `UnifiedSlice` (`alloc_unified`) read or written with `as_slice`/`as_mut_slice`
// while a kernel on other memory may still run. cudarc's accessors wait for the slice's own
// work only (attached globally), not for other kernels.
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const N: usize = 1 << 20;
const SRC: &str = r#"
extern "C" __global__ void scale(float* x, float a, unsigned int n) {
    unsigned int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n) x[i] *= a;
}
"#;

fn kernel(ctx: &Arc<CudaContext>) -> Result<CudaFunction, DriverError> {
    ctx.load_module(compile_ptx(SRC).expect("compiles"))?.load_function("scale")
}

fn scale(stream: &Arc<CudaStream>, f: &CudaFunction, x: &mut cudarc::driver::CudaSlice<f32>) -> Result<(), DriverError> {
    let n = N as u32;
    let mut launch = stream.launch_builder(f);
    launch.arg(x).arg(&2.0f32).arg(&n);
    unsafe { launch.launch(LaunchConfig::for_num_elems(n)) }?;
    Ok(())
}

fn fires_unified_read_while_another_kernel_runs() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let f = kernel(&ctx)?;
    let mut work = stream.alloc_zeros::<f32>(N)?;
    let stats = unsafe { ctx.alloc_unified::<f32>(16, true)? };
    scale(&stream, &f, &mut work)?;
    let first = stats.as_slice()?[0];
    //~^ managed_concurrent_access
    stream.synchronize()?;
    Ok(first)
}

fn fires_unified_written_while_another_kernel_runs() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let f = kernel(&ctx)?;
    let mut work = stream.alloc_zeros::<f32>(N)?;
    let mut params = unsafe { ctx.alloc_unified::<f32>(4, true)? };
    scale(&stream, &f, &mut work)?;
    params.as_mut_slice()?[0] = 0.5;
    //~^ managed_concurrent_access
    stream.synchronize()
}

fn fires_unified_read_after_waiting_on_the_wrong_stream() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let compute = ctx.new_stream()?;
    let other = ctx.new_stream()?;
    let f = kernel(&ctx)?;
    let mut work = compute.alloc_zeros::<f32>(N)?;
    let stats = unsafe { ctx.alloc_unified::<f32>(16, true)? };
    scale(&compute, &f, &mut work)?;
    other.synchronize()?;
    let first = stats.as_slice()?[0];
    //~^ managed_concurrent_access
    compute.synchronize()?;
    Ok(first)
}

fn fires_unified_summed_in_a_helper_while_a_kernel_runs() -> Result<f32, DriverError> {
    fn total(stats: &cudarc::driver::UnifiedSlice<f32>) -> Result<f32, DriverError> {
        Ok(stats.as_slice()?.iter().sum())
    }
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let f = kernel(&ctx)?;
    let mut work = stream.alloc_zeros::<f32>(N)?;
    let stats = unsafe { ctx.alloc_unified::<f32>(16, true)? };
    scale(&stream, &f, &mut work)?;
    let t = total(&stats)?;
    //~^ managed_concurrent_access
    stream.synchronize()?;
    Ok(t)
}

fn ok_unified_read_after_the_context_synchronizes() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let f = kernel(&ctx)?;
    let mut work = stream.alloc_zeros::<f32>(N)?;
    let stats = unsafe { ctx.alloc_unified::<f32>(16, true)? };
    scale(&stream, &f, &mut work)?;
    ctx.synchronize()?;
    Ok(stats.as_slice()?[0])
}

fn ok_unified_written_before_the_kernel() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let f = kernel(&ctx)?;
    let mut work = stream.alloc_zeros::<f32>(N)?;
    let mut params = unsafe { ctx.alloc_unified::<f32>(4, true)? };
    params.as_mut_slice()?[0] = 0.5;
    scale(&stream, &f, &mut work)?;
    stream.synchronize()
}

fn ok_unified_read_with_no_kernel_in_flight() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let work = stream.alloc_zeros::<f32>(N)?;
    let stats = unsafe { ctx.alloc_unified::<f32>(16, true)? };
    drop(work);
    Ok(stats.as_slice()?[0])
}

fn ok_unified_read_after_the_kernels_stream() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let f = kernel(&ctx)?;
    let mut work = stream.alloc_zeros::<f32>(N)?;
    let stats = unsafe { ctx.alloc_unified::<f32>(16, true)? };
    scale(&stream, &f, &mut work)?;
    stream.synchronize()?;
    Ok(stats.as_slice()?[0])
}

fn main() {}
