//@no-rustfix
// Some findings here have no machine-applicable fix: the fixes are checked in fixes.rs.
use cuda_lint_runtime::{Context, DeviceBuffer, Error, Stream};

fn fires_closure_reads(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    let first = |buf: &[f32]| buf[0];
    let value = first(&host);
    //~^ missing_sync
    s.synchronize()?;
    Ok(value)
}

fn fires_closure_capturing(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    let total = || host.iter().sum::<f32>();
    let value = total();
    //~^ missing_sync
    s.synchronize()?;
    Ok(value)
}

fn fires_inside_closure_body(ctx: &Context, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let s = ctx.new_stream()?;
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    let mut run = || -> Result<f32, Error> {
        unsafe { s.copy_dtoh_async(&mut host, dev)? };
        let first = host[0];
        //~^ missing_sync
        s.synchronize()?;
        Ok(first)
    };
    run()
}

fn ok_closure_synchronizes(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    let wait = || s.synchronize();
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    wait()?;
    Ok(host[0])
}

fn ok_closure_called_after_sync(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    s.synchronize()?;
    let total = || host.iter().sum::<f32>();
    Ok(total())
}

fn main() {}
