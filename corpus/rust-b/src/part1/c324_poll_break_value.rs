//! case: a render loop polls the readback event with `query` and `break`s out with the frame's value only once the event has completed
//! expect: none
use std::time::Duration;

use cuda_lint_runtime::{Context, DeviceBuffer, Event, PinnedBuffer, Result, Stream};

pub struct Readback {
    stream: Stream,
    done: Event,
    pixels: PinnedBuffer<u32>,
}

impl Readback {
    pub fn new(ctx: &Context, n: usize) -> Result<Self> {
        Ok(Self { stream: ctx.new_stream()?, done: ctx.new_event()?, pixels: ctx.alloc_pinned(n)? })
    }

    pub fn brightest(&mut self, fb: &DeviceBuffer<u32>, mut idle: impl FnMut()) -> Result<u32> {
        // SAFETY: read only after `done` has completed.
        unsafe { self.stream.copy_dtoh_async(&mut self.pixels, fb)? };
        self.stream.record_event(&self.done)?;
        let peak = loop {
            if self.done.query()? {
                break self.pixels.iter().copied().max().unwrap_or(0);
            }
            idle();
            std::thread::sleep(Duration::from_micros(50));
        };
        Ok(peak)
    }
}
