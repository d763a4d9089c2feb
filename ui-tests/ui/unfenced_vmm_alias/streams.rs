#![cfg_attr(cuda_lint, allow(cuda_lint::uninitialized_device_read))] // other lints' subject: the test code leaks, or reads memory it never wrote
use cuda_lint_runtime::{
    Context, DeviceBuffer, Error, Kernel, LaunchConfig, Mapping, PhysicalAllocation, VirtualRange,
};

const SRC: &str = r#"
extern "C" __global__ void produce(int* dst, int n) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n) dst[i] = i;
}
extern "C" __global__ void consume(const int* src, int* out, int n) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n) out[i] = src[i] + 1;
}
"#;

struct Setup {
    n: i32,
    cfg: LaunchConfig,
    producer: Kernel,
    consumer: Kernel,
}

fn setup(ctx: &Context) -> Result<Setup, Error> {
    let n = (ctx.vmm_granularity()? / 4) as i32;
    let module = ctx.load_cuda(SRC)?;
    Ok(Setup {
        n,
        cfg: LaunchConfig::for_num_elems(n as u32),
        producer: module.function("produce")?,
        consumer: module.function("consume")?,
    })
}

fn double_map(ctx: &Context) -> Result<(PhysicalAllocation, Mapping, Mapping), Error> {
    let g = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let a = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let b = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    Ok((phys, a, b))
}

fn fires_launches_on_two_streams(ctx: &Context) -> Result<(), Error> {
    let g = ctx.vmm_granularity()?;
    let n = (g / 4) as i32;
    let phys = PhysicalAllocation::new(ctx, g)?;
    let a = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let b = VirtualRange::reserve(ctx, g)?.map(&phys, 0)?;
    let out = ctx.alloc::<i32>(g / 4)?;
    let module = ctx.load_cuda(SRC)?;
    let producer = module.function("produce")?;
    let consumer = module.function("consume")?;
    let cfg = LaunchConfig::for_num_elems(n as u32);
    let s1 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    unsafe { s1.launch(&producer, cfg, &[&a, &n])? };
    unsafe { s2.launch(&consumer, cfg, &[&b, &out, &n])? };
    //~^ unfenced_vmm_alias
    ctx.synchronize()
}

fn fires_memset_then_launch_on_another_stream(ctx: &Context) -> Result<(), Error> {
    let k = setup(ctx)?;
    let (_phys, mut a, b) = double_map(ctx)?;
    let out = ctx.alloc::<i32>(k.n as usize)?;
    let s1 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    s1.memset_d32_async(&mut a, 7)?;
    unsafe { s2.launch(&k.consumer, k.cfg, &[&b, &out, &k.n])? };
    //~^ unfenced_vmm_alias
    ctx.synchronize()
}

fn fires_two_memsets_on_two_streams(ctx: &Context) -> Result<(), Error> {
    let (_phys, mut a, mut b) = double_map(ctx)?;
    let s1 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    s1.memset_d8_async(&mut a, 0)?;
    s2.memset_d8_async(&mut b, 0xff)?;
    //~^ unfenced_vmm_alias
    ctx.synchronize()
}

fn fires_copy_into_a_view_of_the_other_mapping(ctx: &Context) -> Result<(), Error> {
    let k = setup(ctx)?;
    let (_phys, a, b) = double_map(ctx)?;
    let src = ctx.alloc::<i32>(k.n as usize)?;
    let s1 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    unsafe { s1.launch(&k.producer, k.cfg, &[&a, &k.n])? };
    // A typed view of mapping `b` (never freed: `into_raw` below).
    let mut view = unsafe { DeviceBuffer::<i32>::from_raw_parts(ctx, b.device_ptr(), k.n as usize) };
    s2.copy_dtod_async(&mut view, &src)?;
    //~^ unfenced_vmm_alias
    let _ = view.into_raw();
    ctx.synchronize()
}

fn fires_event_recorded_before_the_work(ctx: &Context) -> Result<(), Error> {
    let k = setup(ctx)?;
    let (_phys, a, b) = double_map(ctx)?;
    let out = ctx.alloc::<i32>(k.n as usize)?;
    let s1 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    let done = ctx.new_event()?;
    s1.record_event(&done)?;
    unsafe { s1.launch(&k.producer, k.cfg, &[&a, &k.n])? };
    s2.wait_event(&done)?;
    unsafe { s2.launch(&k.consumer, k.cfg, &[&b, &out, &k.n])? };
    //~^ unfenced_vmm_alias
    ctx.synchronize()
}

fn fires_wait_on_the_wrong_stream(ctx: &Context) -> Result<(), Error> {
    let k = setup(ctx)?;
    let (_phys, a, b) = double_map(ctx)?;
    let out = ctx.alloc::<i32>(k.n as usize)?;
    let s1 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    let done = ctx.new_event()?;
    unsafe { s1.launch(&k.producer, k.cfg, &[&a, &k.n])? };
    s1.record_event(&done)?;
    s1.wait_event(&done)?;
    unsafe { s2.launch(&k.consumer, k.cfg, &[&b, &out, &k.n])? };
    //~^ unfenced_vmm_alias
    ctx.synchronize()
}

fn fires_event_recorded_on_the_consumer_stream(ctx: &Context) -> Result<(), Error> {
    let k = setup(ctx)?;
    let (_phys, a, b) = double_map(ctx)?;
    let out = ctx.alloc::<i32>(k.n as usize)?;
    let s1 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    let done = ctx.new_event()?;
    unsafe { s1.launch(&k.producer, k.cfg, &[&a, &k.n])? };
    s2.record_event(&done)?;
    s2.wait_event(&done)?;
    unsafe { s2.launch(&k.consumer, k.cfg, &[&b, &out, &k.n])? };
    //~^ unfenced_vmm_alias
    ctx.synchronize()
}

fn fires_synchronize_of_the_other_stream(ctx: &Context) -> Result<(), Error> {
    let k = setup(ctx)?;
    let (_phys, a, b) = double_map(ctx)?;
    let out = ctx.alloc::<i32>(k.n as usize)?;
    let s1 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    unsafe { s1.launch(&k.producer, k.cfg, &[&a, &k.n])? };
    s2.synchronize()?;
    unsafe { s2.launch(&k.consumer, k.cfg, &[&b.device_ptr(), &out, &k.n])? };
    //~^ unfenced_vmm_alias
    ctx.synchronize()
}

fn ok_same_stream(ctx: &Context) -> Result<(), Error> {
    let k = setup(ctx)?;
    let (_phys, a, b) = double_map(ctx)?;
    let out = ctx.alloc::<i32>(k.n as usize)?;
    let s = ctx.new_stream()?;
    unsafe { s.launch(&k.producer, k.cfg, &[&a, &k.n])? };
    unsafe { s.launch(&k.consumer, k.cfg, &[&b, &out, &k.n])? };
    s.synchronize()
}

fn ok_event_orders_the_streams(ctx: &Context) -> Result<(), Error> {
    let k = setup(ctx)?;
    let (_phys, a, b) = double_map(ctx)?;
    let out = ctx.alloc::<i32>(k.n as usize)?;
    let s1 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    let produced = ctx.new_event()?;
    unsafe { s1.launch(&k.producer, k.cfg, &[&a, &k.n])? };
    s1.record_event(&produced)?;
    s2.wait_event(&produced)?;
    unsafe { s2.launch(&k.consumer, k.cfg, &[&b, &out, &k.n])? };
    s2.synchronize()
}

fn ok_memset_ordered_by_event(ctx: &Context) -> Result<(), Error> {
    let (_phys, mut a, mut b) = double_map(ctx)?;
    let s1 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    let cleared = ctx.new_event()?;
    s1.memset_d8_async(&mut a, 0)?;
    s1.record_event(&cleared)?;
    s2.wait_event(&cleared)?;
    s2.memset_d32_async(&mut b, 1)?;
    ctx.synchronize()
}

fn ok_first_stream_synchronized(ctx: &Context) -> Result<(), Error> {
    let k = setup(ctx)?;
    let (_phys, a, b) = double_map(ctx)?;
    let out = ctx.alloc::<i32>(k.n as usize)?;
    let s1 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    unsafe { s1.launch(&k.producer, k.cfg, &[&a, &k.n])? };
    s1.synchronize()?;
    unsafe { s2.launch(&k.consumer, k.cfg, &[&b, &out, &k.n])? };
    s2.synchronize()
}

fn ok_event_synchronized_on_the_host(ctx: &Context) -> Result<(), Error> {
    let k = setup(ctx)?;
    let (_phys, a, b) = double_map(ctx)?;
    let out = ctx.alloc::<i32>(k.n as usize)?;
    let s1 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    let produced = ctx.new_event()?;
    unsafe { s1.launch(&k.producer, k.cfg, &[&a, &k.n])? };
    s1.record_event(&produced)?;
    produced.synchronize()?;
    unsafe { s2.launch(&k.consumer, k.cfg, &[&b, &out, &k.n])? };
    s2.synchronize()
}

fn ok_context_synchronized(ctx: &Context) -> Result<(), Error> {
    let k = setup(ctx)?;
    let (_phys, a, b) = double_map(ctx)?;
    let out = ctx.alloc::<i32>(k.n as usize)?;
    let s1 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    unsafe { s1.launch(&k.producer, k.cfg, &[&a, &k.n])? };
    ctx.synchronize()?;
    unsafe { s2.launch(&k.consumer, k.cfg, &[&b, &out, &k.n])? };
    s2.synchronize()
}

fn ok_blocking_memset(ctx: &Context) -> Result<(), Error> {
    let k = setup(ctx)?;
    let (_phys, mut a, b) = double_map(ctx)?;
    let out = ctx.alloc::<i32>(k.n as usize)?;
    let s1 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    s1.memset_d8(&mut a, 0)?;
    unsafe { s2.launch(&k.consumer, k.cfg, &[&b, &out, &k.n])? };
    s2.synchronize()
}

fn ok_two_physical_allocations_on_two_streams(ctx: &Context) -> Result<(), Error> {
    let k = setup(ctx)?;
    let (_phys_a, a, _a2) = double_map(ctx)?;
    let (_phys_b, b, _b2) = double_map(ctx)?;
    let out = ctx.alloc::<i32>(k.n as usize)?;
    let s1 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    unsafe { s1.launch(&k.producer, k.cfg, &[&a, &k.n])? };
    unsafe { s2.launch(&k.consumer, k.cfg, &[&b, &out, &k.n])? };
    ctx.synchronize()
}

fn ok_ordered_through_a_third_stream(ctx: &Context) -> Result<(), Error> {
    let k = setup(ctx)?;
    let (_phys, a, b) = double_map(ctx)?;
    let out = ctx.alloc::<i32>(k.n as usize)?;
    let s1 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    let s3 = ctx.new_stream()?;
    let (e1, e2) = (ctx.new_event()?, ctx.new_event()?);
    unsafe { s1.launch(&k.producer, k.cfg, &[&a, &k.n])? };
    s1.record_event(&e1)?;
    s2.wait_event(&e1)?;
    s2.record_event(&e2)?;
    s3.wait_event(&e2)?;
    unsafe { s3.launch(&k.consumer, k.cfg, &[&b, &out, &k.n])? };
    ctx.synchronize()
}

fn main() {}
