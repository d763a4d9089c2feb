//! case: chunked readback with iterator adapters: one version reduces the chunks after synchronizing, the other reduces each chunk inside the map closure right after enqueueing its copy
//! expect: missing_sync=1
use cuda_lint_runtime::{DeviceBuffer, PinnedBuffer, Result, Stream};

/// Near-miss: all copies are enqueued by the closure, the reduction runs after the sync.
pub fn chunk_sums(stream: &Stream, parts: &[DeviceBuffer<f32>], host: &mut PinnedBuffer<f32>) -> Result<Vec<f32>> {
    let chunk = parts[0].len();
    host.chunks_mut(chunk)
        .zip(parts)
        // SAFETY: each chunk of pinned `host` is read only after the synchronize below.
        .try_for_each(|(dst, src)| unsafe { stream.copy_dtoh_async(dst, src) })?;
    stream.synchronize()?;
    Ok(host.chunks(chunk).map(|c| c.iter().sum()).collect())
}

/// Misuse: the reduction of a chunk is in the same closure as its copy.
pub fn chunk_sums_eager(stream: &Stream, parts: &[DeviceBuffer<f32>], host: &mut PinnedBuffer<f32>) -> Result<Vec<f32>> {
    let chunk = parts[0].len();
    let sums = host
        .chunks_mut(chunk)
        .zip(parts)
        .map(|(dst, src)| {
            // SAFETY: as above, but see the read below.
            unsafe { stream.copy_dtoh_async(dst, src)? };
            Ok(dst.iter().sum::<f32>()) // EXPECT: missing_sync
        })
        .collect::<Result<Vec<f32>>>()?;
    stream.synchronize()?;
    Ok(sums)
}
