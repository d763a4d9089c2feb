use cuda_lint_runtime::{Context, DeviceBuffer, Error, Stream};

enum Residency {
    Host(Vec<f32>),
    Device(DeviceBuffer<f32>),
}

fn fires_pointer_chosen_by_flag(ctx: &Context, on_gpu: bool) -> Result<f32, Error> {
    let host = vec![0.0f32; 256];
    let dev = ctx.alloc_zeroed::<f32>(256)?;
    let p: *const f32 = if on_gpu { dev.device_ptr().as_raw() as *const f32 } else { host.as_ptr() };
    let x = unsafe { *p };
    //~^ host_deref_device_ptr
    Ok(x)
}

fn fires_either_device_buffer(ctx: &Context, use_a: bool) -> Result<f32, Error> {
    let a = ctx.alloc_zeroed::<f32>(64)?;
    let b = ctx.alloc_zeroed::<f32>(64)?;
    let src = if use_a { &a } else { &b };
    let p = src.device_ptr().as_raw() as *const f32;
    let x = unsafe { *p };
    //~^ host_deref_device_ptr
    Ok(x)
}

fn fires_debug_peek_only_when_verbose(ctx: &Context, s: &Stream, verbose: bool) -> Result<(), Error> {
    let dev = ctx.alloc_zeroed::<f32>(1024)?;
    s.synchronize()?;
    if verbose {
        let p = dev.device_ptr().as_raw() as *const f32;
        println!("first = {}", unsafe { *p });
        //~^ host_deref_device_ptr
    }
    Ok(())
}

fn fires_match_on_residency(r: &Residency) -> f32 {
    let p: *const f32 = match r {
        Residency::Host(v) => v.as_ptr(),
        Residency::Device(d) => d.device_ptr().as_raw() as *const f32,
    };
    unsafe { *p }
    //~^ host_deref_device_ptr
}

fn fires_write_on_error_path(ctx: &Context, ok: bool) -> Result<(), Error> {
    let status = ctx.alloc_zeroed::<u32>(1)?;
    let mut host_status = [0u32; 1];
    let p: *mut u32 = if ok { host_status.as_mut_ptr() } else { status.device_ptr().as_raw() as *mut u32 };
    unsafe { *p = 1 };
    //~^ host_deref_device_ptr
    Ok(())
}

fn ok_host_on_both_branches(ctx: &Context, s: &Stream, fresh: bool) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(256)?;
    let cached = vec![0.0f32; 256];
    let copied;
    let p: *const f32 = if fresh {
        copied = s.clone_dtoh(&dev)?;
        copied.as_ptr()
    } else {
        cached.as_ptr()
    };
    Ok(unsafe { *p })
}

fn ok_match_copies_device_side(r: &Residency, s: &Stream) -> Result<f32, Error> {
    match r {
        Residency::Host(v) => Ok(v[0]),
        Residency::Device(d) => Ok(s.clone_dtoh(d)?[0]),
    }
}

fn ok_branch_only_prints_device_address(ctx: &Context, verbose: bool) -> Result<(), Error> {
    let dev = ctx.alloc::<f32>(64)?;
    let host = vec![0.0f32; 64];
    let p: *const f32 = if verbose { dev.device_ptr().as_raw() as *const f32 } else { host.as_ptr() };
    println!("using buffer at {:p}", p);
    Ok(())
}

fn ok_branch_on_null_device_ptr(ctx: &Context, n: usize) -> Result<usize, Error> {
    let dev = ctx.alloc::<f32>(n)?;
    let p = dev.device_ptr();
    if p.is_null() { Ok(0) } else { Ok(dev.len()) }
}

fn main() {}
