use cuda_lint_runtime::{
    Context, Error, LaunchConfig, Mapping, Module, PhysicalAllocation, Ptx, Stream, VirtualRange,
};

const UNFENCED: &str = r#"
extern "C" __global__ void ring_update(volatile int* head, volatile int* tail, int* out) {
    int i = threadIdx.x;
    head[i] = i;
    out[i] = tail[i];
}
"#;

const FENCED_INLINE: &str = r#"
extern "C" __global__ void ring_update(volatile int* head, volatile int* tail, int* out) {
    int i = threadIdx.x;
    head[i] = i;
    asm volatile("fence.proxy.alias;" ::: "memory");
    out[i] = tail[i];
}
"#;

const FENCED_HELPER: &str = r#"
__device__ __forceinline__ void alias_fence() {
    asm volatile("fence.proxy.alias;" ::: "memory");
}

extern "C" __global__ void ring_update(volatile int* head, volatile int* tail, int* out) {
    int i = threadIdx.x;
    head[i] = i;
    alias_fence();
    out[i] = tail[i];
}
"#;

const FENCED_NESTED_HELPER: &str = r#"
__device__ void alias_fence() { asm volatile("fence.proxy.alias;" ::: "memory"); }
__device__ void publish(volatile int* p, int v) { p[threadIdx.x] = v; alias_fence(); }

extern "C" __global__ void ring_update(volatile int* head, volatile int* tail, int* out) {
    int i = threadIdx.x;
    publish(head, i);
    out[i] = tail[i];
}
"#;

const FENCED_CCCL: &str = r#"
#include <cuda/ptx>
extern "C" __global__ void ring_update(volatile int* head, volatile int* tail, int* out) {
    int i = threadIdx.x;
    head[i] = i;
    cuda::ptx::fence_proxy_alias();
    out[i] = tail[i];
}
"#;

const FENCE_IN_COMMENT: &str = r#"
extern "C" __global__ void ring_update(volatile int* head, volatile int* tail, int* out) {
    int i = threadIdx.x;
    head[i] = i;
    // TODO: fence.proxy.alias here
    out[i] = tail[i];
}
"#;

const HELPER_NOT_CALLED: &str = r#"
__device__ void alias_fence() { asm volatile("fence.proxy.alias;" ::: "memory"); }

extern "C" __global__ void ring_update(volatile int* head, volatile int* tail, int* out) {
    int i = threadIdx.x;
    head[i] = i;
    out[i] = tail[i];
}
"#;

const TWO_KERNELS: &str = r#"
extern "C" __global__ void fast_update(volatile int* head, volatile int* tail, int* out) {
    int i = threadIdx.x;
    head[i] = i;
    out[i] = tail[i];
}

extern "C" __global__ void safe_update(volatile int* head, volatile int* tail, int* out) {
    int i = threadIdx.x;
    head[i] = i;
    asm volatile("fence.proxy.alias;" ::: "memory");
    out[i] = tail[i];
}
"#;

const PTX: &str = r#"
.version 8.0
.target sm_90
.address_size 64

.visible .entry ring_update(
    .param .u64 head,
    .param .u64 tail,
    .param .u64 out
)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [head];
    ld.param.u64 %rd2, [tail];
    ld.param.u64 %rd3, [out];
    mov.u32 %r1, 1;
    st.volatile.global.u32 [%rd1], %r1;
    ld.volatile.global.u32 %r2, [%rd2];
    st.global.u32 [%rd3], %r2;
    ret;
}

.visible .entry ring_update_fenced(
    .param .u64 head,
    .param .u64 tail,
    .param .u64 out
)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [head];
    ld.param.u64 %rd2, [tail];
    ld.param.u64 %rd3, [out];
    mov.u32 %r1, 1;
    st.volatile.global.u32 [%rd1], %r1;
    fence.proxy.alias;
    ld.volatile.global.u32 %r2, [%rd2];
    st.global.u32 [%rd3], %r2;
    ret;
}
"#;

fn aliases(ctx: &Context, g: usize) -> Result<(PhysicalAllocation, Mapping, Mapping), Error> {
    let phys = PhysicalAllocation::new(ctx, g)?;
    let head = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let tail = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    Ok((phys, head, tail))
}

fn fires_string_literal(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let (_phys, head, tail) = aliases(ctx, g)?;
    let out = ctx.alloc::<i32>(256)?;
    let module = ctx.load_cuda(
        r#"extern "C" __global__ void ring_update(int* head, const int* tail, int* out) {
            head[threadIdx.x] = 1; out[threadIdx.x] = tail[threadIdx.x]; }"#,
    )?;
    let k = module.function("ring_update")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&head, &tail, &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn fires_const_source(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let (_phys, head, tail) = aliases(ctx, g)?;
    let out = ctx.alloc::<i32>(256)?;
    let module = ctx.load_cuda(UNFENCED)?;
    let k = module.function("ring_update")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&head, &tail, &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn fires_compile_ptx_then_load(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let (_phys, head, tail) = aliases(ctx, g)?;
    let out = ctx.alloc::<i32>(256)?;
    let ptx = ctx.compile_ptx(UNFENCED)?;
    let module = ctx.load_module(&ptx)?;
    let k = module.function("ring_update")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&head, &tail, &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn fires_ptx_text(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let (_phys, head, tail) = aliases(ctx, g)?;
    let out = ctx.alloc::<i32>(256)?;
    let module = ctx.load_module(&Ptx::from_src(PTX))?;
    let k = module.function("ring_update")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&head, &tail, &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn fires_include_str(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let (_phys, head, tail) = aliases(ctx, g)?;
    let out = ctx.alloc::<f32>(256)?;
    let module = ctx.load_cuda(include_str!("alias_kernels.cu"))?;
    let k = module.function("copy_alias")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&head, &tail, &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn fires_fence_only_in_a_comment(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let (_phys, head, tail) = aliases(ctx, g)?;
    let out = ctx.alloc::<i32>(256)?;
    let k = ctx.load_cuda(FENCE_IN_COMMENT)?.function("ring_update")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&head, &tail, &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn fires_fencing_helper_never_called(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let (_phys, head, tail) = aliases(ctx, g)?;
    let out = ctx.alloc::<i32>(256)?;
    let k = ctx.load_cuda(HELPER_NOT_CALLED)?.function("ring_update")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&head, &tail, &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn fires_unfenced_kernel_beside_a_fenced_one(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let (_phys, head, tail) = aliases(ctx, g)?;
    let out = ctx.alloc::<i32>(256)?;
    let module = ctx.load_cuda(TWO_KERNELS)?;
    let k = module.function("fast_update")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&head, &tail, &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

// The kernel's source is not visible: what it writes is not seen, so this is
// `unverified`'s (allow by default, tests in ui/unverified/), not this lint's.
fn unseen_source_not_visible(ctx: &Context, stream: &Stream, src: &str) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let (_phys, head, tail) = aliases(ctx, g)?;
    let out = ctx.alloc::<i32>(256)?;
    let module = ctx.load_cuda(src)?;
    let k = module.function("ring_update")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&head, &tail, &out])? };
    stream.synchronize()
}

// The kernel's source is not visible: what it writes is not seen, so this is
// `unverified`'s (allow by default, tests in ui/unverified/), not this lint's.
fn unseen_source_read_at_run_time(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let (_phys, head, tail) = aliases(ctx, g)?;
    let out = ctx.alloc::<i32>(256)?;
    let src = std::fs::read_to_string("kernels/ring.cu").unwrap_or_default();
    let module = ctx.load_cuda(&src)?;
    let k = module.function("ring_update")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&head, &tail, &out])? };
    stream.synchronize()
}

// The kernel's source is not visible: what it writes is not seen, so this is
// `unverified`'s (allow by default, tests in ui/unverified/), not this lint's.
fn unseen_module_from_caller(module: &Module, stream: &Stream) -> Result<(), Error> {
    let ctx = module.context();
    let g = ctx.vmm_granularity()?;
    let (_phys, head, tail) = aliases(ctx, g)?;
    let out = ctx.alloc::<i32>(256)?;
    let k = module.function("ring_update")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&head, &tail, &out])? };
    stream.synchronize()
}

// The kernel's source is not visible: what it writes is not seen, so this is
// `unverified`'s (allow by default, tests in ui/unverified/), not this lint's.
fn unseen_kernel_name_not_constant(ctx: &Context, stream: &Stream, name: &str) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let (_phys, head, tail) = aliases(ctx, g)?;
    let out = ctx.alloc::<i32>(256)?;
    let k = ctx.load_cuda(UNFENCED)?.function(name)?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&head, &tail, &out])? };
    stream.synchronize()
}

fn ok_inline_asm_fence(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let (_phys, head, tail) = aliases(ctx, g)?;
    let out = ctx.alloc::<i32>(256)?;
    let k = ctx.load_cuda(FENCED_INLINE)?.function("ring_update")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&head, &tail, &out])? };
    stream.synchronize()
}

fn ok_fencing_device_helper(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let (_phys, head, tail) = aliases(ctx, g)?;
    let out = ctx.alloc::<i32>(256)?;
    let k = ctx.load_cuda(FENCED_HELPER)?.function("ring_update")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&head, &tail, &out])? };
    stream.synchronize()
}

fn ok_fence_two_helpers_deep(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let (_phys, head, tail) = aliases(ctx, g)?;
    let out = ctx.alloc::<i32>(256)?;
    let k = ctx.load_cuda(FENCED_NESTED_HELPER)?.function("ring_update")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&head, &tail, &out])? };
    stream.synchronize()
}

fn ok_cccl_fence_proxy_alias(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let (_phys, head, tail) = aliases(ctx, g)?;
    let out = ctx.alloc::<i32>(256)?;
    let k = ctx.load_cuda(FENCED_CCCL)?.function("ring_update")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&head, &tail, &out])? };
    stream.synchronize()
}

fn ok_fenced_kernel_beside_an_unfenced_one(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let (_phys, head, tail) = aliases(ctx, g)?;
    let out = ctx.alloc::<i32>(256)?;
    let module = ctx.load_cuda(TWO_KERNELS)?;
    let k = module.function("safe_update")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&head, &tail, &out])? };
    stream.synchronize()
}

fn ok_compile_ptx_fenced(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let (_phys, head, tail) = aliases(ctx, g)?;
    let out = ctx.alloc::<i32>(256)?;
    let ptx = ctx.compile_ptx(FENCED_INLINE)?;
    let module = ctx.load_module(&ptx)?;
    let k = module.function("ring_update")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&head, &tail, &out])? };
    stream.synchronize()
}

fn ok_ptx_fenced_entry(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let (_phys, head, tail) = aliases(ctx, g)?;
    let out = ctx.alloc::<i32>(256)?;
    let ptx = Ptx::from_src(PTX);
    let module = ctx.load_module(&ptx)?;
    let k = module.function("ring_update_fenced")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&head, &tail, &out])? };
    stream.synchronize()
}

fn ok_include_str_fenced(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let (_phys, head, tail) = aliases(ctx, g)?;
    let out = ctx.alloc::<f32>(256)?;
    let module = ctx.load_cuda(include_str!("alias_kernels.cu"))?;
    let k = module.function("copy_alias_fenced")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&head, &tail, &out])? };
    stream.synchronize()
}

fn ok_source_not_visible_one_mapping(ctx: &Context, stream: &Stream, src: &str) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let (_phys, head, _tail) = aliases(ctx, g)?;
    let out = ctx.alloc::<i32>(256)?;
    let k = ctx.load_cuda(src)?.function("ring_update")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&head, &out, &out])? };
    stream.synchronize()
}

fn main() {}
