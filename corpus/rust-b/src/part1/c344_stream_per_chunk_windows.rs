//! case: a smoothing stage uploads pinned chunks on a Vec of streams, waits for each stream in a loop, then recomputes the chunks with `windows` on the host
//! expect: none
use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

pub struct Smoother {
    streams: Vec<Stream>,
    staging: Vec<PinnedBuffer<f32>>,
    dev: Vec<DeviceBuffer<f32>>,
}

impl Smoother {
    pub fn new(ctx: &Context, chunks: usize, chunk_len: usize) -> Result<Self> {
        Ok(Self {
            streams: (0..chunks).map(|_| ctx.new_stream()).collect::<Result<_>>()?,
            staging: (0..chunks).map(|_| ctx.alloc_pinned(chunk_len)).collect::<Result<_>>()?,
            dev: (0..chunks).map(|_| ctx.alloc(chunk_len)).collect::<Result<_>>()?,
        })
    }

    pub fn push(&mut self, signal: &[f32]) -> Result<()> {
        let len = self.staging.first().map_or(1, |s| s.len());
        for (((chunk, st), d), s) in signal.chunks(len).zip(&mut self.staging).zip(&mut self.dev).zip(&self.streams) {
            st[..chunk.len()].copy_from_slice(chunk);
            // SAFETY: staging is rewritten only after every stream is synchronized below.
            unsafe { s.copy_htod_async(d, st)? };
        }
        for s in &self.streams {
            s.synchronize()?;
        }
        // Host-side smoothing into the (now idle) staging buffers.
        for st in self.staging.iter_mut() {
            let avg: Vec<f32> = st.windows(3).map(|w| (w[0] + w[1] + w[2]) / 3.0).collect();
            st[1..avg.len() + 1].copy_from_slice(&avg);
        }
        Ok(())
    }
}
