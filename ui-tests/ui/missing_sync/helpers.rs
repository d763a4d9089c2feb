//@no-rustfix
// Some findings here have no machine-applicable fix: the fixes are checked in fixes.rs.
use cuda_lint_runtime::{Context, DeviceBuffer, Error, PinnedBuffer, Stream};

/// Starts the download and returns at once.
fn start_download(s: &Stream, host: &mut [f32], dev: &DeviceBuffer<f32>) -> Result<(), Error> {
    unsafe { s.copy_dtoh_async(host, dev) }
}

fn average(values: &[f32]) -> f32 {
    values.iter().sum::<f32>() / values.len() as f32
}

fn wait(s: &Stream) -> Result<(), Error> {
    s.synchronize()
}

fn describe(values: &PinnedBuffer<f32>) -> String {
    format!("{} values", values.len())
}

fn fires_copy_in_helper_read_in_caller(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    start_download(s, &mut host, dev)?;
    let first = host[0];
    //~^ missing_sync
    s.synchronize()?;
    Ok(first)
}

fn fires_read_in_helper(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    let mean = average(&host);
    //~^ missing_sync
    s.synchronize()?;
    Ok(mean)
}

fn fires_both_in_helpers(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    start_download(s, &mut host, dev)?;
    let mean = average(&host);
    //~^ missing_sync
    wait(s)?;
    Ok(mean)
}

fn ok_helper_synchronizes(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    start_download(s, &mut host, dev)?;
    wait(s)?;
    Ok(average(&host))
}

fn ok_helper_only_reads_the_length(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<String, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    let text = describe(&host);
    s.synchronize()?;
    Ok(text)
}

fn ok_helper_alone(s: &Stream, host: &mut [f32], dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    // Alone, `host` could be pageable (the copy then completes before returning): not flagged
    // here; callers that pass pinned memory are.
    unsafe { s.copy_dtoh_async(host, dev)? };
    Ok(host[0])
}

#[cfg_attr(cuda_lint, allow(cuda_lint::pageable_async_copy))]
fn ok_helper_given_pageable_memory(s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut host = vec![0.0f32; dev.len()];
    start_download(s, &mut host, dev)?;
    Ok(average(&host))
}

fn main() {}
