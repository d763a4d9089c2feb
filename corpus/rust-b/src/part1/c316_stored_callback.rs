//! case: a frame grabber stores an `on_frame` closure in a field and calls it on the pinned frame before the readback has finished
//! expect: missing_sync=1
use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

pub struct Grabber {
    stream: Stream,
    frame: PinnedBuffer<u16>,
    on_frame: Box<dyn FnMut(&[u16]) + Send>,
}

impl Grabber {
    pub fn new(ctx: &Context, pixels: usize, on_frame: impl FnMut(&[u16]) + Send + 'static) -> Result<Self> {
        Ok(Self { stream: ctx.new_stream()?, frame: ctx.alloc_pinned(pixels)?, on_frame: Box::new(on_frame) })
    }

    pub fn grab(&mut self, sensor: &DeviceBuffer<u16>) -> Result<()> {
        // SAFETY: `frame` is owned by `self` and outlives the copy.
        unsafe { self.stream.copy_dtoh_async(&mut self.frame, sensor)? };
        // The callback reads the frame now; the synchronize comes after it.
        (self.on_frame)(&self.frame); // EXPECT: missing_sync
        self.stream.synchronize()
    }
}

pub fn exposure_meter(ctx: &Context, sensor: &DeviceBuffer<u16>) -> Result<()> {
    let mut g = Grabber::new(ctx, sensor.len(), |px: &[u16]| {
        let mean = px.iter().map(|&p| p as u64).sum::<u64>() / px.len().max(1) as u64;
        println!("mean level {mean}");
    })?;
    g.grab(sensor)
}
