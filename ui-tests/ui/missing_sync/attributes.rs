//@no-rustfix
// Some findings here have no machine-applicable fix: the fixes are checked in fixes.rs.
// What users tell the lint with the `cuda_lint` attributes: their wrappers' effects, typed
// kernel launches (what each kernel reads and writes), and suppression.
use cuda_lint_runtime::{Context, DeviceBuffer, Error, LaunchConfig, PinnedBuffer, Stream};

mod ffi {
    unsafe extern "C" {
        /// A C library's own wait: nothing says what it waits for.
        pub fn engine_wait(stream: *mut std::ffi::c_void) -> i32;
    }
}

struct Engine {
    stream: Stream,
}

impl Engine {
    /// The analysis cannot see into `engine_wait`.
    fn wait_opaque(&self) {
        unsafe { ffi::engine_wait(std::ptr::null_mut()) };
    }

    /// The same wait, summarised.
    #[cuda_lint::synchronizes(self)]
    fn wait(&self) {
        unsafe { ffi::engine_wait(std::ptr::null_mut()) };
    }

    #[cuda_lint::launches(stream = self, reads(input), writes(output))]
    fn run(&self, input: &DeviceBuffer<f32>, output: &mut PinnedBuffer<f32>) {
        let _ = (input, output);
        unsafe { ffi::engine_wait(std::ptr::null_mut()) };
    }
}

#[cuda_lint::synchronizes(all)]
fn drain(ctx: &Context) {
    let _ = ctx;
    unsafe { ffi::engine_wait(std::ptr::null_mut()) };
}

#[cuda_lint::kernels(source = r#"
extern "C" __global__ void fill(float* out, float v, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = v;
}
extern "C" __global__ void sum_into(const float* in, float* total, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(total, in[i]);
}
"#)]
mod k {}

fn fires_wrapper_launch_writes_what_the_host_reads(ctx: &Context, engine: &Engine) -> Result<f32, Error> {
    let input = ctx.alloc::<f32>(1024)?;
    let mut output = ctx.alloc_pinned::<f32>(1024)?;
    engine.run(&input, &mut output);
    let first = output[0];
    //~^ missing_sync
    engine.wait();
    Ok(first)
}

fn fires_opaque_wait_is_not_a_wait(ctx: &Context, engine: &Engine) -> Result<f32, Error> {
    let input = ctx.alloc::<f32>(1024)?;
    let mut output = ctx.alloc_pinned::<f32>(1024)?;
    engine.run(&input, &mut output);
    engine.wait_opaque();
    let first = output[0];
    //~^ missing_sync
    Ok(first)
}

fn fires_typed_launch_writes_managed_memory_read_too_early(ctx: &Context, s: &Stream) -> Result<f32, Error> {
    let kernels = k::Kernels::load(ctx)?;
    let mut out = ctx.alloc_managed::<f32>(1024)?;
    unsafe { kernels.fill(s, LaunchConfig::for_num_elems(1024), &mut out, 1.0, 1024)? };
    let first = out[0];
    //~^ missing_sync
    s.synchronize()?;
    Ok(first)
}

fn fires_typed_launch_reads_what_another_stream_overwrites(ctx: &Context, a: &Stream, b: &Stream) -> Result<(), Error> {
    let kernels = k::Kernels::load(ctx)?;
    let mut input = ctx.alloc::<f32>(1024)?;
    let mut total = ctx.alloc::<f32>(1)?;
    unsafe { kernels.sum_into(a, LaunchConfig::for_num_elems(1024), &input, &mut total, 1024)? };
    b.memset_d32_async(&mut input, 0)?;
    //~^ missing_sync
    ctx.synchronize()
}

fn ok_summarised_wait_orders_the_read(ctx: &Context, engine: &Engine) -> Result<f32, Error> {
    let input = ctx.alloc::<f32>(1024)?;
    let mut output = ctx.alloc_pinned::<f32>(1024)?;
    engine.run(&input, &mut output);
    engine.wait();
    Ok(output[0])
}

fn ok_summarised_context_drain(ctx: &Context, engine: &Engine) -> Result<f32, Error> {
    let input = ctx.alloc::<f32>(1024)?;
    let mut output = ctx.alloc_pinned::<f32>(1024)?;
    engine.run(&input, &mut output);
    drain(ctx);
    Ok(output[0])
}

fn ok_typed_launch_then_synchronize(ctx: &Context, s: &Stream) -> Result<f32, Error> {
    let kernels = k::Kernels::load(ctx)?;
    let mut out = ctx.alloc_managed::<f32>(1024)?;
    unsafe { kernels.fill(s, LaunchConfig::for_num_elems(1024), &mut out, 1.0, 1024)? };
    s.synchronize()?;
    Ok(out[0])
}

fn ok_typed_launch_only_reads_the_buffer_the_host_reads(ctx: &Context, s: &Stream) -> Result<f32, Error> {
    let kernels = k::Kernels::load(ctx)?;
    let input = ctx.alloc_managed::<f32>(1024)?;
    let mut total = ctx.alloc::<f32>(1)?;
    unsafe { kernels.sum_into(s, LaunchConfig::for_num_elems(1024), &input, &mut total, 1024)? };
    // The kernel only reads `input` (`const float*`): reading it on the host meanwhile is fine.
    let first = input[0];
    s.synchronize()?;
    Ok(first)
}

#[cuda_lint::allow(missing_sync, reason = "reads the header, which the kernel does not touch")]
fn ok_allowed_with_a_reason(ctx: &Context, engine: &Engine) -> Result<f32, Error> {
    let input = ctx.alloc::<f32>(1024)?;
    let mut output = ctx.alloc_pinned::<f32>(1024)?;
    engine.run(&input, &mut output);
    let first = output[0];
    engine.wait();
    Ok(first)
}

fn main() {}
