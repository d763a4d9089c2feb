//@compile-flags: -W cuda_lint::unverified
// This project's runtime layer. `Context::load_cuda` and `Context::compile_ptx` of a `const`
// CUDA string, with a constant kernel name, are visible to cuda-lint; PTX text read from a file
// at run time (`Ptx::from_src(fs::read_to_string(..))`), CUDA source or a module or kernel the
// caller gives, and a kernel name that is not a constant are not. Host-visible memory is a
// `ManagedBuffer` or a device-mapped `PinnedBuffer` (`mapped_device_ptr`).
use cuda_lint_runtime::{
    Context, Error, Kernel, LaunchConfig, Mapping, Module, PhysicalAllocation, PinnedBuffer, PinnedFlags, Ptx,
    Stream, VirtualRange,
};

const N: usize = 1 << 20;

const KERNELS: &str = r#"
extern "C" __global__ void sum_into(const float* in, float* out, unsigned int n) {
    unsigned int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n) atomicAdd(out, in[i]);
}
extern "C" __global__ void ring_update(volatile int* head, volatile int* tail, int* out) {
    int i = threadIdx.x;
    head[i] = i;
    asm volatile("fence.proxy.alias;" ::: "memory");
    out[i] = tail[i];
}
"#;

const MAPPED: PinnedFlags = PinnedFlags {
    portable: false,
    device_mapped: true,
    write_combined: false,
};

/// PTX built elsewhere (`nvcc --ptx`) and read at run time: its source is not in the crate.
fn module_from_a_ptx_file(ctx: &Context) -> Result<Module, Error> {
    let text = std::fs::read_to_string("kernels/scale.ptx").expect("the PTX file is there");
    ctx.load_module(&Ptx::from_src(text))
}

fn host_mapped(ctx: &Context) -> Result<PinnedBuffer<f32>, Error> {
    ctx.alloc_pinned_with_flags::<f32>(N, MAPPED)
}

fn aliases(ctx: &Context) -> Result<(PhysicalAllocation, Mapping, Mapping), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let head = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let tail = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    Ok((phys, head, tail))
}

fn fires_managed_read_after_a_kernel_from_a_ptx_file(ctx: &Context, s: &Stream) -> Result<f32, Error> {
    let k = module_from_a_ptx_file(ctx)?.function("scale")?;
    let mut data = ctx.alloc_managed::<f32>(N)?;
    let n = N as u32;
    unsafe { s.launch(&k, LaunchConfig::for_num_elems(n), &[&mut data, &2.0f32, &n])? };
    let first = data[0];
    //~^ unverified
    s.synchronize()?;
    Ok(first)
}

fn fires_host_mapped_read_after_a_kernel_from_a_ptx_file(ctx: &Context, s: &Stream) -> Result<f32, Error> {
    let k = module_from_a_ptx_file(ctx)?.function("scale")?;
    let host = host_mapped(ctx)?;
    let dev = host.mapped_device_ptr()?;
    let n = N as u32;
    unsafe { s.launch(&k, LaunchConfig::for_num_elems(n), &[&dev, &2.0f32, &n])? };
    let first = host[0];
    //~^ unverified
    s.synchronize()?;
    Ok(first)
}

fn fires_kernel_given_by_the_caller(ctx: &Context, s: &Stream, k: &Kernel) -> Result<f32, Error> {
    let mut data = ctx.alloc_managed::<f32>(N)?;
    let n = N as u32;
    unsafe { s.launch(k, LaunchConfig::for_num_elems(n), &[&mut data, &2.0f32, &n])? };
    let first = data[0];
    //~^ unverified
    s.synchronize()?;
    Ok(first)
}

fn fires_kernel_of_a_module_given_by_the_caller(ctx: &Context, s: &Stream, module: &Module) -> Result<f32, Error> {
    let k = module.function("scale")?;
    let mut data = ctx.alloc_managed::<f32>(N)?;
    let n = N as u32;
    unsafe { s.launch(&k, LaunchConfig::for_num_elems(n), &[&mut data, &2.0f32, &n])? };
    let total: f32 = data.iter().sum();
    //~^ unverified
    s.synchronize()?;
    Ok(total)
}

fn fires_kernel_named_by_the_caller(ctx: &Context, s: &Stream, name: &str) -> Result<f32, Error> {
    let k = ctx.load_cuda(KERNELS)?.function(name)?;
    let mut data = ctx.alloc_managed::<f32>(N)?;
    let n = N as u32;
    unsafe { s.launch(&k, LaunchConfig::for_num_elems(n), &[&mut data, &2.0f32, &n])? };
    let first = data[0];
    //~^ unverified
    s.synchronize()?;
    Ok(first)
}

fn fires_two_mappings_given_to_a_kernel_from_a_ptx_file(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let (_phys, head, tail) = aliases(ctx)?;
    let out = ctx.alloc::<i32>(256)?;
    let k = module_from_a_ptx_file(ctx)?.function("ring_update")?;
    unsafe { s.launch(&k, LaunchConfig::for_num_elems(256), &[&head, &tail, &out])? };
    //~^ unverified
    s.synchronize()
}

fn fires_two_mappings_given_to_a_kernel_compiled_from_caller_source(
    ctx: &Context,
    s: &Stream,
    src: &str,
) -> Result<(), Error> {
    let (_phys, head, tail) = aliases(ctx)?;
    let out = ctx.alloc::<i32>(256)?;
    let k = ctx.load_cuda(src)?.function("ring_update")?;
    unsafe { s.launch(&k, LaunchConfig::for_num_elems(256), &[&head, &tail, &out])? };
    //~^ unverified
    s.synchronize()
}

fn ok_managed_read_after_stream_synchronize(ctx: &Context, s: &Stream) -> Result<f32, Error> {
    let k = module_from_a_ptx_file(ctx)?.function("scale")?;
    let mut data = ctx.alloc_managed::<f32>(N)?;
    let n = N as u32;
    unsafe { s.launch(&k, LaunchConfig::for_num_elems(n), &[&mut data, &2.0f32, &n])? };
    s.synchronize()?;
    Ok(data[0])
}

fn ok_host_mapped_read_after_an_event(ctx: &Context, s: &Stream) -> Result<f32, Error> {
    let k = module_from_a_ptx_file(ctx)?.function("scale")?;
    let host = host_mapped(ctx)?;
    let dev = host.mapped_device_ptr()?;
    let done = ctx.new_event()?;
    let n = N as u32;
    unsafe { s.launch(&k, LaunchConfig::for_num_elems(n), &[&dev, &2.0f32, &n])? };
    s.record_event(&done)?;
    done.synchronize()?;
    Ok(host[0])
}

fn ok_host_mapped_input_of_a_kernel_from_visible_source(ctx: &Context, s: &Stream) -> Result<f32, Error> {
    let k = ctx.load_cuda(KERNELS)?.function("sum_into")?;
    let host = host_mapped(ctx)?;
    let input = host.mapped_device_ptr()?;
    let total = ctx.alloc_zeroed::<f32>(1)?;
    let n = N as u32;
    unsafe { s.launch(&k, LaunchConfig::for_num_elems(n), &[&input, &total, &n])? };
    // `sum_into` only reads `in`: reading it on the host meanwhile is fine.
    let first = host[0];
    s.synchronize()?;
    Ok(first)
}

fn ok_host_mapped_buffer_not_given_to_the_kernel(ctx: &Context, s: &Stream) -> Result<f32, Error> {
    let k = module_from_a_ptx_file(ctx)?.function("scale")?;
    let host = host_mapped(ctx)?;
    let mut work = ctx.alloc::<f32>(N)?;
    let n = N as u32;
    unsafe { s.launch(&k, LaunchConfig::for_num_elems(n), &[&mut work, &2.0f32, &n])? };
    let first = host[0];
    s.synchronize()?;
    Ok(first)
}

fn ok_two_mappings_given_to_a_fenced_kernel_from_visible_source(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let (_phys, head, tail) = aliases(ctx)?;
    let out = ctx.alloc::<i32>(256)?;
    let ptx = ctx.compile_ptx(KERNELS)?;
    let k = ctx.load_module(&ptx)?.function("ring_update")?;
    unsafe { s.launch(&k, LaunchConfig::for_num_elems(256), &[&head, &tail, &out])? };
    s.synchronize()
}

fn ok_one_mapping_given_to_a_kernel_from_a_ptx_file(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let (_phys, head, _tail) = aliases(ctx)?;
    let other = ctx.alloc::<i32>(256)?;
    let out = ctx.alloc::<i32>(256)?;
    let k = module_from_a_ptx_file(ctx)?.function("ring_update")?;
    unsafe { s.launch(&k, LaunchConfig::for_num_elems(256), &[&head, &other, &out])? };
    s.synchronize()
}

fn main() {}
