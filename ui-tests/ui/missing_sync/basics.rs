//@no-rustfix
// Some findings here have no machine-applicable fix: the fixes are checked in fixes.rs.
use cuda_lint_runtime::{Context, DeviceBuffer, Error, LaunchConfig, Module, Stream};

fn fires_read_after_async_dtoh(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    let first = host[0];
    //~^ missing_sync
    s.synchronize()?;
    Ok(first)
}

fn fires_write_during_async_htod(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let mut host = ctx.alloc_pinned::<f32>(256)?;
    let mut dev = ctx.alloc::<f32>(256)?;
    unsafe { s.copy_htod_async(&mut dev, &host)? };
    host[255] = 2.0;
    //~^ missing_sync
    s.synchronize()
}

fn fires_sum_through_iterator(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    let sum: f32 = host.iter().sum();
    //~^ missing_sync
    s.synchronize()?;
    Ok(sum)
}

fn fires_printed(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<(), Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    println!("{:?}", &host[..4]);
    //~^ missing_sync
    s.synchronize()
}

// The kernel's source is not visible: what it writes is not seen, so this is
// `unverified`'s (allow by default, tests in ui/unverified/), not this lint's.
fn unseen_managed_after_launch(ctx: &Context, s: &Stream, module: &Module) -> Result<i32, Error> {
    let kernel = module.function("fill")?;
    let out = ctx.alloc_managed::<i32>(1024)?;
    let n = 1024u32;
    unsafe { s.launch(&kernel, LaunchConfig::for_num_elems(n), &[&out, &n])? };
    let last = out[1023];
    s.synchronize()?;
    Ok(last)
}

fn fires_managed_after_memset(ctx: &Context, s: &Stream) -> Result<u8, Error> {
    let mut flags = ctx.alloc_managed::<u8>(64)?;
    s.memset_d8_async(&mut flags, 1)?;
    let first = flags[0];
    //~^ missing_sync
    s.synchronize()?;
    Ok(first)
}

fn ok_synchronized_first(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    s.synchronize()?;
    Ok(host[0])
}

fn ok_context_synchronize(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    ctx.synchronize()?;
    Ok(host.iter().sum())
}

fn ok_length_is_not_the_data(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<usize, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    let n = host.len();
    s.synchronize()?;
    Ok(n)
}

fn ok_other_buffer(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut incoming = ctx.alloc_pinned::<f32>(dev.len())?;
    let mut ready = ctx.alloc_pinned::<f32>(dev.len())?;
    s.copy_dtoh(&mut ready, dev)?;
    unsafe { s.copy_dtoh_async(&mut incoming, dev)? };
    let first = ready[0];
    s.synchronize()?;
    Ok(first + incoming[0])
}

fn ok_blocking_copy_orders_the_stream(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    let mut tail = vec![0.0f32; dev.len()];
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    s.copy_dtoh(&mut tail, dev)?;
    Ok(host[0] + tail[0])
}

fn ok_write_before_enqueue(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let mut host = ctx.alloc_pinned::<f32>(256)?;
    let mut dev = ctx.alloc::<f32>(256)?;
    host.fill(3.0);
    unsafe { s.copy_htod_async(&mut dev, &host)? };
    s.synchronize()
}

fn ok_reading_a_source_in_flight(ctx: &Context, s: &Stream) -> Result<f32, Error> {
    // Host reads of memory an in-flight copy only reads are fine.
    let host = ctx.alloc_pinned::<f32>(256)?;
    let mut dev = ctx.alloc::<f32>(256)?;
    unsafe { s.copy_htod_async(&mut dev, &host)? };
    let check = host[0];
    s.synchronize()?;
    Ok(check)
}

fn ok_drop_waits(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<(), Error> {
    // Freeing pinned memory waits for the device (cuMemFreeHost): not a race.
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    drop(host);
    Ok(())
}

fn main() {}
