use cuda_lint_runtime::{Context, DeviceBuffer, Error, LaunchConfig, PinnedFlags, Stream};

const SRC: &str = r#"
extern "C" __global__ void scale(float* x, float a, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
"#;

fn fires_read_first_element(s: &Stream, input: &[f32]) -> Result<f32, Error> {
    let dev = s.clone_htod(input)?;
    s.synchronize()?;
    let p = dev.device_ptr().as_raw() as *const f32;
    let first = unsafe { *p };
    //~^ host_deref_device_ptr
    Ok(first)
}

fn fires_write_through_device_ptr(ctx: &Context) -> Result<(), Error> {
    let dev = ctx.alloc_zeroed::<f32>(64)?;
    let p = dev.device_ptr().as_raw() as *mut f32;
    unsafe { *p = 1.0 };
    //~^ host_deref_device_ptr
    Ok(())
}

fn fires_offset_bytes_then_read(ctx: &Context) -> Result<u32, Error> {
    let dev = ctx.alloc_zeroed::<u32>(256)?;
    let header = dev.device_ptr().offset_bytes(16).as_raw() as *const u32;
    let count = unsafe { *header };
    //~^ host_deref_device_ptr
    Ok(count)
}

fn fires_add_then_read(ctx: &Context) -> Result<f64, Error> {
    let dev = ctx.alloc_zeroed::<f64>(128)?;
    let base = dev.device_ptr().as_raw() as *const f64;
    let last = unsafe { *base.add(127) };
    //~^ host_deref_device_ptr
    Ok(last)
}

fn fires_slice_from_raw_parts(ctx: &Context, n: usize) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(n)?;
    let view = unsafe { std::slice::from_raw_parts(dev.device_ptr().as_raw() as *const f32, n) };
    //~^ host_deref_device_ptr
    let mid = view[n / 2];
    Ok(mid)
}

fn fires_slice_from_raw_parts_mut_then_write(ctx: &Context, n: usize) -> Result<(), Error> {
    let dev = ctx.alloc::<i32>(n)?;
    let p = dev.device_ptr().as_raw() as *mut i32;
    let out = unsafe { std::slice::from_raw_parts_mut(p, n) };
    //~^ host_deref_device_ptr
    out[0] = -1;
    Ok(())
}

fn fires_ptr_read(ctx: &Context) -> Result<u64, Error> {
    let dev = ctx.alloc_zeroed::<u64>(8)?;
    let p = dev.device_ptr().as_raw() as *const u64;
    let v = unsafe { std::ptr::read(p) };
    //~^ host_deref_device_ptr
    Ok(v)
}

fn fires_read_volatile(ctx: &Context) -> Result<u32, Error> {
    let flag = ctx.alloc_zeroed::<u32>(1)?;
    let p = flag.device_ptr().as_raw() as *const u32;
    let done = unsafe { p.read_volatile() };
    //~^ host_deref_device_ptr
    Ok(done)
}

fn fires_copy_nonoverlapping_from_device(ctx: &Context) -> Result<Vec<f32>, Error> {
    let dev = ctx.alloc_zeroed::<f32>(32)?;
    let mut host = vec![0.0f32; 32];
    unsafe { std::ptr::copy_nonoverlapping(dev.device_ptr().as_raw() as *const f32, host.as_mut_ptr(), 32) };
    //~^ host_deref_device_ptr
    Ok(host)
}

fn fires_ptr_write(ctx: &Context) -> Result<(), Error> {
    let dev = ctx.alloc::<u32>(4)?;
    let p = dev.device_ptr().as_raw() as *mut u32;
    unsafe { std::ptr::write(p, 7) };
    //~^ host_deref_device_ptr
    Ok(())
}

fn fires_into_raw_then_read(ctx: &Context) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(16)?;
    let raw = dev.into_raw();
    let x = unsafe { *(raw.as_raw() as *const f32) };
    //~^ host_deref_device_ptr
    Ok(x)
}

fn fires_cast_to_reference(ctx: &Context) -> Result<u8, Error> {
    let dev = ctx.alloc_zeroed::<u8>(16)?;
    let r: &u8 = unsafe { &*(dev.device_ptr().as_raw() as *const u8) };
    //~^ host_deref_device_ptr
    let b = *r;
    Ok(b)
}

fn ok_vec_ptr_deref() -> f32 {
    let host = vec![1.0f32; 16];
    let p = host.as_ptr();
    unsafe { *p.add(3) }
}

fn ok_pinned_ptr_deref(ctx: &Context) -> Result<f32, Error> {
    let mut pinned = ctx.alloc_pinned::<f32>(16)?;
    let p = pinned.as_mut_ptr();
    unsafe { *p = 2.0 };
    Ok(unsafe { *p })
}

fn ok_mapped_device_ptr_deref(ctx: &Context) -> Result<f32, Error> {
    let flags = PinnedFlags { portable: false, device_mapped: true, write_combined: false };
    let mapped = ctx.alloc_pinned_with_flags::<f32>(16, flags)?;
    let p = mapped.mapped_device_ptr()?.as_raw() as *const f32;
    Ok(unsafe { *p })
}

fn ok_managed_index_after_sync(ctx: &Context, s: &Stream) -> Result<f32, Error> {
    let module = ctx.load_cuda(SRC)?;
    let scale = module.function("scale")?;
    let mut data = ctx.alloc_managed::<f32>(1024)?;
    data.fill(1.0);
    let n = 1024u32;
    unsafe { s.launch(&scale, LaunchConfig::for_num_elems(n), &[&data, &2.0f32, &n])? };
    s.synchronize()?;
    Ok(data[0] + data[1023])
}

fn ok_print_device_address(ctx: &Context) -> Result<(), Error> {
    let dev = ctx.alloc::<f32>(64)?;
    let addr = dev.device_ptr().as_raw();
    println!("buffer at {addr:#x}, {} bytes", dev.num_bytes());
    println!("{:?}", dev.device_ptr());
    Ok(())
}

fn ok_compare_device_pointers(ctx: &Context) -> Result<bool, Error> {
    let a = ctx.alloc::<f32>(64)?;
    let b = ctx.alloc::<f32>(64)?;
    let pa = a.device_ptr().as_raw() as *const f32;
    let pb = b.device_ptr().as_raw() as *const f32;
    Ok(pa == pb || a.device_ptr() == b.device_ptr() || pa.is_null())
}

fn ok_offset_without_deref(ctx: &Context) -> Result<u64, Error> {
    let dev = ctx.alloc::<f32>(256)?;
    let p = dev.device_ptr().as_raw() as *const f32;
    let tail = p.wrapping_add(128);
    Ok(tail as u64 - p as u64)
}

fn ok_launch_with_device_ptr(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let module = ctx.load_cuda(SRC)?;
    let scale = module.function("scale")?;
    let dev = ctx.alloc_zeroed::<f32>(1024)?;
    let second_half = dev.device_ptr().offset_bytes(512 * 4);
    let n = 512u32;
    unsafe { s.launch(&scale, LaunchConfig::for_num_elems(n), &[&second_half, &0.5f32, &n])? };
    s.synchronize()
}

fn ok_device_buffer_from_raw_parts(ctx: &Context) -> Result<usize, Error> {
    let dev = ctx.alloc::<f32>(64)?;
    let raw = dev.into_raw();
    let again: DeviceBuffer<f32> = unsafe { DeviceBuffer::from_raw_parts(ctx, raw, 64) };
    Ok(again.len())
}

fn ok_debug_format_device_buffer(ctx: &Context) -> Result<String, Error> {
    let dev = ctx.alloc::<f32>(64)?;
    let r = &dev;
    Ok(format!("{:?} / {:?}", r, dev.device_ptr()))
}

fn ok_copy_back_then_read(s: &Stream, input: &[f32]) -> Result<f32, Error> {
    let dev = s.clone_htod(input)?;
    let host = s.clone_dtoh(&dev)?;
    Ok(host[0])
}

fn ok_null_check_only(ctx: &Context) -> Result<bool, Error> {
    let dev = ctx.alloc::<f32>(0)?;
    let p = dev.device_ptr().as_raw() as *const f32;
    Ok(p.is_null() && dev.device_ptr().is_null())
}

fn main() {}
