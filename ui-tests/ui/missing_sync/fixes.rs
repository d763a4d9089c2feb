// `cargo cuda-lint --fix` inserts the wait where it is certain to compile: the access is in
// the function's own body, the stream has a name there, and the function's error type takes
// the stream's error through `?`. The `.fixed` file next to this one is compiled again and must
// be clean. (Findings with no machine-applicable fix are in the other files.)
#![cfg_attr(cuda_lint, allow(cuda_lint::write_combined_host_read))] // readbacks into cudarc's `alloc_pinned`: another lint's subject
use std::sync::Arc;

use cuda_lint_runtime::{Context, DeviceBuffer, Error, Stream};
use cudarc::driver::{CudaContext, CudaStream, DriverError};

fn fires_runtime_read_before_synchronize(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    let first = host[0];
    //~^ missing_sync
    Ok(first)
}

fn fires_runtime_refill_in_a_loop(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let mut staging = ctx.alloc_pinned::<f32>(1024)?;
    let mut dev = ctx.alloc::<f32>(1024)?;
    for step in 0..4 {
        staging.fill(step as f32);
        //~^ missing_sync
        unsafe { s.copy_htod_async(&mut dev, &staging)? };
    }
    s.synchronize()
}

struct Downloader {
    stream: Stream,
    dev: DeviceBuffer<f32>,
}

impl Downloader {
    fn fires_read_through_a_field_stream(&self, ctx: &Context) -> Result<f32, Error> {
        let mut host = ctx.alloc_pinned::<f32>(self.dev.len())?;
        unsafe { self.stream.copy_dtoh_async(&mut host, &self.dev)? };
        let last = host[host.len() - 1];
        //~^ missing_sync
        Ok(last)
    }
}

fn fires_boxed_error_takes_the_runtime_error(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Box<dyn std::error::Error>> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    let sum: f32 = host.iter().sum();
    //~^ missing_sync
    Ok(sum)
}

fn fires_cudarc_pinned_read_with_one_stream() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let dev = stream.alloc_zeros::<f32>(1024)?;
    let mut host = unsafe { ctx.alloc_pinned::<f32>(1024)? };
    stream.memcpy_dtoh(&dev, &mut host)?;
    let first = host.as_slice()?[0];
    //~^ missing_sync
    Ok(first)
}

fn fires_cudarc_stream_given_as_an_argument(ctx: &Arc<CudaContext>, stream: &Arc<CudaStream>) -> Result<f32, DriverError> {
    let _tracking_off = unsafe { ctx.disable_event_tracking() };
    let dev = stream.alloc_zeros::<f32>(1024)?;
    let mut host = unsafe { ctx.alloc_pinned::<f32>(1024)? };
    stream.memcpy_dtoh(&dev, &mut host)?;
    let first = host.as_slice()?[0];
    //~^ missing_sync
    Ok(first)
}

fn ok_already_synchronized(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    s.synchronize()?;
    Ok(host[0])
}

fn main() {}
