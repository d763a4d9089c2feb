//! case: cudarc async fn pipeline: upload_batch() moves a Vec batch to the device with clone_htod (pageable); download() reads into cached pinned memory on a second stream, tracked by cudarc's events
//! expect: pageable_async_copy=1
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DriverError};

pub async fn upload_batch(stream: &Arc<CudaStream>, batch: Vec<f32>) -> Result<CudaSlice<f32>, DriverError> {
    stream.clone_htod(&batch) // EXPECT: pageable_async_copy
}

pub async fn download(ctx: &Arc<CudaContext>, stream: &Arc<CudaStream>, dev: &CudaSlice<f32>) -> Result<f32, DriverError> {
    // SAFETY: written by the copy before any read. Flags 0: cached memory.
    let mut host = unsafe { ctx.alloc_pinned_with_flags::<f32>(dev.len(), 0)? };
    stream.memcpy_dtoh(dev, &mut host)?;
    Ok(host.as_slice()?.iter().sum())
}

pub async fn run(batches: Vec<Vec<f32>>) -> Result<Vec<f32>, DriverError> {
    let ctx = CudaContext::new(0)?;
    let upload_stream = ctx.new_stream()?;
    let download_stream = ctx.new_stream()?;
    let mut sums = Vec::new();
    for batch in batches {
        let dev = upload_batch(&upload_stream, batch).await?;
        sums.push(download(&ctx, &download_stream, &dev).await?);
    }
    Ok(sums)
}
