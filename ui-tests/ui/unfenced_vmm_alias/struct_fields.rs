#![cfg_attr(cuda_lint, allow(cuda_lint::uninitialized_device_read))] // other lints' subject: the test code leaks, or reads memory it never wrote
use cuda_lint_runtime::{
    Context, DeviceBuffer, Error, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Stream,
    VirtualRange,
};

const SRC: &str = r#"
extern "C" __global__ void swap_halves(volatile unsigned* lo, volatile unsigned* hi, unsigned* out) {
    unsigned i = threadIdx.x + blockIdx.x * blockDim.x;
    lo[i] = i;
    out[i] = hi[i];
}
extern "C" __global__ void swap_halves_fenced(volatile unsigned* lo, volatile unsigned* hi, unsigned* out) {
    unsigned i = threadIdx.x + blockIdx.x * blockDim.x;
    lo[i] = i;
    asm volatile("fence.proxy.alias;" ::: "memory");
    out[i] = hi[i];
}
"#;

/// One physical allocation seen at two virtual addresses (a "mirrored" ring buffer).
struct Mirror {
    phys: PhysicalAllocation,
    primary: Mapping,
    shadow: Mapping,
}

impl Mirror {
    fn new(ctx: &Context, size: usize) -> Result<Mirror, Error> {
        let phys = PhysicalAllocation::new(ctx, size)?;
        let primary = VirtualRange::reserve(ctx, size)?.map(&phys, 0)?;
        let shadow = VirtualRange::reserve(ctx, size)?.map(&phys, 0)?;
        Ok(Mirror { phys, primary, shadow })
    }

    fn launch(&self, stream: &Stream, k: &Kernel, out: &DeviceBuffer<u32>) -> Result<(), Error> {
        let cfg = LaunchConfig::for_num_elems(out.len() as u32);
        unsafe { stream.launch(k, cfg, &[&self.primary, &self.shadow, out]) }
    }
}

struct Pipeline {
    swap: Kernel,
    swap_fenced: Kernel,
    out: DeviceBuffer<u32>,
}

fn fires_fields_of_a_local_struct(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let primary = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let shadow = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let m = Mirror { phys, primary, shadow };
    let out = ctx.alloc::<u32>(g / 4)?;
    let k = ctx.load_cuda(SRC)?.function("swap_halves")?;
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    unsafe { stream.launch(&k, cfg, &[&m.primary, &m.shadow, &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn fires_struct_built_by_its_constructor(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let m = Mirror::new(ctx, g)?;
    let out = ctx.alloc::<u32>(g / 4)?;
    let k = ctx.load_cuda(SRC)?.function("swap_halves")?;
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    unsafe { stream.launch(&k, cfg, &[&m.primary, &m.shadow, &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn fires_method_launches_the_fields(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let primary = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let shadow = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let m = Mirror { phys, primary, shadow };
    let out = ctx.alloc::<u32>(g / 4)?;
    let k = ctx.load_cuda(SRC)?.function("swap_halves")?;
    m.launch(stream, &k, &out)?;
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn fires_constructor_and_method(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let m = Mirror::new(ctx, g)?;
    let out = ctx.alloc::<u32>(g / 4)?;
    let k = ctx.load_cuda(SRC)?.function("swap_halves")?;
    m.launch(stream, &k, &out)?;
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn fires_kernel_in_a_struct_field(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let module = ctx.load_cuda(SRC)?;
    let p = Pipeline {
        swap: module.function("swap_halves")?,
        swap_fenced: module.function("swap_halves_fenced")?,
        out: ctx.alloc::<u32>(g / 4)?,
    };
    let phys = PhysicalAllocation::new(ctx, g)?;
    let lo = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let hi = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    unsafe { stream.launch(&p.swap, cfg, &[&lo, &hi, &p.out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn fires_tuple_of_mappings(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let pair = (VirtualRange::reserve(ctx, g)?.map(&phys, 0)?, VirtualRange::reserve(ctx, g)?.map(&phys, 0)?);
    let out = ctx.alloc::<u32>(g / 4)?;
    let k = ctx.load_cuda(SRC)?.function("swap_halves")?;
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    unsafe { stream.launch(&k, cfg, &[&pair.0, &pair.1, &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn ok_struct_with_a_fenced_kernel(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let m = Mirror::new(ctx, g)?;
    let out = ctx.alloc::<u32>(g / 4)?;
    let k = ctx.load_cuda(SRC)?.function("swap_halves_fenced")?;
    m.launch(stream, &k, &out)?;
    stream.synchronize()
}

fn ok_fenced_kernel_from_a_struct_field(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let module = ctx.load_cuda(SRC)?;
    let p = Pipeline {
        swap: module.function("swap_halves")?,
        swap_fenced: module.function("swap_halves_fenced")?,
        out: ctx.alloc::<u32>(g / 4)?,
    };
    let phys = PhysicalAllocation::new(ctx, g)?;
    let lo = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let hi = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    unsafe { stream.launch(&p.swap_fenced, cfg, &[&lo, &hi, &p.out])? };
    stream.synchronize()
}

fn ok_fields_of_two_mirrors(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let left = Mirror::new(ctx, g)?;
    let right = Mirror::new(ctx, g)?;
    let out = ctx.alloc::<u32>(g / 4)?;
    let k = ctx.load_cuda(SRC)?.function("swap_halves")?;
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    unsafe { stream.launch(&k, cfg, &[&left.primary, &right.primary, &out])? };
    stream.synchronize()
}

fn ok_same_field_twice(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let m = Mirror::new(ctx, g)?;
    let out = ctx.alloc::<u32>(g / 4)?;
    let k = ctx.load_cuda(SRC)?.function("swap_halves")?;
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    unsafe { stream.launch(&k, cfg, &[&m.shadow, &m.shadow.device_ptr(), &out])? };
    stream.synchronize()
}

fn ok_one_field_per_launch(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let m = Mirror::new(ctx, g)?;
    let out = ctx.alloc::<u32>(g / 4)?;
    let scratch = ctx.alloc::<u32>(g / 4)?;
    let k = ctx.load_cuda(SRC)?.function("swap_halves")?;
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    unsafe { stream.launch(&k, cfg, &[&m.primary, &scratch, &out])? };
    unsafe { stream.launch(&k, cfg, &[&m.shadow, &scratch, &out])? };
    stream.synchronize()
}

fn ok_one_element_of_an_array_of_mappings(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let views = [VirtualRange::reserve(ctx, g)?.map(&phys, 0)?, VirtualRange::reserve(ctx, g)?.map(&phys, 0)?];
    let scratch = ctx.alloc::<u32>(g / 4)?;
    let out = ctx.alloc::<u32>(g / 4)?;
    let k = ctx.load_cuda(SRC)?.function("swap_halves")?;
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    unsafe { stream.launch(&k, cfg, &[&views[0], &scratch, &out])? };
    stream.synchronize()
}

fn main() {}
