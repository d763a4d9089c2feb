use cuda_lint_runtime::{Context, DeviceBuffer, Error, Stream};

/// Uploads whatever host memory it is given: analysed alone, `host` is of unknown kind.
fn upload(s: &Stream, dev: &mut DeviceBuffer<f32>, host: &[f32]) -> Result<(), Error> {
    unsafe { s.copy_htod_async(dev, host) }
}

/// Reads back into whatever host memory it is given.
fn download(s: &Stream, host: &mut [f32], dev: &DeviceBuffer<f32>) -> Result<(), Error> {
    unsafe { s.copy_dtoh_async(host, dev) }
}

/// Two levels: a batch helper that calls `upload`.
fn upload_batch(s: &Stream, devs: &mut [DeviceBuffer<f32>], host: &[f32], width: usize) -> Result<(), Error> {
    for (i, dev) in devs.iter_mut().enumerate() {
        upload(s, dev, &host[i * width..(i + 1) * width])?;
    }
    Ok(())
}

/// Host input built by plain Rust code that knows nothing of CUDA.
fn make_gaussian_kernel(radius: usize) -> Vec<f32> {
    let n = 2 * radius + 1;
    (0..n).map(|i| (-((i as f32 - radius as f32).powi(2)) / 8.0).exp()).collect()
}

fn ok_helper_alone_with_slice_param(s: &Stream, dev: &mut DeviceBuffer<f32>, host: &[f32]) -> Result<(), Error> {
    unsafe { s.copy_htod_async(dev, host)? };
    s.synchronize()
}

fn fires_helper_given_vec(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let host = vec![1.0f32; 1024];
    let mut dev = ctx.alloc::<f32>(1024)?;
    upload(s, &mut dev, &host)?;
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_download_helper_into_vec(ctx: &Context, s: &Stream) -> Result<Vec<f32>, Error> {
    let dev = ctx.alloc_zeroed::<f32>(1024)?;
    let mut host = vec![0.0f32; 1024];
    download(s, &mut host, &dev)?;
    //~^ pageable_async_copy
    s.synchronize()?;
    Ok(host)
}

fn fires_two_levels_of_helpers(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let host = vec![1.0f32; 4 * 256];
    let mut devs = vec![ctx.alloc::<f32>(256)?, ctx.alloc::<f32>(256)?, ctx.alloc::<f32>(256)?, ctx.alloc::<f32>(256)?];
    upload_batch(s, &mut devs, &host, 256)?;
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_vec_from_plain_rust_helper(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let weights = make_gaussian_kernel(4);
    let mut dev = ctx.alloc::<f32>(weights.len())?;
    unsafe { s.copy_htod_async(&mut dev, &weights)? };
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_helper_taking_vec_ref(s: &Stream, dev: &mut DeviceBuffer<f32>, host: &Vec<f32>) -> Result<(), Error> {
    unsafe { s.copy_htod_async(dev, host) }
    //~^ pageable_async_copy
}

struct Uploader<'a> {
    stream: &'a Stream,
}

impl Uploader<'_> {
    fn send(&self, dev: &mut DeviceBuffer<f32>, host: &[f32]) -> Result<(), Error> {
        unsafe { self.stream.copy_htod_async(dev, host) }
    }
}

fn fires_method_helper_given_vec(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let up = Uploader { stream: s };
    let host = vec![1.0f32; 64];
    let mut dev = ctx.alloc::<f32>(64)?;
    up.send(&mut dev, &host)?;
    //~^ pageable_async_copy
    s.synchronize()
}

fn ok_helper_given_pinned(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let host = ctx.alloc_pinned::<f32>(1024)?;
    let mut dev = ctx.alloc::<f32>(1024)?;
    upload(s, &mut dev, &host)?;
    s.synchronize()
}

fn ok_download_helper_into_pinned(ctx: &Context, s: &Stream) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(1024)?;
    let mut host = ctx.alloc_pinned::<f32>(1024)?;
    download(s, &mut host, &dev)?;
    s.synchronize()?;
    Ok(host[0])
}

fn ok_two_levels_of_helpers_pinned(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let host = ctx.alloc_pinned::<f32>(4 * 256)?;
    let mut devs = vec![ctx.alloc::<f32>(256)?, ctx.alloc::<f32>(256)?, ctx.alloc::<f32>(256)?, ctx.alloc::<f32>(256)?];
    upload_batch(s, &mut devs, &host, 256)?;
    s.synchronize()
}

fn ok_plain_rust_helper_then_blocking(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let weights = make_gaussian_kernel(4);
    let mut dev = ctx.alloc::<f32>(weights.len())?;
    s.copy_htod(&mut dev, &weights)
}

fn ok_method_helper_given_registered(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let up = Uploader { stream: s };
    let mut host = vec![1.0f32; 64];
    let locked = ctx.register_host(&mut host)?;
    let mut dev = ctx.alloc::<f32>(64)?;
    up.send(&mut dev, &locked)?;
    s.synchronize()
}

fn main() {}
