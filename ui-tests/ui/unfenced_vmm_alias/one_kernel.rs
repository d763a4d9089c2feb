#![cfg_attr(cuda_lint, allow(cuda_lint::uninitialized_device_read))] // other lints' subject: the test code leaks, or reads memory it never wrote
use cuda_lint_runtime::{Context, Error, LaunchConfig, Mapping, PhysicalAllocation, Stream, VirtualRange};

const SRC: &str = r#"
extern "C" __global__ void write_a_read_b(volatile int* a, volatile int* b, int* out) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    a[i] = i + 1;
    out[i] = b[i];
}

extern "C" __global__ void write_a_fence_read_b(volatile int* a, volatile int* b, int* out) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    a[i] = i + 1;
    asm volatile("fence.proxy.alias;" ::: "memory");
    out[i] = b[i];
}

extern "C" __global__ void scale(int* a, int* out, int n) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n) out[i] = 2 * a[i];
}
"#;

fn fires_two_mappings_of_one_physical(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let a = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let b = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let out = ctx.alloc::<i32>(g / 4)?;
    let module = ctx.load_cuda(SRC)?;
    let k = module.function("write_a_read_b")?;
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    unsafe { stream.launch(&k, cfg, &[&a, &b, &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn fires_device_ptrs_of_both_mappings(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let a = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let b = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let out = ctx.alloc::<i32>(g / 4)?;
    let k = ctx.load_cuda(SRC)?.function("write_a_read_b")?;
    let (pa, pb) = (a.device_ptr(), b.device_ptr());
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems((g / 4) as u32), &[&pa, &pb, &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn fires_mapping_and_pointer_of_the_other(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let a = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let b = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let out = ctx.alloc::<i32>(g / 4)?;
    let k = ctx.load_cuda(SRC)?.function("write_a_read_b")?;
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    unsafe { stream.launch(&k, cfg, &[&a, &b.device_ptr(), &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn fires_after_memset_through_first_mapping(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let mut a = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let b = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let out = ctx.alloc::<i32>(g / 4)?;
    let k = ctx.load_cuda(SRC)?.function("write_a_read_b")?;
    stream.memset_d8(&mut a, 0)?;
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    unsafe { stream.launch(&k, cfg, &[&a, &b, &out])? };
    //~^ unfenced_vmm_alias
    let mut host = vec![0i32; g / 4];
    stream.copy_dtoh(&mut host, &out)
}

fn fires_mappings_in_reverse_order(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let writer = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let reader = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let out = ctx.alloc::<i32>(g / 4)?;
    let k = ctx.load_cuda(SRC)?.function("write_a_read_b")?;
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    unsafe { stream.launch(&k, cfg, &[&reader, &writer, &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn fires_mapping_from_a_physical_parameter(
    ctx: &Context,
    stream: &Stream,
    phys: &PhysicalAllocation,
) -> Result<(), Error> {
    let size = phys.size();
    let a = VirtualRange::reserve(ctx, size)?.map(phys, 0)?;
    let b = VirtualRange::reserve(ctx, size)?.map(phys, 0)?;
    let out = ctx.alloc::<i32>(size / 4)?;
    let k = ctx.load_cuda(SRC)?.function("write_a_read_b")?;
    let cfg = LaunchConfig::for_num_elems((size / 4) as u32);
    unsafe { stream.launch(&k, cfg, &[&a, &b, &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn fires_beside_a_scratch_mapping_from_the_caller(
    ctx: &Context,
    stream: &Stream,
    scratch: &Mapping,
) -> Result<(), Error> {
    let out = scratch.device_ptr();
    let size = scratch.size();
    let phys = PhysicalAllocation::new(ctx, size)?;
    let a = VirtualRange::reserve(ctx, size)?.map(&phys, 0)?;
    let b = VirtualRange::reserve(ctx, size)?.map(&phys, 0)?;
    let k = ctx.load_cuda(SRC)?.function("write_a_read_b")?;
    let cfg = LaunchConfig::for_num_elems((size / 4) as u32);
    unsafe { stream.launch(&k, cfg, &[&a, &b, &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn ok_mappings_of_two_physical_allocations(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys_a = PhysicalAllocation::new(ctx, g)?;
    let phys_b = PhysicalAllocation::new(ctx, g)?;
    let a = VirtualRange::reserve(ctx, g)?.map(&phys_a, 0)?;
    let b = VirtualRange::reserve(ctx, g)?.map(&phys_b, 0)?;
    let out = ctx.alloc::<i32>(g / 4)?;
    let k = ctx.load_cuda(SRC)?.function("write_a_read_b")?;
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    unsafe { stream.launch(&k, cfg, &[&a, &b, &out])? };
    stream.synchronize()
}

fn ok_one_mapping_passed_twice(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let a = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let _b = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let out = ctx.alloc::<i32>(g / 4)?;
    let k = ctx.load_cuda(SRC)?.function("write_a_read_b")?;
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    unsafe { stream.launch(&k, cfg, &[&a, &a.device_ptr(), &out])? };
    stream.synchronize()
}

fn ok_kernel_gets_one_of_the_mappings(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let n = (g / 4) as i32;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let a = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let b = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let out = ctx.alloc::<i32>(g / 4)?;
    let k = ctx.load_cuda(SRC)?.function("scale")?;
    let cfg = LaunchConfig::for_num_elems(n as u32);
    unsafe { stream.launch(&k, cfg, &[&a, &out, &n])? };
    unsafe { stream.launch(&k, cfg, &[&b, &out, &n])? };
    stream.synchronize()
}

fn ok_fenced_kernel(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let a = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let b = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let out = ctx.alloc::<i32>(g / 4)?;
    let module = ctx.load_cuda(SRC)?;
    let k = module.function("write_a_fence_read_b")?;
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    unsafe { stream.launch(&k, cfg, &[&a, &b, &out])? };
    stream.synchronize()
}

fn ok_fenced_kernel_with_device_ptrs(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let a = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let b = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let out = ctx.alloc::<i32>(g / 4)?;
    let k = ctx.load_cuda(SRC)?.function("write_a_fence_read_b")?;
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    unsafe { stream.launch(&k, cfg, &[&a.device_ptr(), &b.device_ptr(), &out])? };
    stream.synchronize()
}

fn ok_mapping_and_ordinary_buffer(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let a = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let staging = ctx.alloc::<i32>(g / 4)?;
    let out = ctx.alloc::<i32>(g / 4)?;
    let k = ctx.load_cuda(SRC)?.function("write_a_read_b")?;
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    unsafe { stream.launch(&k, cfg, &[&a, &staging, &out])? };
    stream.synchronize()
}

fn main() {}
