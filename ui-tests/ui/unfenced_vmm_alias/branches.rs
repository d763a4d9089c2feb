use cuda_lint_runtime::{Context, Error, LaunchConfig, PhysicalAllocation, Stream, VirtualRange};

const SRC: &str = r#"
extern "C" __global__ void blend_fast(volatile float* dst, volatile float* src, float* out) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    dst[i] = 1.0f;
    out[i] = src[i];
}
extern "C" __global__ void blend_safe(volatile float* dst, volatile float* src, float* out) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    dst[i] = 1.0f;
    asm volatile("fence.proxy.alias;" ::: "memory");
    out[i] = src[i];
}
extern "C" __global__ void blend_checked(volatile float* dst, volatile float* src, float* out) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    dst[i] = 1.0f;
    cuda::ptx::fence_proxy_alias();
    out[i] = src[i];
}
extern "C" __global__ void fill(float* dst) {
    dst[threadIdx.x + blockIdx.x * blockDim.x] = 0.0f;
}
"#;

enum Mode {
    Fast,
    Safe,
    Checked,
}

fn fires_unfenced_kernel_on_one_branch(ctx: &Context, stream: &Stream, fast: bool) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let dst = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let src = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let out = ctx.alloc::<f32>(g / 4)?;
    let module = ctx.load_cuda(SRC)?;
    let k = if fast { module.function("blend_fast")? } else { module.function("blend_safe")? };
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    unsafe { stream.launch(&k, cfg, &[&dst, &src, &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn fires_kernel_picked_by_match(ctx: &Context, stream: &Stream, mode: Mode) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let dst = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let src = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let out = ctx.alloc::<f32>(g / 4)?;
    let module = ctx.load_cuda(SRC)?;
    let name = match mode {
        Mode::Fast => "blend_fast",
        Mode::Safe => "blend_safe",
        Mode::Checked => "blend_checked",
    };
    let k = module.function(name)?;
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    unsafe { stream.launch(&k, cfg, &[&dst, &src, &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn fires_alias_chosen_on_one_branch(ctx: &Context, stream: &Stream, in_place: bool) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let other = PhysicalAllocation::new(ctx, g)?;
    let dst = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let alias = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let separate = VirtualRange::reserve(ctx, g)?.map(&other, 0)?;
    let out = ctx.alloc::<f32>(g / 4)?;
    let k = ctx.load_cuda(SRC)?.function("blend_fast")?;
    let src = if in_place { &alias } else { &separate };
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    unsafe { stream.launch(&k, cfg, &[&dst, src, &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn fires_wait_on_one_branch_only(ctx: &Context, overlap: bool) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let a = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let b = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let fill = ctx.load_cuda(SRC)?.function("fill")?;
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    let (s1, s2) = (ctx.new_stream()?, ctx.new_stream()?);
    let e = ctx.new_event()?;
    unsafe { s1.launch(&fill, cfg, &[&a])? };
    s1.record_event(&e)?;
    if !overlap {
        s2.wait_event(&e)?;
    }
    unsafe { s2.launch(&fill, cfg, &[&b])? };
    //~^ unfenced_vmm_alias
    ctx.synchronize()
}

fn fires_first_work_on_one_branch(ctx: &Context, clear_first: bool) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let mut a = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let b = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let fill = ctx.load_cuda(SRC)?.function("fill")?;
    let (s1, s2) = (ctx.new_stream()?, ctx.new_stream()?);
    if clear_first {
        s1.memset_d8_async(&mut a, 0)?;
    }
    unsafe { s2.launch(&fill, LaunchConfig::for_num_elems((g / 4) as u32), &[&b])? };
    //~^ unfenced_vmm_alias
    ctx.synchronize()
}

fn fires_source_picked_at_run_time(ctx: &Context, stream: &Stream, debug: bool) -> Result<(), Error> {
    const DEBUG_SRC: &str = r#"extern "C" __global__ void blend_fast(float* dst, const float* src, float* out) {
        int i = threadIdx.x; dst[i] = 1.0f; printf("%f\n", src[i]); out[i] = src[i]; }"#;
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let dst = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let src = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let out = ctx.alloc::<f32>(g / 4)?;
    let source = if debug { DEBUG_SRC } else { SRC };
    let k = ctx.load_cuda(source)?.function("blend_fast")?;
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    unsafe { stream.launch(&k, cfg, &[&dst, &src, &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn fires_fenced_or_unfenced_source_picked_at_run_time(ctx: &Context, stream: &Stream, safe: bool) -> Result<(), Error> {
    const FENCED_SRC: &str = r#"extern "C" __global__ void blend(float* dst, const float* src, float* out) {
        int i = threadIdx.x; dst[i] = 1.0f; asm volatile("fence.proxy.alias;" ::: "memory"); out[i] = src[i]; }"#;
    const UNFENCED_SRC: &str = r#"extern "C" __global__ void blend(float* dst, const float* src, float* out) {
        int i = threadIdx.x; dst[i] = 1.0f; out[i] = src[i]; }"#;
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let dst = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let src = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let out = ctx.alloc::<f32>(g / 4)?;
    let source = if safe { FENCED_SRC } else { UNFENCED_SRC };
    let k = ctx.load_cuda(source)?.function("blend")?;
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    unsafe { stream.launch(&k, cfg, &[&dst, &src, &out])? };
    //~^ unfenced_vmm_alias
    stream.synchronize()
}

fn ok_both_branches_fenced(ctx: &Context, stream: &Stream, checked: bool) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let dst = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let src = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let out = ctx.alloc::<f32>(g / 4)?;
    let module = ctx.load_cuda(SRC)?;
    let k = if checked { module.function("blend_checked")? } else { module.function("blend_safe")? };
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    unsafe { stream.launch(&k, cfg, &[&dst, &src, &out])? };
    stream.synchronize()
}

fn ok_fast_kernel_only_without_alias(ctx: &Context, stream: &Stream, in_place: bool) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let other = PhysicalAllocation::new(ctx, g)?;
    let dst = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let alias = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let separate = VirtualRange::reserve(ctx, g)?.map(&other, 0)?;
    let out = ctx.alloc::<f32>(g / 4)?;
    let module = ctx.load_cuda(SRC)?;
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    if in_place {
        let k = module.function("blend_safe")?;
        unsafe { stream.launch(&k, cfg, &[&dst, &alias, &out])? };
    } else {
        let k = module.function("blend_fast")?;
        unsafe { stream.launch(&k, cfg, &[&dst, &separate, &out])? };
    }
    stream.synchronize()
}

fn ok_each_branch_picks_another_physical(ctx: &Context, stream: &Stream, left: bool) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let p_left = PhysicalAllocation::new(ctx, g)?;
    let p_right = PhysicalAllocation::new(ctx, g)?;
    let dst = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let l = VirtualRange::reserve(ctx, g)?.map(&p_left, 0)?;
    let r = VirtualRange::reserve(ctx, g)?.map(&p_right, 0)?;
    let out = ctx.alloc::<f32>(g / 4)?;
    let k = ctx.load_cuda(SRC)?.function("blend_fast")?;
    let src = if left { &l } else { &r };
    unsafe { stream.launch(&k, LaunchConfig::for_num_elems((g / 4) as u32), &[&dst, src, &out])? };
    stream.synchronize()
}

fn ok_synchronized_on_every_branch(ctx: &Context, by_event: bool) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let a = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let b = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let fill = ctx.load_cuda(SRC)?.function("fill")?;
    let cfg = LaunchConfig::for_num_elems((g / 4) as u32);
    let (s1, s2) = (ctx.new_stream()?, ctx.new_stream()?);
    let e = ctx.new_event()?;
    unsafe { s1.launch(&fill, cfg, &[&a])? };
    if by_event {
        s1.record_event(&e)?;
        s2.wait_event(&e)?;
    } else {
        s1.synchronize()?;
    }
    unsafe { s2.launch(&fill, cfg, &[&b])? };
    ctx.synchronize()
}

fn ok_early_return_skips_the_second_stream(ctx: &Context, only_clear: bool) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let mut a = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let b = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let fill = ctx.load_cuda(SRC)?.function("fill")?;
    let (s1, s2) = (ctx.new_stream()?, ctx.new_stream()?);
    if only_clear {
        s1.memset_d8_async(&mut a, 0)?;
        return s1.synchronize();
    }
    unsafe { s2.launch(&fill, LaunchConfig::for_num_elems((g / 4) as u32), &[&b])? };
    s2.synchronize()
}

fn main() {}
