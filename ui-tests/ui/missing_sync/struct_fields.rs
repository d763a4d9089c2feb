//@no-rustfix
// Some findings here have no machine-applicable fix: the fixes are checked in fixes.rs.
#![cfg_attr(cuda_lint, allow(cuda_lint::uninitialized_device_read))] // other lints' subject: the test code leaks, or reads memory it never wrote
use cuda_lint_runtime::{Context, DeviceBuffer, Error, PinnedBuffer, Stream};

struct Downloader {
    stream: Stream,
    staging: PinnedBuffer<f32>,
    spare: PinnedBuffer<f32>,
    device: DeviceBuffer<f32>,
}

impl Downloader {
    fn new(ctx: &Context, n: usize) -> Result<Self, Error> {
        Ok(Downloader {
            stream: ctx.new_stream()?,
            staging: ctx.alloc_pinned(n)?,
            spare: ctx.alloc_pinned(n)?,
            device: ctx.alloc(n)?,
        })
    }

    fn start(&mut self) -> Result<(), Error> {
        unsafe { self.stream.copy_dtoh_async(&mut self.staging, &self.device) }
    }

    fn finish(&self) -> Result<(), Error> {
        self.stream.synchronize()
    }

    fn peek(&self) -> f32 {
        self.staging[0]
    }

    fn peek_spare(&self) -> f32 {
        self.spare[0]
    }

    fn fires_read_field_after_start(&mut self) -> Result<f32, Error> {
        self.start()?;
        let first = self.staging[0];
        //~^ missing_sync
        self.finish()?;
        Ok(first)
    }

    fn ok_read_other_field(&mut self) -> Result<f32, Error> {
        self.start()?;
        let first = self.spare[0];
        self.finish()?;
        Ok(first)
    }
}

fn fires_method_read_after_method_start(ctx: &Context) -> Result<f32, Error> {
    let mut d = Downloader::new(ctx, 1024)?;
    d.start()?;
    let first = d.peek();
    //~^ missing_sync
    d.finish()?;
    Ok(first)
}

fn fires_field_read_in_caller(ctx: &Context) -> Result<f32, Error> {
    let mut d = Downloader::new(ctx, 1024)?;
    d.start()?;
    let first = d.staging[0];
    //~^ missing_sync
    d.finish()?;
    Ok(first)
}

fn ok_finished_first(ctx: &Context) -> Result<f32, Error> {
    let mut d = Downloader::new(ctx, 1024)?;
    d.start()?;
    d.finish()?;
    Ok(d.peek())
}

fn ok_other_field_in_flight(ctx: &Context) -> Result<f32, Error> {
    let mut d = Downloader::new(ctx, 1024)?;
    d.start()?;
    let spare = d.peek_spare();
    d.finish()?;
    Ok(spare)
}

fn ok_synchronized_through_the_field(ctx: &Context) -> Result<f32, Error> {
    let mut d = Downloader::new(ctx, 1024)?;
    d.start()?;
    d.stream.synchronize()?;
    Ok(d.staging[0])
}

fn main() {}
