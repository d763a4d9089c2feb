use cuda_lint_runtime::{Context, Error, PinnedFlags, Stream};

fn fires_vec_to_device(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let host = vec![1.0f32; 16];
    let mut dev = ctx.alloc::<f32>(16)?;
    unsafe { s.copy_htod_async(&mut dev, &host)? };
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_device_into_vec(ctx: &Context, s: &Stream) -> Result<Vec<f32>, Error> {
    let dev = ctx.alloc_zeroed::<f32>(1024)?;
    let mut result = vec![0.0f32; 1024];
    unsafe { s.copy_dtoh_async(&mut result, &dev)? };
    //~^ pageable_async_copy
    s.synchronize()?;
    Ok(result)
}

fn fires_stack_array_to_device(ctx: &Context, s: &Stream) -> Result<(), Error> {
    // 256 KiB on the stack (a copy under 64 KiB is latency-bound and not reported).
    let coeffs = [0.25f32; 1 << 16];
    let mut dev_coeffs = ctx.alloc::<f32>(coeffs.len())?;
    unsafe { s.copy_htod_async(&mut dev_coeffs, &coeffs)? };
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_device_into_stack_array(ctx: &Context, s: &Stream) -> Result<u32, Error> {
    let counters = ctx.alloc_zeroed::<u32>(1 << 16)?;
    let mut host_counters = [0u32; 1 << 16];
    unsafe { s.copy_dtoh_async(&mut host_counters, &counters)? };
    //~^ pageable_async_copy
    s.synchronize()?;
    Ok(host_counters.iter().sum())
}

fn fires_boxed_slice_to_device(ctx: &Context, s: &Stream, n: usize) -> Result<(), Error> {
    let weights: Box<[f32]> = vec![0.5f32; n].into_boxed_slice();
    let mut dev = ctx.alloc::<f32>(n)?;
    unsafe { s.copy_htod_async(&mut dev, &weights)? };
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_subrange_of_vec(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let frame = vec![0u8; 4096];
    let mut header = ctx.alloc::<u8>(64)?;
    unsafe { s.copy_htod_async(&mut header, &frame[..64])? };
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_string_bytes_to_device(ctx: &Context, s: &Stream, id: u32) -> Result<(), Error> {
    let tag = format!("job-{id:08}");
    let mut dev_tag = ctx.alloc::<u8>(tag.len())?;
    unsafe { s.copy_htod_async(&mut dev_tag, tag.as_bytes())? };
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_collected_vec(ctx: &Context, s: &Stream, n: usize) -> Result<(), Error> {
    let ramp: Vec<f32> = (0..n).map(|i| i as f32 / n as f32).collect();
    let mut dev = ctx.alloc::<f32>(n)?;
    unsafe { s.copy_htod_async(&mut dev, &ramp)? };
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_reusing_clone_dtoh_result(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let dev = ctx.alloc_zeroed::<f32>(256)?;
    // The first read-back allocates a Vec; later ones reuse it asynchronously.
    let mut snapshot = s.clone_dtoh(&dev)?;
    unsafe { s.copy_dtoh_async(&mut snapshot, &dev)? };
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_vec_as_mut_slice(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let dev = ctx.alloc_zeroed::<i32>(32)?;
    let mut labels = Vec::with_capacity(32);
    labels.resize(32, 0i32);
    unsafe { s.copy_dtoh_async(labels.as_mut_slice(), &dev)? };
    //~^ pageable_async_copy
    s.synchronize()
}

fn ok_pinned_to_device(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let host = ctx.alloc_pinned::<f32>(16)?;
    let mut dev = ctx.alloc::<f32>(16)?;
    unsafe { s.copy_htod_async(&mut dev, &host)? };
    s.synchronize()
}

fn ok_device_into_pinned(ctx: &Context, s: &Stream) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(1024)?;
    let mut result = ctx.alloc_pinned::<f32>(1024)?;
    unsafe { s.copy_dtoh_async(&mut result, &dev)? };
    s.synchronize()?;
    Ok(result[0])
}

fn ok_write_combined_pinned(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let flags = PinnedFlags { portable: false, device_mapped: false, write_combined: true };
    let mut staging = ctx.alloc_pinned_with_flags::<f32>(4096, flags)?;
    staging.fill(1.0);
    let mut dev = ctx.alloc::<f32>(4096)?;
    unsafe { s.copy_htod_async(&mut dev, &staging)? };
    s.synchronize()
}

fn ok_registered_vec(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let mut host = vec![1.0f32; 4096];
    let mut dev = ctx.alloc::<f32>(4096)?;
    let locked = ctx.register_host(&mut host)?;
    unsafe { s.copy_htod_async(&mut dev, &locked)? };
    s.synchronize()
}

fn ok_blocking_copy_from_vec(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let host = vec![1.0f32; 16];
    let mut dev = ctx.alloc::<f32>(16)?;
    s.copy_htod(&mut dev, &host)
}

fn ok_blocking_copy_into_vec(ctx: &Context, s: &Stream) -> Result<Vec<f32>, Error> {
    let dev = ctx.alloc_zeroed::<f32>(16)?;
    let mut host = vec![0.0f32; 16];
    s.copy_dtoh(&mut host, &dev)?;
    Ok(host)
}

fn ok_clone_round_trip(s: &Stream) -> Result<Vec<f32>, Error> {
    let input = vec![3.0f32; 128];
    let dev = s.clone_htod(&input)?;
    s.clone_dtoh(&dev)
}

fn ok_device_to_device_async(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let src = ctx.alloc_zeroed::<f32>(512)?;
    let mut dst = ctx.alloc::<f32>(512)?;
    s.copy_dtod_async(&mut dst, &src)?;
    s.synchronize()
}

fn ok_pinned_subrange(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let frame = ctx.alloc_pinned::<u8>(4096)?;
    let mut header = ctx.alloc::<u8>(64)?;
    unsafe { s.copy_htod_async(&mut header, &frame[..64])? };
    s.synchronize()
}

fn ok_stack_array_blocking(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let coeffs = [0.25f32, 0.5, 0.25, 0.0];
    let mut dev_coeffs = ctx.alloc::<f32>(coeffs.len())?;
    s.copy_htod(&mut dev_coeffs, &coeffs)
}

fn main() {}
