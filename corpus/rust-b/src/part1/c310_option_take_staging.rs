//! case: a readback cache takes its pinned buffer out of an `Option`; the fast path returns the stale buffer to the caller without waiting
//! expect: missing_sync=1
use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

pub enum Readback {
    Ready(PinnedBuffer<f32>),
    Pending,
}

pub struct Cache {
    stream: Stream,
    staging: Option<PinnedBuffer<f32>>,
    in_flight: bool,
}

impl Cache {
    pub fn new(ctx: &Context) -> Result<Self> {
        Ok(Self { stream: ctx.new_stream()?, staging: None, in_flight: false })
    }

    pub fn request(&mut self, ctx: &Context, src: &DeviceBuffer<f32>) -> Result<()> {
        if self.in_flight {
            // A previous request may still be writing the buffer we are about to replace.
            self.stream.synchronize()?;
            self.in_flight = false;
        }
        if self.staging.as_ref().is_some_and(|b| b.len() != src.len()) {
            self.staging = None;
        }
        let buf = match self.staging.take() {
            Some(b) => self.staging.insert(b),
            None => self.staging.insert(ctx.alloc_pinned(src.len())?),
        };
        // SAFETY: the buffer stays in `self.staging` until `take_result`.
        unsafe { self.stream.copy_dtoh_async(buf, src)? };
        self.in_flight = true;
        Ok(())
    }

    pub fn take_result(&mut self, wait: bool) -> Result<Readback> {
        let Some(buf) = self.staging.take() else { return Ok(Readback::Pending) };
        if wait {
            self.stream.synchronize()?;
            self.in_flight = false;
        }
        Ok(Readback::Ready(buf))
    }

    /// Returns the buffer for reuse; `request` waits for any copy still in flight first.
    pub fn give_back(&mut self, buf: PinnedBuffer<f32>) {
        self.staging = Some(buf);
    }
}

impl Drop for Cache {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
    }
}

pub fn consume(cache: &mut Cache, latency_critical: bool) -> Result<f32> {
    match cache.take_result(!latency_critical)? {
        // When `latency_critical`, nothing waited for the copy into `buf`.
        Readback::Ready(buf) => {
            let peak = buf.iter().fold(0.0, |m: f32, &x| m.max(x)); // EXPECT: missing_sync
            cache.give_back(buf);
            Ok(peak)
        }
        Readback::Pending => Ok(0.0),
    }
}
