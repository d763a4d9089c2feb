//! case: an async fn pipeline: download() enqueues a readback into pinned memory, the verbose branch of pipeline() logs an element before wait().await synchronizes
//! expect: missing_sync=1
use cuda_lint_runtime::{DeviceBuffer, PinnedBuffer, Result, Stream};

pub async fn download(stream: &Stream, dev: &DeviceBuffer<f32>, host: &mut PinnedBuffer<f32>) -> Result<()> {
    // SAFETY: the caller reads `host` only after `wait`.
    unsafe { stream.copy_dtoh_async(host, dev) }
}

pub async fn wait(stream: &Stream) -> Result<()> {
    stream.synchronize()
}

pub async fn pipeline(stream: &Stream, dev: &DeviceBuffer<f32>, host: &mut PinnedBuffer<f32>, verbose: bool) -> Result<f32> {
    download(stream, dev, host).await?;
    if verbose {
        println!("first sample: {}", host[0]); // EXPECT: missing_sync
    }
    wait(stream).await?;
    Ok(host.iter().sum::<f32>() / host.len() as f32)
}

/// Near-miss: the same stages, awaited in order.
pub async fn pipeline_quiet(stream: &Stream, dev: &DeviceBuffer<f32>, host: &mut PinnedBuffer<f32>) -> Result<f32> {
    download(stream, dev, host).await?;
    wait(stream).await?;
    Ok(host.iter().copied().fold(f32::MIN, f32::max))
}
