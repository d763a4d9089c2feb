use cuda_lint_runtime::{Context, DevicePtr, Error, LaunchConfig, Stream};

fn fires_closure_reads_captured_pointer(ctx: &Context) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(64)?;
    let p = dev.device_ptr().as_raw() as *const f32;
    let at = |i: usize| unsafe { *p.add(i) };
    let x = at(5);
    //~^ host_deref_device_ptr
    Ok(x)
}

fn fires_closure_given_device_pointer(ctx: &Context) -> Result<u32, Error> {
    let dev = ctx.alloc_zeroed::<u32>(64)?;
    let read = |q: *const u32| unsafe { *q };
    let v = read(dev.device_ptr().as_raw() as *const u32);
    //~^ host_deref_device_ptr
    Ok(v)
}

fn fires_closure_capturing_device_ptr_value(ctx: &Context) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(64)?;
    let dp: DevicePtr = dev.device_ptr();
    let first = || unsafe { *(dp.as_raw() as *const f32) };
    //~^ host_deref_device_ptr
    Ok(first())
}

fn fires_map_closure_over_indices(ctx: &Context, n: usize) -> Result<Vec<f32>, Error> {
    let dev = ctx.alloc_zeroed::<f32>(n)?;
    let p = dev.device_ptr().as_raw() as *const f32;
    let values = (0..n).map(|i| unsafe { *p.add(i) }).collect();
    //~^ host_deref_device_ptr
    Ok(values)
}

fn fires_closure_writes_through_captured_pointer(ctx: &Context) -> Result<(), Error> {
    let dev = ctx.alloc::<f32>(8)?;
    let p = dev.device_ptr().as_raw() as *mut f32;
    let mut set = |i: usize, v: f32| unsafe { *p.add(i) = v };
    set(0, 1.0);
    //~^ host_deref_device_ptr
    Ok(())
}

fn ok_closure_reads_host_pointer() -> f32 {
    let host = vec![2.0f32; 8];
    let p = host.as_ptr();
    let at = |i: usize| unsafe { *p.add(i) };
    at(3)
}

fn ok_closure_launches_with_device_ptr(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let module = ctx.load_cuda("extern \"C\" __global__ void inc(float* x) { x[threadIdx.x] += 1.0f; }")?;
    let inc = module.function("inc")?;
    let dev = ctx.alloc_zeroed::<f32>(32)?;
    let dp = dev.device_ptr();
    let run = || unsafe {
        s.launch(&inc, LaunchConfig { grid: (1, 1, 1), block: (32, 1, 1), shared_mem_bytes: 0 }, &[&dp])
    };
    run()?;
    s.synchronize()
}

fn ok_closure_prints_device_address(ctx: &Context) -> Result<(), Error> {
    let dev = ctx.alloc::<f32>(32)?;
    let show = |label: &str| println!("{label}: {:#x}", dev.device_ptr().as_raw());
    show("weights");
    Ok(())
}

fn ok_closure_reads_after_copy_back(ctx: &Context, s: &Stream) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(32)?;
    let fetch = || s.clone_dtoh(&dev);
    let host = fetch()?;
    Ok(host[0])
}

/// A scratch block kept in an `Option`: its device address and its size.
struct Scratch {
    ptr: u64,
    bytes: usize,
}

/// `Option::filter` gives its closure a reference to the value: `s.bytes` reads the host struct.
fn ok_option_filter_reads_the_struct_holding_a_device_address(ctx: &Context, want: usize) -> Result<u64, Error> {
    let dev = ctx.alloc_zeroed::<u8>(256)?;
    let scratch = Some(Scratch { ptr: dev.device_ptr().as_raw(), bytes: 256 });
    match scratch.as_ref().filter(|s| s.bytes >= want) {
        Some(s) => Ok(s.ptr),
        None => Ok(0),
    }
}

/// ... while dereferencing the address it holds reads device memory.
fn fires_option_filter_dereferences_the_device_address(ctx: &Context) -> Result<bool, Error> {
    let dev = ctx.alloc_zeroed::<f32>(64)?;
    let scratch = Some(Scratch { ptr: dev.device_ptr().as_raw(), bytes: 256 });
    let nonzero = scratch.as_ref().filter(|s| unsafe { *(s.ptr as *const f32) } != 0.0).is_some();
    //~^ host_deref_device_ptr
    Ok(nonzero)
}

fn main() {}
