use cuda_lint_runtime::{Context, DeviceBuffer, DevicePtr, Error, LaunchConfig, Stream};

/// Reads through whatever pointer it is given: alone, `p` is of unknown kind.
unsafe fn ok_read_first(p: *const f32) -> f32 {
    unsafe { *p }
}

/// Sums `n` values behind `p`.
unsafe fn sum_n(p: *const f32, n: usize) -> f32 {
    let mut s = 0.0;
    for i in 0..n {
        s += unsafe { *p.add(i) };
    }
    s
}

/// Two levels: the mean of the values behind `p`.
unsafe fn mean_n(p: *const f32, n: usize) -> f32 {
    unsafe { sum_n(p, n) / n as f32 }
}

/// A `DevicePtr` is always device memory: this helper is wrong whoever calls it.
fn fires_peek_device_ptr(p: DevicePtr) -> u32 {
    unsafe { *(p.as_raw() as *const u32) }
    //~^ host_deref_device_ptr
}

/// Hands out the device pointer of a buffer as a host-typed pointer.
fn raw_f32(dev: &DeviceBuffer<f32>) -> *const f32 {
    dev.device_ptr().as_raw() as *const f32
}

/// Makes a slice of whatever pointer it is given.
unsafe fn view<'a>(p: *const f32, n: usize) -> &'a [f32] {
    unsafe { std::slice::from_raw_parts(p, n) }
}

fn describe(p: DevicePtr, len: usize) -> String {
    format!("{p} ({len} elements)")
}

fn fires_helper_given_device_ptr(ctx: &Context) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(16)?;
    let x = unsafe { ok_read_first(dev.device_ptr().as_raw() as *const f32) };
    //~^ host_deref_device_ptr
    Ok(x)
}

fn fires_sum_helper_given_device_ptr(ctx: &Context) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(256)?;
    let p = dev.device_ptr().as_raw() as *const f32;
    let total = unsafe { sum_n(p, 256) };
    //~^ host_deref_device_ptr
    Ok(total)
}

fn fires_two_levels_of_helpers(ctx: &Context) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(256)?;
    let p = dev.device_ptr().as_raw() as *const f32;
    let m = unsafe { mean_n(p, 256) };
    //~^ host_deref_device_ptr
    Ok(m)
}

/// Not a case of its own: the helper is flagged where it dereferences, once, not again here.
fn calls_flagged_helper(ctx: &Context) -> Result<u32, Error> {
    let counters = ctx.alloc_zeroed::<u32>(4)?;
    let c = fires_peek_device_ptr(counters.device_ptr());
    Ok(c)
}

fn fires_deref_pointer_from_helper(ctx: &Context) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(8)?;
    let p = raw_f32(&dev);
    let x = unsafe { *p.add(1) };
    //~^ host_deref_device_ptr
    Ok(x)
}

fn fires_view_helper_then_index(ctx: &Context) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(64)?;
    let v = unsafe { view(dev.device_ptr().as_raw() as *const f32, 64) };
    //~^ host_deref_device_ptr
    Ok(v[63])
}

fn ok_helper_given_host_ptr() -> f32 {
    let host = vec![1.5f32; 16];
    unsafe { ok_read_first(host.as_ptr()) }
}

fn ok_sum_helper_given_pinned(ctx: &Context) -> Result<f32, Error> {
    let pinned = ctx.alloc_pinned::<f32>(256)?;
    Ok(unsafe { mean_n(pinned.as_ptr(), 256) })
}

fn ok_view_helper_given_copied_back_data(ctx: &Context, s: &Stream) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(64)?;
    let host = s.clone_dtoh(&dev)?;
    let v = unsafe { view(host.as_ptr(), 64) };
    Ok(v[63])
}

fn ok_helper_describes_device_ptr(ctx: &Context) -> Result<String, Error> {
    let dev = ctx.alloc::<f32>(64)?;
    Ok(describe(dev.device_ptr(), dev.len()))
}

fn ok_pointer_helper_result_only_compared(ctx: &Context) -> Result<bool, Error> {
    let a = ctx.alloc::<f32>(8)?;
    let b = ctx.alloc::<f32>(8)?;
    Ok(raw_f32(&a) != raw_f32(&b))
}

fn ok_helper_launches_with_device_ptr(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let module = ctx.load_cuda("extern \"C\" __global__ void zero(float* x) { x[threadIdx.x] = 0.0f; }")?;
    let zero = module.function("zero")?;
    let dev = ctx.alloc::<f32>(32)?;
    let launch = |p: DevicePtr| unsafe { s.launch(&zero, LaunchConfig { grid: (1, 1, 1), block: (32, 1, 1), shared_mem_bytes: 0 }, &[&p]) };
    launch(dev.device_ptr())?;
    s.synchronize()
}

fn main() {}
