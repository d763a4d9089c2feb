//! case: a checkpoint writer enqueues uploads from a Vec of pinned shards, then clears the Vec (freeing the pinned memory) before the uploads finish
//! expect: missing_sync=1
use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

pub struct Restore {
    stream: Stream,
    shards: Vec<PinnedBuffer<f32>>,
}

impl Restore {
    pub fn from_files(ctx: &Context, files: &[Vec<f32>]) -> Result<Self> {
        let shards = files
            .iter()
            .map(|f| {
                let mut p = ctx.alloc_pinned::<f32>(f.len())?;
                p.copy_from_slice(f);
                Ok(p)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Self { stream: ctx.new_stream()?, shards })
    }

    pub fn upload_into(&mut self, params: &mut [DeviceBuffer<f32>]) -> Result<()> {
        for (dst, src) in params.iter_mut().zip(&self.shards) {
            // SAFETY: the shards are meant to outlive the copies (they do not: see below).
            unsafe { self.stream.copy_htod_async(dst, src)? };
        }
        // Release the host copies early to save memory: cuMemFreeHost of buffers the
        // copies above are still reading.
        self.shards.clear(); // EXPECT: missing_sync
        self.stream.synchronize()
    }
}
