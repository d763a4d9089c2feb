use cuda_lint_runtime::{Context, DeviceBuffer, Error, Stream, time_ms};

fn fires_closure_given_vec(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let send = |dev: &mut DeviceBuffer<f32>, src: &[f32]| unsafe { s.copy_htod_async(dev, src) };
    let host = vec![1.0f32; 512];
    let mut dev = ctx.alloc::<f32>(512)?;
    send(&mut dev, &host)?;
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_closure_capturing_vec(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let host = vec![1.0f32; 512];
    let mut dev = ctx.alloc::<f32>(512)?;
    let mut send = || unsafe { s.copy_htod_async(&mut dev, &host) };
    //~^ pageable_async_copy
    send()?;
    s.synchronize()
}

fn fires_timed_upload_of_vec(ctx: &Context, s: &Stream) -> Result<f32, Error> {
    let host = vec![1.0f32; 1 << 20];
    let mut dev = ctx.alloc::<f32>(1 << 20)?;
    time_ms(s, || unsafe { s.copy_htod_async(&mut dev, &host) })
    //~^ pageable_async_copy
}

fn fires_for_each_over_batches(ctx: &Context, s: &Stream, batches: &[Vec<f32>]) -> Result<(), Error> {
    let mut dev = ctx.alloc::<f32>(256)?;
    batches.iter().try_for_each(|b| unsafe { s.copy_htod_async(&mut dev, b) })?;
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_move_closure_owning_vec(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let host = vec![3.0f32; 64];
    let mut dev = ctx.alloc::<f32>(64)?;
    let mut send = move || unsafe { s.copy_htod_async(&mut dev, &host) };
    //~^ pageable_async_copy
    send()?;
    s.synchronize()
}

fn ok_closure_given_pinned(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let send = |dev: &mut DeviceBuffer<f32>, src: &[f32]| unsafe { s.copy_htod_async(dev, src) };
    let host = ctx.alloc_pinned::<f32>(512)?;
    let mut dev = ctx.alloc::<f32>(512)?;
    send(&mut dev, &host)?;
    s.synchronize()
}

fn ok_closure_capturing_pinned(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let host = ctx.alloc_pinned::<f32>(512)?;
    let mut dev = ctx.alloc::<f32>(512)?;
    let mut send = || unsafe { s.copy_htod_async(&mut dev, &host) };
    send()?;
    s.synchronize()
}

fn ok_timed_upload_of_pinned(ctx: &Context, s: &Stream) -> Result<f32, Error> {
    let host = ctx.alloc_pinned::<f32>(1 << 20)?;
    let mut dev = ctx.alloc::<f32>(1 << 20)?;
    time_ms(s, || unsafe { s.copy_htod_async(&mut dev, &host) })
}

fn ok_closure_blocking_copy_of_vec(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let host = vec![1.0f32; 512];
    let mut dev = ctx.alloc::<f32>(512)?;
    let mut send = || s.copy_htod(&mut dev, &host);
    send()
}

fn ok_closure_device_to_device(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let src = ctx.alloc_zeroed::<f32>(512)?;
    let mut dst = ctx.alloc::<f32>(512)?;
    let mut mirror = || s.copy_dtod_async(&mut dst, &src);
    mirror()?;
    s.synchronize()
}

fn main() {}
