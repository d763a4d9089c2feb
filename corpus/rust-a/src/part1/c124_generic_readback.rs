//! case: generic helpers over T: DeviceRepr that stage through pinned memory and synchronize before touching it; a trait object picks the precision
//! expect: none
use cuda_lint_runtime::{Context, DeviceBuffer, DeviceRepr, PinnedBuffer, Result, Stream};

pub fn readback<T: DeviceRepr + Copy>(stream: &Stream, dev: &DeviceBuffer<T>, staging: &mut PinnedBuffer<T>) -> Result<Vec<T>> {
    // SAFETY: `staging` is pinned; read after the synchronize.
    unsafe { stream.copy_dtoh_async(staging, dev)? };
    stream.synchronize()?;
    Ok(staging.to_vec())
}

pub fn upload<T: DeviceRepr + Copy>(stream: &Stream, data: &[T], staging: &mut PinnedBuffer<T>, dev: &mut DeviceBuffer<T>) -> Result<()> {
    staging[..data.len()].copy_from_slice(data);
    // SAFETY: `staging` outlives the copy, and is rewritten only after the synchronize.
    unsafe { stream.copy_htod_async(dev, staging)? };
    stream.synchronize()?;
    staging.fill(data[0]);
    Ok(())
}

pub trait Precision {
    fn roundtrip(&self, ctx: &Context, stream: &Stream, n: usize) -> Result<f64>;
}

pub struct Single;
pub struct Double;

impl Precision for Single {
    fn roundtrip(&self, ctx: &Context, stream: &Stream, n: usize) -> Result<f64> {
        let mut staging = ctx.alloc_pinned::<f32>(n)?;
        let mut dev = ctx.alloc::<f32>(n)?;
        upload(stream, &vec![1.5f32; n], &mut staging, &mut dev)?;
        Ok(readback(stream, &dev, &mut staging)?.iter().map(|&v| v as f64).sum())
    }
}

impl Precision for Double {
    fn roundtrip(&self, ctx: &Context, stream: &Stream, n: usize) -> Result<f64> {
        let mut staging = ctx.alloc_pinned::<f64>(n)?;
        let mut dev = ctx.alloc::<f64>(n)?;
        upload(stream, &vec![1.5f64; n], &mut staging, &mut dev)?;
        Ok(readback(stream, &dev, &mut staging)?.iter().sum())
    }
}

pub fn run(ctx: &Context, double: bool) -> Result<f64> {
    let stream = ctx.new_stream()?;
    let p: &dyn Precision = if double { &Double } else { &Single };
    p.roundtrip(ctx, &stream, 1 << 16)
}
