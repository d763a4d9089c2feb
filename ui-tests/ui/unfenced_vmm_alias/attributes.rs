// Typed kernels carry a summary: which parameters they read and write, and whether their
// source executes `fence.proxy.alias`.
use cuda_lint_runtime::{Context, Error, LaunchConfig, PhysicalAllocation, Stream, VirtualRange};

#[cuda_lint::kernels(source = r#"
extern "C" __global__ void write_a_read_b(volatile float* a, const volatile float* b, float* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { a[i] = 1.0f; out[i] = b[i]; }
}
extern "C" __global__ void write_a_fence_read_b(volatile float* a, const volatile float* b, float* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        a[i] = 1.0f;
        asm volatile("fence.proxy.alias;" ::: "memory");
        out[i] = b[i];
    }
}
"#)]
mod k {}

fn fires_unfenced_typed_kernel_given_two_mappings(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let kernels = k::Kernels::load(ctx)?;
    let bytes = ctx.vmm_granularity()?;
    let physical = PhysicalAllocation::new(ctx, bytes)?;
    let a = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
    let b = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
    let mut out = ctx.alloc::<f32>(bytes / 4)?;
    let mut a_arg = a.device_ptr();
    unsafe { kernels.write_a_read_b(s, LaunchConfig::for_num_elems(1024), &mut a_arg, &b.device_ptr(), &mut out, 1024)? };
    //~^ unfenced_vmm_alias
    s.synchronize()
}

fn fires_typed_kernel_and_a_copy_on_two_streams(ctx: &Context, s: &Stream, t: &Stream) -> Result<(), Error> {
    let kernels = k::Kernels::load(ctx)?;
    let bytes = ctx.vmm_granularity()?;
    let physical = PhysicalAllocation::new(ctx, bytes)?;
    let a = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
    let b = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
    let mut out = ctx.alloc::<f32>(bytes / 4)?;
    let other = ctx.alloc::<f32>(bytes / 4)?;
    let mut a_arg = a.device_ptr();
    unsafe { kernels.write_a_fence_read_b(s, LaunchConfig::for_num_elems(1024), &mut a_arg, &other, &mut out, 1024)? };
    let mut copy = ctx.alloc::<f32>(bytes / 4)?;
    let mut scratch = ctx.alloc::<f32>(bytes / 4)?;
    unsafe { kernels.write_a_fence_read_b(t, LaunchConfig::for_num_elems(1024), &mut scratch, &b.device_ptr(), &mut copy, 1024)? };
    //~^ unfenced_vmm_alias
    ctx.synchronize()
}

fn ok_fenced_typed_kernel_given_two_mappings(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let kernels = k::Kernels::load(ctx)?;
    let bytes = ctx.vmm_granularity()?;
    let physical = PhysicalAllocation::new(ctx, bytes)?;
    let a = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
    let b = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
    let mut out = ctx.alloc::<f32>(bytes / 4)?;
    let mut a_arg = a.device_ptr();
    unsafe { kernels.write_a_fence_read_b(s, LaunchConfig::for_num_elems(1024), &mut a_arg, &b.device_ptr(), &mut out, 1024)? };
    s.synchronize()
}

fn ok_unfenced_typed_kernel_given_one_mapping(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let kernels = k::Kernels::load(ctx)?;
    let bytes = ctx.vmm_granularity()?;
    let physical = PhysicalAllocation::new(ctx, bytes)?;
    let a = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
    let other = ctx.alloc::<f32>(bytes / 4)?;
    let mut out = ctx.alloc::<f32>(bytes / 4)?;
    let mut a_arg = a.device_ptr();
    unsafe { kernels.write_a_read_b(s, LaunchConfig::for_num_elems(1024), &mut a_arg, &other, &mut out, 1024)? };
    s.synchronize()
}

fn ok_typed_kernel_and_copy_on_one_stream(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let kernels = k::Kernels::load(ctx)?;
    let bytes = ctx.vmm_granularity()?;
    let physical = PhysicalAllocation::new(ctx, bytes)?;
    let a = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
    let b = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
    let mut out = ctx.alloc::<f32>(bytes / 4)?;
    let other = ctx.alloc::<f32>(bytes / 4)?;
    let mut a_arg = a.device_ptr();
    unsafe { kernels.write_a_fence_read_b(s, LaunchConfig::for_num_elems(1024), &mut a_arg, &other, &mut out, 1024)? };
    let mut copy = ctx.alloc::<f32>(bytes / 4)?;
    let mut scratch = ctx.alloc::<f32>(bytes / 4)?;
    unsafe { kernels.write_a_fence_read_b(s, LaunchConfig::for_num_elems(1024), &mut scratch, &b.device_ptr(), &mut copy, 1024)? };
    s.synchronize()
}

fn main() {}
