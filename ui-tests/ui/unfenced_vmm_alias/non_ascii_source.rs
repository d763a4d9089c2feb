// A kernel source with non-ASCII text in a string (a `printf` format): cuda-lint must read it
// like any other source.
use cuda_lint_runtime::{Context, Error, LaunchConfig, PhysicalAllocation, Stream, VirtualRange};

const SRC: &str = r#"
#include <cstdio>
extern "C" __global__ void rotate(float* a, const float* b, float* out) {
    int i = threadIdx.x;
    a[i] = 0.5f * i;
    out[i] = b[i];
    if (i == 0) printf("θ(rad) = %f\n", out[0]);
}

extern "C" __global__ void rotate_fenced(float* a, const float* b, float* out) {
    int i = threadIdx.x;
    a[i] = 0.5f * i;
    asm volatile("fence.proxy.alias;" ::: "memory");
    out[i] = b[i];
    if (i == 0) printf("θ(rad) = %f\n", out[0]);
}
"#;

fn fires_printf_with_non_ascii_text(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let a = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let b = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let out = ctx.alloc::<f32>(256)?;
    let k = ctx.load_cuda(SRC)?.function("rotate")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&a, &b, &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn ok_fenced_printf_with_non_ascii_text(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let a = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let b = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let out = ctx.alloc::<f32>(256)?;
    let k = ctx.load_cuda(SRC)?.function("rotate_fenced")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&a, &b, &out])? };
    stream.synchronize()
}

fn main() {}
