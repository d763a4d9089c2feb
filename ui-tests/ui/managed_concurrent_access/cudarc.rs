//@no-rustfix
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

fn ok_unified_read_after_its_own_kernel_which_follows_the_other_on_one_stream() -> Result<f32, DriverError> {
    // `as_slice` waits for the event cudarc recorded after the kernel that wrote `stats`; the
    // kernel before it on the same stream is finished too.
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let f = kernel(&ctx)?;
    let mut work = stream.alloc_zeros::<f32>(N)?;
    let mut stats = unsafe { ctx.alloc_unified::<f32>(N, true)? };
    scale(&stream, &f, &mut work)?;
    let n = N as u32;
    let mut launch = stream.launch_builder(&f);
    launch.arg(&mut stats).arg(&2.0f32).arg(&n);
    unsafe { launch.launch(LaunchConfig::for_num_elems(n)) }?;
    Ok(stats.as_slice()?[0])
}

fn fires_once_as_missing_sync_when_a_copy_still_writes_it() -> Result<f32, DriverError> {
    // With only the default stream, cudarc records no event for the device-to-device copy into
    // `stats`: the read races with it, which is `missing_sync`'s finding; the kernel still
    // running is not reported a second time.
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = kernel(&ctx)?;
    let mut work = stream.alloc_zeros::<f32>(N)?;
    let src = stream.alloc_zeros::<f32>(N)?;
    let mut stats = unsafe { ctx.alloc_unified::<f32>(N, true)? };
    scale(&stream, &f, &mut work)?;
    stream.memcpy_dtod(&src, &mut stats)?;
    let first = stats.as_slice()?[0];
    //~^ missing_sync
    stream.synchronize()?;
    Ok(first)
}

fn main() {}
