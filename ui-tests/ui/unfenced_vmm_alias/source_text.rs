// How the kernel's CUDA (or PTX) text is read: macros, preprocessor, declarations, PTX functions.
use cuda_lint_runtime::{Context, Error, LaunchConfig, Mapping, PhysicalAllocation, Ptx, Stream, VirtualRange};

const MACRO_FENCE: &str = r#"
#define ALIAS_FENCE() asm volatile("fence.proxy.alias;" ::: "memory")
extern "C" __global__ void blit(volatile int* dst, volatile int* src, int* out) {
    int i = threadIdx.x;
    dst[i] = i;
    ALIAS_FENCE();
    out[i] = src[i];
}
"#;

const FENCE_COMPILED_OUT: &str = r#"
#define USE_ALIAS_FENCE 0
extern "C" __global__ void blit(volatile int* dst, volatile int* src, int* out) {
    int i = threadIdx.x;
    dst[i] = i;
#if USE_ALIAS_FENCE
    asm volatile("fence.proxy.alias;" ::: "memory");
#endif
    out[i] = src[i];
}
"#;

const LAUNCH_BOUNDS: &str = r#"
extern "C" __global__ void __launch_bounds__(256) blit(volatile int* dst, volatile int* src, int* out) {
    int i = threadIdx.x;
    dst[i] = i;
    asm volatile("fence.proxy.alias;" ::: "memory");
    out[i] = src[i];
}
"#;

const HELPER_DEFINED_AFTER: &str = r#"
__device__ void alias_fence();

extern "C" __global__ void blit(volatile int* dst, volatile int* src, int* out) {
    int i = threadIdx.x;
    dst[i] = i;
    alias_fence();
    out[i] = src[i];
}

__device__ void alias_fence() { asm volatile("fence.proxy.alias;" ::: "memory"); }
"#;

const PTX_FUNC_FENCE: &str = r#"
.version 8.0
.target sm_90
.address_size 64

.func alias_fence()
{
    fence.proxy.alias;
    ret;
}

.visible .entry blit(
    .param .u64 dst,
    .param .u64 src,
    .param .u64 out
)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [dst];
    ld.param.u64 %rd2, [src];
    ld.param.u64 %rd3, [out];
    mov.u32 %r1, 1;
    st.volatile.global.u32 [%rd1], %r1;
    call.uni alias_fence, ();
    ld.volatile.global.u32 %r2, [%rd2];
    st.global.u32 [%rd3], %r2;
    ret;
}
"#;

fn two_views(ctx: &Context) -> Result<(PhysicalAllocation, Mapping, Mapping), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let dst = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let src = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    Ok((phys, dst, src))
}

fn fires_fence_compiled_out_by_the_preprocessor(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let (_phys, dst, src) = two_views(ctx)?;
    let out = ctx.alloc::<i32>(256)?;
    let k = ctx.load_cuda(FENCE_COMPILED_OUT)?.function("blit")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&dst, &src, &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn ok_fence_through_a_macro(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let (_phys, dst, src) = two_views(ctx)?;
    let out = ctx.alloc::<i32>(256)?;
    let k = ctx.load_cuda(MACRO_FENCE)?.function("blit")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&dst, &src, &out])? };
    stream.synchronize()
}

fn ok_fenced_kernel_with_launch_bounds(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let (_phys, dst, src) = two_views(ctx)?;
    let out = ctx.alloc::<i32>(256)?;
    let k = ctx.load_cuda(LAUNCH_BOUNDS)?.function("blit")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&dst, &src, &out])? };
    stream.synchronize()
}

fn ok_fencing_helper_defined_after_the_kernel(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let (_phys, dst, src) = two_views(ctx)?;
    let out = ctx.alloc::<i32>(256)?;
    let k = ctx.load_cuda(HELPER_DEFINED_AFTER)?.function("blit")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&dst, &src, &out])? };
    stream.synchronize()
}

fn ok_ptx_func_that_fences(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let (_phys, dst, src) = two_views(ctx)?;
    let out = ctx.alloc::<i32>(256)?;
    let module = ctx.load_module(&Ptx::from_src(PTX_FUNC_FENCE))?;
    let k = module.function("blit")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&dst, &src, &out])? };
    stream.synchronize()
}

fn main() {}
