// A kernel that only loads through two mappings of one physical allocation is no alias hazard:
// two loads see the same bytes through either alias (the source says which parameters a kernel
// stores through: `const`, or only loaded `p[i]`). Two readers on two streams are no race either.
use cuda_lint_runtime::{Context, Error, LaunchConfig, Mapping, PhysicalAllocation, Stream, VirtualRange};

const SUM_CONST: &str = r#"
extern "C" __global__ void sum(const int* a, const int* b, int* out) {
    int i = threadIdx.x;
    out[i] = a[i] + b[i];
}
"#;

const SUM_LOADS: &str = r#"
extern "C" __global__ void sum(int* a, int* b, int* out) {
    int i = threadIdx.x;
    if (a[i] == b[i]) out[i] = a[b[i] & 255];
}
"#;

const STORES_THROUGH_B: &str = r#"
extern "C" __global__ void sum(const int* a, int* b, int* out) {
    int i = threadIdx.x;
    b[i] += 1;
    out[i] = a[i];
}
"#;

const ATOMIC_THROUGH_B: &str = r#"
extern "C" __global__ void sum(int* a, int* b, int* out) {
    int i = threadIdx.x;
    atomicAdd(&b[0], a[i]);
    out[i] = a[i];
}
"#;

const READER: &str = r#"
extern "C" __global__ void copy_out(const int* in, int* out) { out[threadIdx.x] = in[threadIdx.x]; }
"#;

const WRITER: &str = r#"
extern "C" __global__ void fill(int* p) { p[threadIdx.x] = 7; }
"#;

fn aliases(ctx: &Context, g: usize) -> Result<(PhysicalAllocation, Mapping, Mapping), Error> {
    let phys = PhysicalAllocation::new(ctx, g)?;
    let a = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let b = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    Ok((phys, a, b))
}

macro_rules! launch_sum {
    ($ctx:expr, $stream:expr, $source:expr) => {{
        let g = $ctx.vmm_granularity()?;
        let (_phys, a, b) = aliases($ctx, g)?;
        let out = $ctx.alloc::<i32>(256)?;
        let module = $ctx.load_cuda($source)?;
        let k = module.function("sum")?;
        unsafe { $stream.launch(&k, LaunchConfig::for_num_elems(256), &[&a, &b, &out])? };
        $stream.synchronize()
    }};
}

fn fires_store_through_one_alias(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let (_phys, a, b) = aliases(ctx, g)?;
    let out = ctx.alloc::<i32>(256)?;
    let module = ctx.load_cuda(STORES_THROUGH_B)?;
    let k = module.function("sum")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&a, &b, &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn fires_atomic_through_one_alias(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let (_phys, a, b) = aliases(ctx, g)?;
    let out = ctx.alloc::<i32>(256)?;
    let module = ctx.load_cuda(ATOMIC_THROUGH_B)?;
    let k = module.function("sum")?;
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems(256), &[&a, &b, &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn fires_reader_racing_a_writer_on_another_stream(ctx: &Context) -> Result<(), Error> {
    let (s1, s2) = (ctx.new_stream()?, ctx.new_stream()?);
    let g = ctx.vmm_granularity()?;
    let (_phys, a, b) = aliases(ctx, g)?;
    let out = ctx.alloc::<i32>(256)?;
    let fill = ctx.load_cuda(WRITER)?.function("fill")?;
    let copy_out = ctx.load_cuda(READER)?.function("copy_out")?;
    let cfg = LaunchConfig::for_num_elems(256);
    unsafe { s1.launch(&fill, cfg, &[&a])? };
    unsafe { s2.launch(&copy_out, cfg, &[&b, &out])? };
    //~^ unfenced_vmm_alias
    ctx.synchronize()
}

fn ok_const_parameters(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    launch_sum!(ctx, stream, SUM_CONST)
}

fn ok_parameters_only_loaded(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    launch_sum!(ctx, stream, SUM_LOADS)
}

fn ok_two_readers_on_two_streams(ctx: &Context) -> Result<(), Error> {
    let (s1, s2) = (ctx.new_stream()?, ctx.new_stream()?);
    let g = ctx.vmm_granularity()?;
    let (_phys, a, b) = aliases(ctx, g)?;
    let (x, y) = (ctx.alloc::<i32>(256)?, ctx.alloc::<i32>(256)?);
    let copy_out = ctx.load_cuda(READER)?.function("copy_out")?;
    let cfg = LaunchConfig::for_num_elems(256);
    unsafe { s1.launch(&copy_out, cfg, &[&a, &x])? };
    unsafe { s2.launch(&copy_out, cfg, &[&b, &y])? };
    ctx.synchronize()
}

fn ok_const_kernel_on_one_stream_twice(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    launch_sum!(ctx, stream, SUM_CONST)?;
    launch_sum!(ctx, stream, SUM_LOADS)
}

fn main() {}
