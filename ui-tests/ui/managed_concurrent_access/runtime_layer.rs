// This project's runtime layer: `ManagedBuffer` reads and writes through `Deref`, while a kernel
// that does not use it may still run.
use cuda_lint_runtime::{Context, Error, LaunchConfig};

const SRC: &str = r#"
extern "C" __global__ void scale(float* x, float a, unsigned int n) {
    unsigned int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n) x[i] *= a;
}
"#;

fn fires_managed_read_while_another_buffer_is_scaled(ctx: &Context) -> Result<f32, Error> {
    let k = ctx.load_cuda(SRC)?.function("scale")?;
    let s = ctx.new_stream()?;
    let mut work = ctx.alloc::<f32>(1 << 20)?;
    let counters = ctx.alloc_managed::<f32>(16)?;
    let n = 1u32 << 20;
    unsafe { s.launch(&k, LaunchConfig::for_num_elems(n), &[&mut work, &2.0f32, &n])? };
    let first = counters[0];
    //~^ managed_concurrent_access
    s.synchronize()?;
    Ok(first)
}

fn fires_managed_write_while_a_kernel_runs(ctx: &Context) -> Result<(), Error> {
    let k = ctx.load_cuda(SRC)?.function("scale")?;
    let s = ctx.new_stream()?;
    let mut work = ctx.alloc::<f32>(1 << 20)?;
    let mut params = ctx.alloc_managed::<f32>(4)?;
    let n = 1u32 << 20;
    unsafe { s.launch(&k, LaunchConfig::for_num_elems(n), &[&mut work, &2.0f32, &n])? };
    params[0] = 1.5;
    //~^ managed_concurrent_access
    s.synchronize()
}

fn fires_managed_filled_from_a_slice_while_a_kernel_runs(ctx: &Context, staged: &[f32]) -> Result<(), Error> {
    let k = ctx.load_cuda(SRC)?.function("scale")?;
    let s = ctx.new_stream()?;
    let mut work = ctx.alloc::<f32>(1 << 20)?;
    let mut next = ctx.alloc_managed::<f32>(256)?;
    let n = 1u32 << 20;
    unsafe { s.launch(&k, LaunchConfig::for_num_elems(n), &[&mut work, &2.0f32, &n])? };
    next.copy_from_slice(staged);
    //~^ managed_concurrent_access
    s.synchronize()
}

fn ok_managed_read_after_the_stream_is_done(ctx: &Context) -> Result<f32, Error> {
    let k = ctx.load_cuda(SRC)?.function("scale")?;
    let s = ctx.new_stream()?;
    let mut work = ctx.alloc::<f32>(1 << 20)?;
    let counters = ctx.alloc_managed::<f32>(16)?;
    let n = 1u32 << 20;
    unsafe { s.launch(&k, LaunchConfig::for_num_elems(n), &[&mut work, &2.0f32, &n])? };
    s.synchronize()?;
    Ok(counters[0])
}

fn ok_managed_written_before_the_launch(ctx: &Context) -> Result<(), Error> {
    let k = ctx.load_cuda(SRC)?.function("scale")?;
    let s = ctx.new_stream()?;
    let mut work = ctx.alloc::<f32>(1 << 20)?;
    let mut params = ctx.alloc_managed::<f32>(4)?;
    params[0] = 1.5;
    let n = 1u32 << 20;
    unsafe { s.launch(&k, LaunchConfig::for_num_elems(n), &[&mut work, &2.0f32, &n])? };
    s.synchronize()
}

fn ok_host_buffer_beside_the_running_kernel(ctx: &Context) -> Result<(), Error> {
    let k = ctx.load_cuda(SRC)?.function("scale")?;
    let s = ctx.new_stream()?;
    let mut work = ctx.alloc::<f32>(1 << 20)?;
    let mut host = vec![0.0f32; 256];
    let n = 1u32 << 20;
    unsafe { s.launch(&k, LaunchConfig::for_num_elems(n), &[&mut work, &2.0f32, &n])? };
    host[0] = 1.0;
    s.synchronize()
}

fn ok_context_synchronized_before_the_read(ctx: &Context) -> Result<f32, Error> {
    let k = ctx.load_cuda(SRC)?.function("scale")?;
    let s = ctx.new_stream()?;
    let mut work = ctx.alloc::<f32>(1 << 20)?;
    let counters = ctx.alloc_managed::<f32>(16)?;
    let n = 1u32 << 20;
    unsafe { s.launch(&k, LaunchConfig::for_num_elems(n), &[&mut work, &2.0f32, &n])? };
    ctx.synchronize()?;
    Ok(counters[0])
}

fn main() {}
