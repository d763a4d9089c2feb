// Generic functions, async functions, trait objects, const generics, macro-generated calls and
// unknown APIs: analysed without crashing, and findings inside them are still reported.
use cuda_lint_runtime::{Context, DeviceBuffer, DeviceRepr, Error, Stream};

fn fires_generic<T: DeviceRepr + Default>(ctx: &Context, s: &Stream, n: usize) -> Result<(), Error> {
    let host = vec![T::default(); n];
    let mut dev = ctx.alloc::<T>(n)?;
    unsafe { s.copy_htod_async(&mut dev, &host)? };
    //~^ pageable_async_copy
    s.synchronize()
}

async fn fires_in_async_fn(ctx: &Context, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let s = ctx.new_stream()?;
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    let first = host[0];
    //~^ missing_sync
    s.synchronize()?;
    Ok(first)
}

macro_rules! upload_async {
    ($s:expr, $dev:expr, $host:expr) => {
        unsafe { $s.copy_htod_async($dev, $host) }
    };
}

fn fires_from_macro(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let host = vec![1.0f32; 64];
    let mut dev = ctx.alloc::<f32>(64)?;
    upload_async!(s, &mut dev, &host)?;
    //~^ pageable_async_copy
    s.synchronize()
}

fn ok_const_generic<const N: usize>(ctx: &Context, s: &Stream) -> Result<[f32; N], Error> {
    let dev = ctx.alloc_zeroed::<f32>(N)?;
    let mut host = [0.0f32; N];
    s.copy_dtoh(&mut host, &dev)?;
    Ok(host)
}

trait Uploader {
    fn upload(&self, s: &Stream, dev: &mut DeviceBuffer<f32>) -> Result<(), Error>;
}

fn ok_through_trait_object(u: &dyn Uploader, s: &Stream, dev: &mut DeviceBuffer<f32>) -> Result<(), Error> {
    u.upload(s, dev)?;
    s.synchronize()
}

unsafe extern "C" {
    fn some_c_function(p: *const f32, n: usize) -> i32;
}

fn ok_unknown_ffi(ctx: &Context, s: &Stream) -> Result<i32, Error> {
    let host = ctx.alloc_pinned::<f32>(8)?;
    s.synchronize()?;
    Ok(unsafe { some_c_function(host.as_ptr(), host.len()) })
}

fn ok_recursive(ctx: &Context, s: &Stream, depth: u32) -> Result<(), Error> {
    if depth > 0 {
        ok_recursive(ctx, s, depth - 1)?;
    }
    let _dev = s.clone_htod(&[1.0f32; 4])?;
    Ok(())
}

fn main() {}
