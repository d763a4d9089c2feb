//! case: a `&mut dyn Backend` chooses how samples reach the device: the staged backend copies through its pinned buffer (and waits before refilling it), the direct backend hands the caller's slice to copy_htod_async
//! expect: pageable_async_copy=1
use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

pub trait Backend {
    fn upload(&mut self, stream: &Stream, dst: &mut DeviceBuffer<f32>, src: &[f32]) -> Result<()>;
}

pub struct Staged {
    staging: PinnedBuffer<f32>,
}

pub struct Direct;

impl Backend for Staged {
    fn upload(&mut self, stream: &Stream, dst: &mut DeviceBuffer<f32>, src: &[f32]) -> Result<()> {
        stream.synchronize()?; // the previous upload from `staging` is done
        self.staging[..src.len()].copy_from_slice(src);
        // SAFETY: staging is only rewritten after the synchronize above.
        unsafe { stream.copy_htod_async(dst, &self.staging[..src.len()]) }
    }
}

impl Backend for Direct {
    fn upload(&mut self, stream: &Stream, dst: &mut DeviceBuffer<f32>, src: &[f32]) -> Result<()> {
        // SAFETY: the driver stages pageable memory before returning.
        unsafe { stream.copy_htod_async(dst, src) } // EXPECT: pageable_async_copy
    }
}

pub fn make_backend(ctx: &Context, pinned: bool, n: usize) -> Result<Box<dyn Backend>> {
    Ok(if pinned { Box::new(Staged { staging: ctx.alloc_pinned(n)? }) } else { Box::new(Direct) })
}

pub fn ingest(ctx: &Context, batches: Vec<Vec<f32>>, pinned: bool) -> Result<()> {
    let n = batches.iter().map(Vec::len).max().unwrap_or(0);
    let stream = ctx.new_stream()?;
    let mut backend = make_backend(ctx, pinned, n)?;
    let be: &mut dyn Backend = backend.as_mut();
    for batch in &batches {
        let mut dev = ctx.alloc::<f32>(batch.len())?;
        be.upload(&stream, &mut dev, batch)?;
        stream.synchronize()?;
    }
    Ok(())
}
