use cuda_lint_runtime::{Context, DeviceBuffer, DeviceRepr, Error, PinnedBuffer, Stream};

fn upload_any<T: DeviceRepr>(s: &Stream, dev: &mut DeviceBuffer<T>, host: &[T]) -> Result<(), Error> {
    unsafe { s.copy_htod_async(dev, host) }
}

fn upload_as_ref(s: &Stream, dev: &mut DeviceBuffer<f32>, host: impl AsRef<[f32]>) -> Result<(), Error> {
    unsafe { s.copy_htod_async(dev, host.as_ref()) }
}

/// Where a pipeline takes its input from.
trait HostSource {
    fn samples(&self) -> &[f32];
}

impl HostSource for Vec<f32> {
    fn samples(&self) -> &[f32] {
        self
    }
}

impl HostSource for PinnedBuffer<f32> {
    fn samples(&self) -> &[f32] {
        self
    }
}

fn stage<S: HostSource>(s: &Stream, dev: &mut DeviceBuffer<f32>, src: &S) -> Result<(), Error> {
    unsafe { s.copy_htod_async(dev, src.samples()) }
}

struct Pipeline<H> {
    input: H,
    dev: DeviceBuffer<f32>,
}

impl<H: AsRef<[f32]>> Pipeline<H> {
    fn push(&mut self, s: &Stream) -> Result<(), Error> {
        unsafe { s.copy_htod_async(&mut self.dev, self.input.as_ref()) }
    }
}

fn fires_generic_read_back_into_new_vec<T: DeviceRepr + Default + Clone>(s: &Stream, dev: &DeviceBuffer<T>) -> Result<Vec<T>, Error> {
    let mut out = vec![T::default(); dev.len()];
    unsafe { s.copy_dtoh_async(&mut out, dev)? };
    //~^ pageable_async_copy
    s.synchronize()?;
    Ok(out)
}

fn fires_generic_helper_given_f64_vec(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let host = vec![1.0f64; 256];
    let mut dev = ctx.alloc::<f64>(256)?;
    upload_any(s, &mut dev, &host)?;
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_as_ref_helper_given_vec(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let host = vec![1.0f32; 256];
    let mut dev = ctx.alloc::<f32>(256)?;
    upload_as_ref(s, &mut dev, host)?;
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_trait_source_is_vec(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let samples: Vec<f32> = vec![0.0; 4096];
    let mut dev = ctx.alloc::<f32>(4096)?;
    stage(s, &mut dev, &samples)?;
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_generic_struct_over_vec(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let mut p = Pipeline { input: vec![1.0f32; 128], dev: ctx.alloc::<f32>(128)? };
    p.push(s)?;
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_generic_array_source(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let lut = [0u16; 1 << 16];
    let mut dev = ctx.alloc::<u16>(1 << 16)?;
    upload_any(s, &mut dev, &lut)?;
    //~^ pageable_async_copy
    s.synchronize()
}

fn ok_generic_helper_given_f64_pinned(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let host = ctx.alloc_pinned::<f64>(256)?;
    let mut dev = ctx.alloc::<f64>(256)?;
    upload_any(s, &mut dev, &host)?;
    s.synchronize()
}

fn ok_as_ref_helper_given_pinned_slice(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let host = ctx.alloc_pinned::<f32>(256)?;
    let mut dev = ctx.alloc::<f32>(256)?;
    upload_as_ref(s, &mut dev, &host[..])?;
    s.synchronize()
}

fn ok_trait_source_is_pinned(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let samples = ctx.alloc_pinned::<f32>(4096)?;
    let mut dev = ctx.alloc::<f32>(4096)?;
    stage(s, &mut dev, &samples)?;
    s.synchronize()
}

fn ok_generic_struct_over_pinned(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let host = ctx.alloc_pinned::<f32>(128)?;
    let mut p = Pipeline { input: &host[..], dev: ctx.alloc::<f32>(128)? };
    p.push(s)?;
    s.synchronize()
}

fn ok_generic_helper_alone<T: DeviceRepr>(s: &Stream, dev: &mut DeviceBuffer<T>, host: &[T]) -> Result<(), Error> {
    unsafe { s.copy_htod_async(dev, host)? };
    s.synchronize()
}

fn ok_generic_blocking_read_back<T: DeviceRepr>(s: &Stream, dev: &DeviceBuffer<T>) -> Result<Vec<T>, Error> {
    s.clone_dtoh(dev)
}

fn main() {}
