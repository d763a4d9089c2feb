use cuda_lint_runtime::{
    Context, DeviceBuffer, Error, Event, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Stream,
    VirtualRange,
};

const SRC: &str = r#"
__device__ void alias_fence() { asm volatile("fence.proxy.alias;" ::: "memory"); }

extern "C" __global__ void mirror(volatile float* front, volatile float* back, float* out) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    front[i] = 0.5f * i;
    out[i] = back[i];
}

extern "C" __global__ void mirror_fenced(volatile float* front, volatile float* back, float* out) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    front[i] = 0.5f * i;
    alias_fence();
    out[i] = back[i];
}

extern "C" __global__ void fill(float* dst, float v) {
    dst[threadIdx.x + blockIdx.x * blockDim.x] = v;
}
"#;

fn run_mirror(stream: &Stream, k: &Kernel, front: &Mapping, back: &Mapping, out: &DeviceBuffer<f32>) -> Result<(), Error> {
    let cfg = LaunchConfig::for_num_elems(out.len() as u32);
    unsafe { stream.launch(k, cfg, &[front, back, out]) }
}

fn run_fill(stream: &Stream, k: &Kernel, dst: &Mapping, v: f32) -> Result<(), Error> {
    let cfg = LaunchConfig::for_num_elems((dst.size() / 4) as u32);
    unsafe { stream.launch(k, cfg, &[dst, &v]) }
}

fn mirror_kernel(ctx: &Context) -> Result<Kernel, Error> {
    ctx.load_cuda(SRC)?.function("mirror")
}

fn map_twice(ctx: &Context, phys: &PhysicalAllocation) -> Result<(Mapping, Mapping), Error> {
    let size = phys.size();
    let front = VirtualRange::reserve(ctx, size)?.map(phys, 0)?;
    let back = VirtualRange::reserve(ctx, size)?.map(phys, 0)?;
    Ok((front, back))
}

fn fires_launch_inside_a_helper(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let front = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let back = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let out = ctx.alloc::<f32>(g / 4)?;
    let k = ctx.load_cuda(SRC)?.function("mirror")?;
    run_mirror(stream, &k, &front, &back, &out)?;
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn fires_kernel_loaded_by_a_helper(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let front = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let back = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let out = ctx.alloc::<f32>(g / 4)?;
    let k = mirror_kernel(ctx)?;
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    unsafe { stream.launch(&k, cfg, &[&front, &back, &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn fires_mappings_made_by_a_helper(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let (front, back) = map_twice(ctx, &phys)?;
    let out = ctx.alloc::<f32>(g / 4)?;
    let k = ctx.load_cuda(SRC)?.function("mirror")?;
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    unsafe { stream.launch(&k, cfg, &[&front, &back, &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn fires_mappings_from_one_helper_launched_by_another(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let (front, back) = map_twice(ctx, &phys)?;
    let out = ctx.alloc::<f32>(g / 4)?;
    let k = mirror_kernel(ctx)?;
    run_mirror(stream, &k, &front, &back, &out)?;
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn fires_second_stream_work_in_a_helper(ctx: &Context) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let front = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let back = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let fill = ctx.load_cuda(SRC)?.function("fill")?;
    let (s1, s2) = (ctx.new_stream()?, ctx.new_stream()?);
    run_fill(&s1, &fill, &front, 1.0)?;
    run_fill(&s2, &fill, &back, 2.0)?;
    //~^ unfenced_vmm_alias
    ctx.synchronize()
}

fn fires_launch_in_a_closure(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let front = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let back = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let out = ctx.alloc::<f32>(g / 4)?;
    let k = ctx.load_cuda(SRC)?.function("mirror")?;
    let step = |cfg: LaunchConfig| unsafe { stream.launch(&k, cfg, &[&front, &back, &out]) };
    step(LaunchConfig::for_num_elems((g / 4) as u32))?;
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn fires_two_levels_of_helpers(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    fn outer(stream: &Stream, k: &Kernel, front: &Mapping, back: &Mapping, out: &DeviceBuffer<f32>) -> Result<(), Error> {
        run_mirror(stream, k, front, back, out)?;
        stream.synchronize()
    }
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let front = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let back = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let out = ctx.alloc::<f32>(g / 4)?;
    let k = ctx.load_cuda(SRC)?.function("mirror")?;
    outer(stream, &k, &front, &back, &out)
    //~^ unfenced_vmm_alias
}

fn ok_helper_launches_a_fenced_kernel(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let (front, back) = map_twice(ctx, &phys)?;
    let out = ctx.alloc::<f32>(g / 4)?;
    let k = ctx.load_cuda(SRC)?.function("mirror_fenced")?;
    run_mirror(stream, &k, &front, &back, &out)?;
    stream.synchronize()
}

fn ok_helper_gets_two_physical_allocations(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys_front = PhysicalAllocation::new(ctx, g)?;
    let phys_back = PhysicalAllocation::new(ctx, g)?;
    let front = VirtualRange::reserve(ctx, g)?.map(&phys_front, 0)?;
    let back = VirtualRange::reserve(ctx, g)?.map(&phys_back, 0)?;
    let out = ctx.alloc::<f32>(g / 4)?;
    let k = mirror_kernel(ctx)?;
    run_mirror(stream, &k, &front, &back, &out)?;
    stream.synchronize()
}

fn ok_helper_gets_one_mapping_twice(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let (front, _back) = map_twice(ctx, &phys)?;
    let out = ctx.alloc::<f32>(g / 4)?;
    let k = mirror_kernel(ctx)?;
    run_mirror(stream, &k, &front, &front, &out)?;
    stream.synchronize()
}

fn ok_helpers_on_two_streams_ordered_by_an_event(ctx: &Context) -> Result<(), Error> {
    fn handoff(from: &Stream, to: &Stream, e: &Event) -> Result<(), Error> {
        from.record_event(e)?;
        to.wait_event(e)
    }
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let (front, back) = map_twice(ctx, &phys)?;
    let fill = ctx.load_cuda(SRC)?.function("fill")?;
    let (s1, s2) = (ctx.new_stream()?, ctx.new_stream()?);
    let e = ctx.new_event()?;
    run_fill(&s1, &fill, &front, 1.0)?;
    handoff(&s1, &s2, &e)?;
    run_fill(&s2, &fill, &back, 2.0)?;
    ctx.synchronize()
}

fn ok_helpers_on_one_stream(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let (front, back) = map_twice(ctx, &phys)?;
    let fill = ctx.load_cuda(SRC)?.function("fill")?;
    run_fill(stream, &fill, &front, 1.0)?;
    run_fill(stream, &fill, &back, 2.0)?;
    stream.synchronize()
}

fn ok_closure_launches_a_fenced_kernel(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let front = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let back = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let out = ctx.alloc::<f32>(g / 4)?;
    let k = ctx.load_cuda(SRC)?.function("mirror_fenced")?;
    let step = |cfg: LaunchConfig| unsafe { stream.launch(&k, cfg, &[&front, &back, &out]) };
    step(LaunchConfig::for_num_elems((g / 4) as u32))?;
    stream.synchronize()
}

fn main() {}
