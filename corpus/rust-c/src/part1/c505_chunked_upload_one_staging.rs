//! case: a chunked uploader refills its single pinned staging buffer on every iteration while the previous chunk's async copy from it may still be running (no wait between chunks, only one synchronize at the end)
//! expect: missing_sync=1
use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Stream};

const CHUNK: usize = 1 << 20; // 4 MiB of f32

pub struct ChunkedUploader {
    ctx: Context,
    stream: Stream,
    staging: PinnedBuffer<f32>,
}

impl ChunkedUploader {
    pub fn new(ctx: &Context) -> cuda_lint_runtime::Result<Self> {
        Ok(Self {
            ctx: ctx.clone(),
            stream: ctx.new_stream()?,
            staging: ctx.alloc_pinned::<f32>(CHUNK)?,
        })
    }

    /// Uploads a large host tensor as a list of device chunks.
    pub fn upload(&mut self, tensor: &[f32]) -> cuda_lint_runtime::Result<Vec<DeviceBuffer<f32>>> {
        let mut chunks = tensor
            .chunks(CHUNK)
            .map(|part| self.ctx.alloc::<f32>(part.len()))
            .collect::<cuda_lint_runtime::Result<Vec<_>>>()?;
        for (part, dev) in tensor.chunks(CHUNK).zip(chunks.iter_mut()) {
            self.staging[..part.len()].copy_from_slice(part); // EXPECT: missing_sync
            // SAFETY: the staging buffer outlives the copy (it is a field of self).
            unsafe { self.stream.copy_htod_async(dev, &self.staging[..part.len()])? };
        }
        self.stream.synchronize()?;
        Ok(chunks)
    }
}
