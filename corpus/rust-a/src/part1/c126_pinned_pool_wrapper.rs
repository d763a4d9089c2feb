//! case: uploads go through a small pool type that hands out pinned staging buffers (a wrapper over the runtime layer's alloc_pinned); the pool waits for the stream before a buffer is reused
//! expect: none
use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

pub struct HostPool {
    ctx: Context,
    free: Vec<PinnedBuffer<f32>>,
    chunk: usize,
}

impl HostPool {
    pub fn new(ctx: &Context, chunk: usize) -> Self {
        Self { ctx: ctx.clone(), free: Vec::new(), chunk }
    }

    pub fn get(&mut self) -> Result<PinnedBuffer<f32>> {
        match self.free.pop() {
            Some(buf) => Ok(buf),
            None => self.ctx.alloc_pinned(self.chunk),
        }
    }

    /// Returns buffers once `stream` has finished with them.
    pub fn put_back(&mut self, stream: &Stream, bufs: impl IntoIterator<Item = PinnedBuffer<f32>>) -> Result<()> {
        stream.synchronize()?;
        self.free.extend(bufs);
        Ok(())
    }
}

pub fn upload_chunks(pool: &mut HostPool, stream: &Stream, input: &[f32], dev: &mut [DeviceBuffer<f32>]) -> Result<()> {
    let mut in_flight = Vec::new();
    for (chunk, d) in input.chunks(pool.chunk).zip(dev.iter_mut()) {
        let mut staging = pool.get()?;
        staging[..chunk.len()].copy_from_slice(chunk);
        // SAFETY: `staging` is pinned and kept in `in_flight` until put_back synchronizes.
        unsafe { stream.copy_htod_async(d, &staging)? };
        in_flight.push(staging);
    }
    pool.put_back(stream, in_flight)
}
