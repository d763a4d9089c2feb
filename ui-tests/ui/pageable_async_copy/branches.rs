use cuda_lint_runtime::{Context, DeviceBuffer, Error, PinnedBuffer, Stream};

enum Source {
    Camera,
    Replay,
}

fn fires_pageable_fallback_on_some_paths(
    ctx: &Context,
    s: &Stream,
    use_pinned: bool,
) -> Result<(), Error> {
    let pinned = ctx.alloc_pinned::<f32>(1024)?;
    let fallback = vec![0.0f32; 1024];
    let host: &[f32] = if use_pinned { &pinned } else { &fallback };
    let mut dev = ctx.alloc::<f32>(1024)?;
    unsafe { s.copy_htod_async(&mut dev, host)? };
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_vec_on_both_branches(ctx: &Context, s: &Stream, small: bool) -> Result<(), Error> {
    let short = vec![1.0f32; 256];
    let long = vec![2.0f32; 256];
    let host = if small { &short } else { &long };
    let mut dev = ctx.alloc::<f32>(256)?;
    unsafe { s.copy_htod_async(&mut dev, host)? };
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_match_on_source(ctx: &Context, s: &Stream, src: Source) -> Result<(), Error> {
    let frame = ctx.alloc_pinned::<u8>(4096)?;
    let replay = std::fs::read("capture.bin").unwrap_or_default();
    let host: &[u8] = match src {
        Source::Camera => &frame,
        Source::Replay => &replay[..4096],
    };
    let mut dev = ctx.alloc::<u8>(4096)?;
    unsafe { s.copy_htod_async(&mut dev, host)? };
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_readback_into_optional_pinned(
    ctx: &Context,
    s: &Stream,
    pinned: &mut Option<PinnedBuffer<f32>>,
) -> Result<(), Error> {
    let dev = ctx.alloc_zeroed::<f32>(512)?;
    let mut scratch = vec![0.0f32; 512];
    let dst: &mut [f32] = match pinned.as_mut() {
        Some(p) => &mut p[..],
        None => &mut scratch,
    };
    unsafe { s.copy_dtoh_async(dst, &dev)? };
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_registered_on_one_branch(ctx: &Context, s: &Stream, big: bool) -> Result<(), Error> {
    let mut host = vec![1.0f32; 1 << 20];
    let mut dev = ctx.alloc::<f32>(1 << 20)?;
    let locked;
    let src: &[f32] = if big {
        locked = ctx.register_host(&mut host)?;
        &locked
    } else {
        &host
    };
    unsafe { s.copy_htod_async(&mut dev, src)? };
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_async_only_when_flagged(ctx: &Context, s: &Stream, overlap: bool) -> Result<(), Error> {
    let host = vec![0.5f32; 2048];
    let mut dev = ctx.alloc::<f32>(2048)?;
    if overlap {
        unsafe { s.copy_htod_async(&mut dev, &host)? };
        //~^ pageable_async_copy
    } else {
        s.copy_htod(&mut dev, &host)?;
    }
    s.synchronize()
}

fn ok_pinned_on_both_branches(ctx: &Context, s: &Stream, front: bool) -> Result<(), Error> {
    let a = ctx.alloc_pinned::<f32>(1024)?;
    let b = ctx.alloc_pinned::<f32>(1024)?;
    let host: &[f32] = if front { &a } else { &b };
    let mut dev = ctx.alloc::<f32>(1024)?;
    unsafe { s.copy_htod_async(&mut dev, host)? };
    s.synchronize()
}

fn ok_blocking_copy_on_pageable_branch(
    ctx: &Context,
    s: &Stream,
    pinned: Option<&PinnedBuffer<f32>>,
) -> Result<(), Error> {
    let mut dev = ctx.alloc::<f32>(1024)?;
    match pinned {
        Some(p) => unsafe { s.copy_htod_async(&mut dev, p)? },
        None => {
            let host = vec![0.0f32; 1024];
            s.copy_htod(&mut dev, &host)?;
        }
    }
    s.synchronize()
}

fn ok_registered_on_both_branches(ctx: &Context, s: &Stream, first: bool) -> Result<(), Error> {
    let mut a = vec![1.0f32; 1024];
    let mut b = vec![2.0f32; 1024];
    let mut dev = ctx.alloc::<f32>(1024)?;
    let locked = if first { ctx.register_host(&mut a)? } else { ctx.register_host(&mut b)? };
    unsafe { s.copy_htod_async(&mut dev, &locked)? };
    s.synchronize()
}

fn ok_device_or_pinned_source(
    ctx: &Context,
    s: &Stream,
    cached: Option<&DeviceBuffer<f32>>,
) -> Result<(), Error> {
    let mut dev = ctx.alloc::<f32>(1024)?;
    match cached {
        Some(c) => s.copy_dtod_async(&mut dev, c)?,
        None => {
            let staging = ctx.alloc_pinned::<f32>(1024)?;
            unsafe { s.copy_htod_async(&mut dev, &staging)? };
        }
    }
    s.synchronize()
}

fn ok_match_pinned_sources(ctx: &Context, s: &Stream, src: Source) -> Result<(), Error> {
    let camera = ctx.alloc_pinned::<u8>(4096)?;
    let replay = ctx.alloc_pinned::<u8>(8192)?;
    let host: &[u8] = match src {
        Source::Camera => &camera,
        Source::Replay => &replay[4096..],
    };
    let mut dev = ctx.alloc::<u8>(4096)?;
    unsafe { s.copy_htod_async(&mut dev, host)? };
    s.synchronize()
}

fn ok_readback_pageable_only_when_blocking(
    ctx: &Context,
    s: &Stream,
    pinned: &mut Option<PinnedBuffer<f32>>,
) -> Result<Vec<f32>, Error> {
    let dev = ctx.alloc_zeroed::<f32>(512)?;
    if let Some(p) = pinned.as_mut() {
        unsafe { s.copy_dtoh_async(p, &dev)? };
        s.synchronize()?;
        Ok(p.to_vec())
    } else {
        s.clone_dtoh(&dev)
    }
}

fn main() {}
