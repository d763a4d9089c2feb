use cuda_lint_runtime::{Context, Error, LaunchConfig, Stream};

const SRC: &str = r#"
extern "C" __global__ void fill(float* x, float v, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;
}
"#;

fn fires_sum_over_device_ptr(ctx: &Context, n: usize) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(n)?;
    let p = dev.device_ptr().as_raw() as *const f32;
    let mut sum = 0.0;
    for i in 0..n {
        sum += unsafe { *p.add(i) };
        //~^ host_deref_device_ptr
    }
    Ok(sum)
}

fn fires_fill_loop_writes_device(ctx: &Context, n: usize) -> Result<(), Error> {
    let dev = ctx.alloc::<u32>(n)?;
    let p = dev.device_ptr().as_raw() as *mut u32;
    for i in 0..n {
        unsafe { *p.add(i) = i as u32 };
        //~^ host_deref_device_ptr
    }
    Ok(())
}

fn fires_iterate_device_slice(ctx: &Context, n: usize) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(n)?;
    let view = unsafe { std::slice::from_raw_parts(dev.device_ptr().as_raw() as *const f32, n) };
    //~^ host_deref_device_ptr
    let mut max = f32::MIN;
    for &x in view {
        max = max.max(x);
    }
    Ok(max)
}

fn fires_pointer_walk(ctx: &Context, n: usize) -> Result<u32, Error> {
    let dev = ctx.alloc_zeroed::<u32>(n)?;
    let mut cur = dev.device_ptr().as_raw() as *const u32;
    let mut zeros = 0;
    for _ in 0..n {
        if unsafe { *cur } == 0 {
            //~^ host_deref_device_ptr
            zeros += 1;
        }
        cur = cur.wrapping_add(1);
    }
    Ok(zeros)
}

fn fires_poll_device_flag(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let flag = ctx.alloc_zeroed::<u32>(1)?;
    let p = flag.device_ptr().as_raw() as *const u32;
    while unsafe { p.read_volatile() } == 0 {
        //~^ host_deref_device_ptr
        if s.query()? {
            break;
        }
    }
    Ok(())
}

fn ok_loop_over_copied_back_data(ctx: &Context, s: &Stream, n: usize) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(n)?;
    let host = s.clone_dtoh(&dev)?;
    let p = host.as_ptr();
    let mut sum = 0.0;
    for i in 0..n {
        sum += unsafe { *p.add(i) };
    }
    Ok(sum)
}

fn ok_loop_computes_chunk_pointers_for_launch(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let module = ctx.load_cuda(SRC)?;
    let fill = module.function("fill")?;
    let dev = ctx.alloc::<f32>(4096)?;
    let chunk = 1024u32;
    for c in 0..4usize {
        let part = dev.device_ptr().offset_bytes(c * chunk as usize * 4);
        unsafe { s.launch(&fill, LaunchConfig::for_num_elems(chunk), &[&part, &(c as f32), &chunk])? };
    }
    s.synchronize()
}

fn ok_loop_collects_addresses(ctx: &Context) -> Result<Vec<u64>, Error> {
    let dev = ctx.alloc::<f32>(1024)?;
    let base = dev.device_ptr();
    let mut addrs = Vec::new();
    for i in 0..4 {
        addrs.push(base.offset_bytes(i * 1024).as_raw());
    }
    Ok(addrs)
}

fn ok_loop_over_managed_after_sync(ctx: &Context, s: &Stream) -> Result<f32, Error> {
    let module = ctx.load_cuda(SRC)?;
    let fill = module.function("fill")?;
    let managed = ctx.alloc_managed::<f32>(256)?;
    let n = 256u32;
    unsafe { s.launch(&fill, LaunchConfig::for_num_elems(n), &[&managed, &1.0f32, &n])? };
    s.synchronize()?;
    let mut sum = 0.0;
    for i in 0..managed.len() {
        sum += managed[i];
    }
    Ok(sum)
}

fn main() {}
