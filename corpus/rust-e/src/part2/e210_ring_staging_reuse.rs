//! case: a chunked uploader cycles through two pinned staging slots, but refills a slot on its next lap without waiting for the copy that is still reading it (no per-slot event), so the third chunk can overwrite bytes the first copy has not sent yet
//! expect: missing_sync=1

use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

const SLOTS: usize = 2;

pub struct ChunkedUploader {
    stream: Stream,
    slots: Vec<PinnedBuffer<u8>>,
    chunk_bytes: usize,
}

impl ChunkedUploader {
    pub fn new(ctx: &Context, chunk_bytes: usize) -> Result<Self> {
        let slots = (0..SLOTS).map(|_| ctx.alloc_pinned::<u8>(chunk_bytes)).collect::<Result<Vec<_>>>()?;
        Ok(Self { stream: ctx.new_stream()?, slots, chunk_bytes })
    }

    /// Uploads `blob` into per-chunk device buffers and returns them once all copies are done.
    pub fn upload(&mut self, ctx: &Context, blob: &[u8]) -> Result<Vec<DeviceBuffer<u8>>> {
        let mut out = Vec::with_capacity(blob.len().div_ceil(self.chunk_bytes));
        for (i, chunk) in blob.chunks(self.chunk_bytes).enumerate() {
            let slot = &mut self.slots[i % SLOTS];
            slot[..chunk.len()].copy_from_slice(chunk); // EXPECT: missing_sync
            let mut dst = ctx.alloc::<u8>(chunk.len())?;
            unsafe { self.stream.copy_htod_async(&mut dst, &slot[..chunk.len()])? };
            out.push(dst);
        }
        self.stream.synchronize()?;
        Ok(out)
    }
}
