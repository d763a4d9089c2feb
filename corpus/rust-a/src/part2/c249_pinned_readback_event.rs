//! case: runtime-layer pinned readback double-buffered with events: each half is read only after Event::synchronize on the event recorded after its copy
//! expect: none
use cuda_lint_runtime::{Context, DeviceBuffer, Event, PinnedBuffer, Result, Stream};

struct Half {
    host: PinnedBuffer<f32>,
    done: Event,
}

pub struct Downloader {
    stream: Stream,
    halves: [Half; 2],
}

impl Downloader {
    pub fn new(ctx: &Context, chunk: usize) -> Result<Self> {
        let mk = || -> Result<Half> { Ok(Half { host: ctx.alloc_pinned(chunk)?, done: ctx.new_event()? }) };
        Ok(Downloader { stream: ctx.new_stream()?, halves: [mk()?, mk()?] })
    }

    pub fn total(&mut self, chunks: &[DeviceBuffer<f32>]) -> Result<f64> {
        let mut total = 0.0f64;
        for (i, chunk) in chunks.iter().enumerate() {
            let h = &mut self.halves[i % 2];
            unsafe { self.stream.copy_dtoh_async(&mut h.host, chunk)? };
            self.stream.record_event(&h.done)?;
            if i > 0 {
                let prev = &self.halves[(i - 1) % 2];
                prev.done.synchronize()?;
                total += prev.host.iter().map(|&v| v as f64).sum::<f64>();
            }
        }
        if let Some(last) = chunks.len().checked_sub(1) {
            let h = &self.halves[last % 2];
            h.done.synchronize()?;
            total += h.host.iter().map(|&v| v as f64).sum::<f64>();
        }
        Ok(total)
    }
}

pub fn run() -> Result<()> {
    let ctx = Context::new(0)?;
    let chunks = (0..6).map(|_| ctx.alloc_zeroed::<f32>(1 << 16)).collect::<Result<Vec<_>>>()?;
    let mut d = Downloader::new(&ctx, 1 << 16)?;
    println!("sum = {}", d.total(&chunks)?);
    Ok(())
}
