//@no-rustfix
// Some findings here have no machine-applicable fix: the fixes are checked in fixes.rs.
use cuda_lint_runtime::{Context, DeviceBuffer, Error, Stream};

fn fires_double_buffer_reads_the_one_in_flight(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut front = ctx.alloc_pinned::<f32>(dev.len())?;
    let mut back = ctx.alloc_pinned::<f32>(dev.len())?;
    s.copy_dtoh(&mut front, dev)?;
    unsafe { s.copy_dtoh_async(&mut back, dev)? };
    let value = front[0] + back[0];
    //~^ missing_sync
    s.synchronize()?;
    Ok(value)
}

fn fires_reused_by_another_stream(ctx: &Context, a: &Stream, b: &Stream, dev: &DeviceBuffer<f32>) -> Result<(), Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    let mut other = ctx.alloc::<f32>(dev.len())?;
    unsafe { a.copy_dtoh_async(&mut host, dev)? };
    unsafe { b.copy_htod_async(&mut other, &host)? };
    //~^ missing_sync
    ctx.synchronize()
}

fn fires_device_buffer_overwritten_from_another_stream(ctx: &Context, a: &Stream, b: &Stream) -> Result<(), Error> {
    let mut host = ctx.alloc_pinned::<f32>(1024)?;
    let mut dev = ctx.alloc::<f32>(1024)?;
    unsafe { a.copy_dtoh_async(&mut host, &dev)? };
    b.memset_d32_async(&mut dev, 0)?;
    //~^ missing_sync
    ctx.synchronize()
}

fn fires_registered_memory(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut data = vec![0.0f32; dev.len()];
    let mut pinned = ctx.register_host(&mut data)?;
    unsafe { s.copy_dtoh_async(&mut pinned, dev)? };
    let first = pinned[0];
    //~^ missing_sync
    s.synchronize()?;
    Ok(first)
}

fn ok_double_buffer_swapped_after_sync(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut front = ctx.alloc_pinned::<f32>(dev.len())?;
    let mut back = ctx.alloc_pinned::<f32>(dev.len())?;
    let mut total = 0.0;
    for _ in 0..8 {
        unsafe { s.copy_dtoh_async(&mut back, dev)? };
        total += front[0];
        s.synchronize()?;
        std::mem::swap(&mut front, &mut back);
    }
    Ok(total)
}

fn ok_two_streams_ordered_by_event(ctx: &Context, a: &Stream, b: &Stream, dev: &DeviceBuffer<f32>) -> Result<(), Error> {
    let copied = ctx.new_event()?;
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    let mut other = ctx.alloc::<f32>(dev.len())?;
    unsafe { a.copy_dtoh_async(&mut host, dev)? };
    a.record_event(&copied)?;
    b.wait_event(&copied)?;
    unsafe { b.copy_htod_async(&mut other, &host)? };
    ctx.synchronize()
}

fn ok_same_stream_is_ordered(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<(), Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    let mut other = ctx.alloc::<f32>(dev.len())?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    unsafe { s.copy_htod_async(&mut other, &host)? };
    s.synchronize()
}

fn ok_two_streams_reading_the_same_source(ctx: &Context, a: &Stream, b: &Stream) -> Result<(), Error> {
    let host = ctx.alloc_pinned::<f32>(1024)?;
    let mut x = ctx.alloc::<f32>(1024)?;
    let mut y = ctx.alloc::<f32>(1024)?;
    unsafe { a.copy_htod_async(&mut x, &host)? };
    unsafe { b.copy_htod_async(&mut y, &host)? };
    ctx.synchronize()
}

fn ok_registered_then_synchronized(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut data = vec![0.0f32; dev.len()];
    let mut pinned = ctx.register_host(&mut data)?;
    unsafe { s.copy_dtoh_async(&mut pinned, dev)? };
    s.synchronize()?;
    Ok(pinned[0])
}

fn ok_timer_waits_for_its_stop_event(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut timer = cuda_lint_runtime::EventTimer::new(ctx)?;
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    timer.start(s)?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    timer.stop(s)?;
    let ms = timer.elapsed_ms()?;
    Ok(host[0] + ms)
}

fn main() {}
