use cuda_lint_runtime::{Context, Error, Stream};

fn fires_guard_dropped_before_copy(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let mut host = vec![1.0f32; 1 << 16];
    let mut dev = ctx.alloc::<f32>(1 << 16)?;
    let locked = ctx.register_host(&mut host)?;
    let n = locked.len();
    drop(locked);
    unsafe { s.copy_htod_async(&mut dev, &host[..n])? };
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_guard_discarded(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let mut host = vec![1.0f32; 1 << 16];
    let mut dev = ctx.alloc::<f32>(1 << 16)?;
    // `let _ =` drops the guard at once: the memory is unregistered again.
    let _ = ctx.register_host(&mut host)?;
    unsafe { s.copy_htod_async(&mut dev, &host)? };
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_other_vec_than_registered(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let mut input = vec![1.0f32; 1024];
    let mut output = vec![0.0f32; 1024];
    let mut dev = ctx.alloc::<f32>(1024)?;
    let locked_in = ctx.register_host(&mut input)?;
    unsafe { s.copy_htod_async(&mut dev, &locked_in)? };
    unsafe { s.copy_dtoh_async(&mut output, &dev)? };
    //~^ pageable_async_copy
    s.synchronize()
}

fn ok_registered_through_guard(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let mut host = vec![1.0f32; 1 << 16];
    let mut dev = ctx.alloc::<f32>(1 << 16)?;
    let locked = ctx.register_host(&mut host)?;
    unsafe { s.copy_htod_async(&mut dev, &locked)? };
    s.synchronize()
}

fn ok_registered_subslice(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let mut host = vec![1.0f32; 4096];
    let mut dev = ctx.alloc::<f32>(1024)?;
    let locked = ctx.register_host(&mut host)?;
    unsafe { s.copy_htod_async(&mut dev, &locked[1024..2048])? };
    s.synchronize()
}

fn ok_registered_readback(ctx: &Context, s: &Stream) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(1024)?;
    let mut host = vec![0.0f32; 1024];
    let mut locked = ctx.register_host(&mut host)?;
    unsafe { s.copy_dtoh_async(&mut locked, &dev)? };
    s.synchronize()?;
    drop(locked);
    Ok(host.iter().sum())
}

fn ok_both_directions_registered(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let mut input = vec![1.0f32; 1024];
    let mut output = vec![0.0f32; 1024];
    let mut dev = ctx.alloc::<f32>(1024)?;
    let locked_in = ctx.register_host(&mut input)?;
    let mut locked_out = ctx.register_host(&mut output)?;
    unsafe { s.copy_htod_async(&mut dev, &locked_in)? };
    unsafe { s.copy_dtoh_async(&mut locked_out, &dev)? };
    s.synchronize()
}

fn ok_registered_stack_array(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let mut table = [0u32; 256];
    let mut dev = ctx.alloc::<u32>(256)?;
    let locked = ctx.register_host(&mut table)?;
    unsafe { s.copy_htod_async(&mut dev, &locked)? };
    s.synchronize()
}

fn main() {}
