use cuda_lint_runtime::{Context, Error, LaunchConfig, Mapping, PhysicalAllocation, VirtualRange};

const SRC: &str = r#"
extern "C" __global__ void step(volatile float* cur, volatile float* prev, int n) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n) cur[i] = prev[i] * 0.5f;
}
extern "C" __global__ void step_fenced(volatile float* cur, volatile float* prev, int n) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    float v = prev[i];
    asm volatile("fence.proxy.alias;" ::: "memory");
    if (i < n) cur[i] = v * 0.5f;
}
extern "C" __global__ void touch(float* p, int n) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n) p[i] += 1.0f;
}
"#;

fn fires_launch_in_a_loop(ctx: &Context, iters: usize) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let n = (g / 4) as i32;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let cur = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let prev = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let k = ctx.load_cuda(SRC)?.function("step")?;
    let s = ctx.new_stream()?;
    for _ in 0..iters {
        unsafe { s.launch(&k, LaunchConfig::for_num_elems(n as u32), &[&cur, &prev, &n])? };
        //~^ unfenced_vmm_alias
    }
    s.synchronize()
}

fn fires_mappings_made_in_each_iteration(ctx: &Context, sizes: &[usize]) -> Result<(), Error> {
    let k = ctx.load_cuda(SRC)?.function("step")?;
    let s = ctx.new_stream()?;
    for &size in sizes {
        let n = (size / 4) as i32;
        let phys = PhysicalAllocation::new(ctx, size)?;
        let cur = VirtualRange::reserve(ctx, size)?.map(&phys, 0)?;
        let prev = VirtualRange::reserve(ctx, size)?.map(&phys, 0)?;
        unsafe { s.launch(&k, LaunchConfig::for_num_elems(n as u32), &[&cur, &prev, &n])? };
        //~^ unfenced_vmm_alias
        s.synchronize()?;
    }
    Ok(())
}

// Known gap (not flagged): both mappings come from one `map` call in a loop, so the analysis
// holds them as one abstract mapping and cannot tell this from one mapping passed twice, which
// is fine. See the lint's "Known problems".
fn known_gap_ping_pong_in_a_vec(ctx: &Context, iters: usize) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let n = (g / 4) as i32;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let mut views: Vec<Mapping> = Vec::new();
    for _ in 0..2 {
        views.push(VirtualRange::reserve(ctx, g)?.map(&phys, 0)?);
    }
    let k = ctx.load_cuda(SRC)?.function("step")?;
    let s = ctx.new_stream()?;
    for i in 0..iters {
        let (cur, prev) = (&views[i % 2], &views[(i + 1) % 2]);
        unsafe { s.launch(&k, LaunchConfig::for_num_elems(n as u32), &[cur, prev, &n])? };
    }
    s.synchronize()
}

fn fires_back_edge_between_streams(ctx: &Context, iters: usize) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let n = (g / 4) as i32;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let a = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let b = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let touch = ctx.load_cuda(SRC)?.function("touch")?;
    let cfg = LaunchConfig::for_num_elems(n as u32);
    let (s1, s2) = (ctx.new_stream()?, ctx.new_stream()?);
    let e = ctx.new_event()?;
    for _ in 0..iters {
        // The next iteration's first launch is not ordered after this iteration's second one.
        unsafe { s1.launch(&touch, cfg, &[&a, &n])? };
        //~^ unfenced_vmm_alias
        s1.record_event(&e)?;
        s2.wait_event(&e)?;
        unsafe { s2.launch(&touch, cfg, &[&b, &n])? };
    }
    ctx.synchronize()
}

fn fires_sync_only_after_the_loop(ctx: &Context, iters: usize) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let n = (g / 4) as i32;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let mut a = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let b = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let touch = ctx.load_cuda(SRC)?.function("touch")?;
    let (s1, s2) = (ctx.new_stream()?, ctx.new_stream()?);
    for _ in 0..iters {
        // The launch races with the memset, and from the second iteration on the memset with
        // the last iteration's launch: one missing order between the two streams, reported
        // once, at the first of the two.
        s1.memset_d32_async(&mut a, 0)?;
        //~^ unfenced_vmm_alias
        unsafe { s2.launch(&touch, LaunchConfig::for_num_elems(n as u32), &[&b, &n])? };
    }
    ctx.synchronize()
}

fn ok_fenced_kernel_in_a_loop(ctx: &Context, iters: usize) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let n = (g / 4) as i32;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let cur = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let prev = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let k = ctx.load_cuda(SRC)?.function("step_fenced")?;
    let s = ctx.new_stream()?;
    for _ in 0..iters {
        unsafe { s.launch(&k, LaunchConfig::for_num_elems(n as u32), &[&cur, &prev, &n])? };
    }
    s.synchronize()
}

fn ok_alternating_mappings_one_per_launch(ctx: &Context, iters: usize) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let n = (g / 4) as i32;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let a = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let b = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let touch = ctx.load_cuda(SRC)?.function("touch")?;
    let s = ctx.new_stream()?;
    for i in 0..iters {
        let m = if i % 2 == 0 { &a } else { &b };
        unsafe { s.launch(&touch, LaunchConfig::for_num_elems(n as u32), &[m, &n])? };
    }
    s.synchronize()
}

fn ok_events_both_ways_in_a_loop(ctx: &Context, iters: usize) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let n = (g / 4) as i32;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let a = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let b = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let touch = ctx.load_cuda(SRC)?.function("touch")?;
    let cfg = LaunchConfig::for_num_elems(n as u32);
    let (s1, s2) = (ctx.new_stream()?, ctx.new_stream()?);
    let (to_s2, to_s1) = (ctx.new_event()?, ctx.new_event()?);
    for _ in 0..iters {
        unsafe { s1.launch(&touch, cfg, &[&a, &n])? };
        s1.record_event(&to_s2)?;
        s2.wait_event(&to_s2)?;
        unsafe { s2.launch(&touch, cfg, &[&b, &n])? };
        s2.record_event(&to_s1)?;
        s1.wait_event(&to_s1)?;
    }
    ctx.synchronize()
}

fn ok_host_sync_each_iteration(ctx: &Context, iters: usize) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let n = (g / 4) as i32;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let mut a = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let b = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let touch = ctx.load_cuda(SRC)?.function("touch")?;
    let (s1, s2) = (ctx.new_stream()?, ctx.new_stream()?);
    for _ in 0..iters {
        s1.memset_d32_async(&mut a, 0)?;
        s1.synchronize()?;
        unsafe { s2.launch(&touch, LaunchConfig::for_num_elems(n as u32), &[&b, &n])? };
        s2.synchronize()?;
    }
    Ok(())
}

fn ok_fresh_physical_per_iteration(ctx: &Context, iters: usize) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let n = (g / 4) as i32;
    let k = ctx.load_cuda(SRC)?.function("step")?;
    let s = ctx.new_stream()?;
    for _ in 0..iters {
        let phys_cur = PhysicalAllocation::new(ctx, g)?;
        let phys_prev = PhysicalAllocation::new(ctx, g)?;
        let cur = VirtualRange::reserve(ctx, g)?.map(&phys_cur, 0)?;
        let prev = VirtualRange::reserve(ctx, g)?.map(&phys_prev, 0)?;
        unsafe { s.launch(&k, LaunchConfig::for_num_elems(n as u32), &[&cur, &prev, &n])? };
        s.synchronize()?;
    }
    Ok(())
}

fn main() {}
