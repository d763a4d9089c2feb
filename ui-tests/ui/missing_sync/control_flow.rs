use cuda_lint_runtime::{Context, DeviceBuffer, Error, Stream};

fn fires_sync_on_one_branch(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>, wait: bool) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    if wait {
        s.synchronize()?;
    }
    let first = host[0];
    //~^ missing_sync
    s.synchronize()?;
    Ok(first)
}

fn fires_early_return(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>, quick: bool) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    if quick {
        return Ok(host[0]);
        //~^ missing_sync
    }
    s.synchronize()?;
    Ok(host[1])
}

fn fires_loop_carried(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    let mut total = 0.0;
    for _ in 0..4 {
        total += host[0];
        //~^ missing_sync
        unsafe { s.copy_dtoh_async(&mut host, dev)? };
    }
    s.synchronize()?;
    Ok(total)
}

fn fires_wrong_stream(ctx: &Context, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let (copy, other) = (ctx.new_stream()?, ctx.new_stream()?);
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { copy.copy_dtoh_async(&mut host, dev)? };
    other.synchronize()?;
    let first = host[0];
    //~^ missing_sync
    copy.synchronize()?;
    Ok(first)
}

// Two streams the caller gives may be one stream (the same `&Stream` twice): waiting for
// `other` may wait for the copy. An unknown is no evidence.
fn ok_streams_given_by_the_caller_may_be_one(ctx: &Context, copy: &Stream, other: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { copy.copy_dtoh_async(&mut host, dev)? };
    other.synchronize()?;
    let first = host[0];
    copy.synchronize()?;
    Ok(first)
}

fn fires_event_recorded_too_early(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let done = ctx.new_event()?;
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    s.record_event(&done)?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    done.synchronize()?;
    let first = host[0];
    //~^ missing_sync
    s.synchronize()?;
    Ok(first)
}

fn fires_stream_wait_does_not_wait_the_host(ctx: &Context, a: &Stream, b: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let copied = ctx.new_event()?;
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { a.copy_dtoh_async(&mut host, dev)? };
    a.record_event(&copied)?;
    b.wait_event(&copied)?;
    let first = host[0];
    //~^ missing_sync
    b.synchronize()?;
    Ok(first)
}

fn ok_sync_on_both_branches(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>, fast: bool) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    if fast {
        s.synchronize()?;
    } else {
        ctx.synchronize()?;
    }
    Ok(host[0])
}

fn ok_early_return_after_sync(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>, quick: bool) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    s.synchronize()?;
    if quick {
        return Ok(host[0]);
    }
    Ok(host[1])
}

fn ok_loop_synchronized_each_time(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    let mut total = 0.0;
    for _ in 0..4 {
        unsafe { s.copy_dtoh_async(&mut host, dev)? };
        s.synchronize()?;
        total += host[0];
    }
    Ok(total)
}

fn ok_event_recorded_after(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let done = ctx.new_event()?;
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    s.record_event(&done)?;
    done.synchronize()?;
    Ok(host[0])
}

fn ok_waiting_stream_synchronized(ctx: &Context, a: &Stream, b: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    // `b` waits for the copy on `a`; synchronizing `b` therefore waits for the copy too.
    let copied = ctx.new_event()?;
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { a.copy_dtoh_async(&mut host, dev)? };
    a.record_event(&copied)?;
    b.wait_event(&copied)?;
    b.synchronize()?;
    Ok(host[0])
}

fn ok_polled_until_done_then_synchronized(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    let mut polls = 0;
    while !s.query()? {
        polls += 1;
    }
    s.synchronize()?;
    Ok(host[0] + polls as f32)
}

fn main() {}
