// cudarc's copies take `&[T]`, `Vec<T>` or a `PinnedHostSlice<T>`: all but the last are
// pageable, and the driver stages them (the copy blocks the host and overlaps nothing).
use std::sync::Arc;

use cudarc::driver::result::DriverError;
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, PinnedHostSlice};

const N: usize = 1 << 20;

fn fires_clone_htod_from_a_vec() -> Result<CudaSlice<f32>, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let weights = vec![0.5f32; N];
    stream.clone_htod(&weights)
    //~^ pageable_async_copy
}

fn fires_memcpy_htod_from_a_slice_of_a_vec(stream: &Arc<CudaStream>, dev: &mut CudaSlice<f32>) -> Result<(), DriverError> {
    let batch: Vec<f32> = (0..2 * N).map(|i| i as f32).collect();
    stream.memcpy_htod(&batch[..N], dev)
    //~^ pageable_async_copy
}

fn fires_memcpy_dtoh_into_a_vec(stream: &Arc<CudaStream>, dev: &CudaSlice<f32>) -> Result<f32, DriverError> {
    let mut out = vec![0.0f32; N];
    stream.memcpy_dtoh(dev, &mut out)?;
    //~^ pageable_async_copy
    Ok(out[0])
}

fn fires_clone_dtoh_returns_a_vec(stream: &Arc<CudaStream>, dev: &CudaSlice<f32>) -> Result<Vec<f32>, DriverError> {
    stream.clone_dtoh(dev)
    //~^ pageable_async_copy
}

fn fires_array_on_the_stack(stream: &Arc<CudaStream>, dev: &mut CudaSlice<u32>) -> Result<(), DriverError> {
    let header = [1u32; 1 << 16];
    stream.memcpy_htod(&header, dev)
    //~^ pageable_async_copy
}

struct Uploader {
    stream: Arc<CudaStream>,
    staging: Vec<f32>,
    dev: CudaSlice<f32>,
}

impl Uploader {
    fn fires_push_from_a_vec_field(&mut self) -> Result<(), DriverError> {
        self.staging.fill(1.0);
        self.stream.memcpy_htod(&self.staging, &mut self.dev)
        //~^ pageable_async_copy
    }
}

fn upload(stream: &Arc<CudaStream>, host: &[f32]) -> Result<CudaSlice<f32>, DriverError> {
    stream.clone_htod(host)
}

fn fires_helper_given_a_vec() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let data = vec![1.0f32; N];
    let _dev = upload(&stream, &data)?;
    //~^ pageable_async_copy
    Ok(())
}

fn fires_every_chunk_in_a_loop(stream: &Arc<CudaStream>, dev: &mut CudaSlice<f32>) -> Result<(), DriverError> {
    let chunks: Vec<Vec<f32>> = (0..8).map(|_| vec![0.0; N]).collect();
    for chunk in &chunks {
        stream.memcpy_htod(chunk, dev)?;
        //~^ pageable_async_copy
    }
    Ok(())
}

fn ok_pinned_upload() -> Result<CudaSlice<f32>, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let mut staging = unsafe { ctx.alloc_pinned::<f32>(N)? };
    staging.as_mut_slice()?.fill(0.5);
    stream.clone_htod(&staging)
}

fn ok_pinned_download(stream: &Arc<CudaStream>, dev: &CudaSlice<f32>, host: &mut PinnedHostSlice<f32>) -> Result<(), DriverError> {
    stream.memcpy_dtoh(dev, host)?;
    stream.synchronize()
}

fn ok_device_to_device(stream: &Arc<CudaStream>, src: &CudaSlice<f32>) -> Result<CudaSlice<f32>, DriverError> {
    let mut dst = stream.alloc_zeros::<f32>(src.len())?;
    stream.memcpy_dtod(src, &mut dst)?;
    stream.clone_dtod(&dst)
}

fn ok_zeroed_on_the_device(stream: &Arc<CudaStream>) -> Result<CudaSlice<f32>, DriverError> {
    let mut dev = stream.alloc_zeros::<f32>(N)?;
    stream.memset_zeros(&mut dev)?;
    Ok(dev)
}

fn ok_unified_memory_as_the_source() -> Result<CudaSlice<f32>, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let unified = unsafe { ctx.alloc_unified::<f32>(N, true)? };
    stream.clone_htod(&unified)
}

fn ok_helper_not_given_pageable_memory() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let staging = unsafe { ctx.alloc_pinned::<f32>(N)? };
    let _dev = upload(&stream, staging.as_slice()?)?;
    Ok(())
}

struct PinnedUploader {
    stream: Arc<CudaStream>,
    staging: PinnedHostSlice<f32>,
    dev: CudaSlice<f32>,
}

impl PinnedUploader {
    fn push(&mut self) -> Result<(), DriverError> {
        self.stream.memcpy_htod(&self.staging, &mut self.dev)
    }
}

fn ok_struct_with_a_pinned_staging_buffer(up: &mut PinnedUploader) -> Result<(), DriverError> {
    up.staging.as_mut_slice()?.fill(1.0);
    up.push()
}

fn ok_pinned_chunks_in_a_loop(ctx: &Arc<CudaContext>, stream: &Arc<CudaStream>, dev: &mut CudaSlice<f32>) -> Result<(), DriverError> {
    let mut chunks = Vec::new();
    for _ in 0..4 {
        chunks.push(unsafe { ctx.alloc_pinned::<f32>(N)? });
    }
    for chunk in &chunks {
        stream.memcpy_htod(chunk, dev)?;
        stream.synchronize()?;
    }
    Ok(())
}

fn ok_length_of_a_vec_used_for_the_allocation(stream: &Arc<CudaStream>) -> Result<CudaSlice<f32>, DriverError> {
    let sizes = vec![N, 2 * N];
    stream.alloc_zeros::<f32>(sizes.iter().sum())
}

fn main() {}
