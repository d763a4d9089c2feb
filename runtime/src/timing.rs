//! Timing with CUDA events (`cuEventRecord`, `cuEventElapsedTime`): GPU time between two points
//! of a stream, as the benchmarks measure it (compare `anchors/cuda-cpp/copy_bench.cu`).

use crate::context::Context;
use crate::error::Result;
use crate::stream::{Event, Stream};

/// Two timing events (`cuEventCreate` with `CU_EVENT_DEFAULT`): record [`EventTimer::start`]
/// and [`EventTimer::stop`] on a stream, then read [`EventTimer::elapsed_ms`].
#[derive(Debug)]
pub struct EventTimer {
    start: Event,
    stop: Event,
}

impl EventTimer {
    /// Creates the two timing events in `ctx`.
    pub fn new(ctx: &Context) -> Result<EventTimer> {
        Ok(EventTimer {
            start: ctx.new_timing_event()?,
            stop: ctx.new_timing_event()?,
        })
    }

    /// Records the start event on `stream` (`cuEventRecord`).
    pub fn start(&self, stream: &Stream) -> Result<()> {
        stream.record_event(&self.start)
    }

    /// Records the stop event on `stream` (`cuEventRecord`).
    pub fn stop(&self, stream: &Stream) -> Result<()> {
        stream.record_event(&self.stop)
    }

    /// Waits for the stop event (`cuEventSynchronize`) and returns the milliseconds between start
    /// and stop (`cuEventElapsedTime`).
    pub fn elapsed_ms(&self) -> Result<f32> {
        self.stop.synchronize()?;
        self.stop.elapsed_ms(&self.start)
    }

    /// The start event.
    pub fn start_event(&self) -> &Event {
        &self.start
    }

    /// The stop event.
    pub fn stop_event(&self) -> &Event {
        &self.stop
    }
}

/// GPU milliseconds taken by the work `f` enqueues on `stream`: records a timing event on
/// `stream`, runs `f` (on the host), records a second one, waits for it and returns
/// `cuEventElapsedTime` between the two. An error from `f` is returned as is.
///
/// ```no_run
/// # fn main() -> cuda_lint_runtime::Result<()> {
/// use cuda_lint_runtime::{Context, time_ms};
/// let ctx = Context::new(0)?;
/// let stream = ctx.new_stream()?;
/// let host = ctx.alloc_pinned::<u8>(1 << 20)?;
/// let mut dev = ctx.alloc::<u8>(1 << 20)?;
/// // SAFETY: `host` is neither written nor freed until time_ms has synchronized.
/// let ms = time_ms(&stream, || unsafe { stream.copy_htod_async(&mut dev, &host) })?;
/// println!("{:.1} GB/s", (1 << 20) as f64 / (ms as f64 * 1e-3) / 1e9);
/// # Ok(()) }
/// ```
pub fn time_ms<F>(stream: &Stream, f: F) -> Result<f32>
where
    F: FnOnce() -> Result<()>,
{
    let timer = EventTimer::new(stream.context())?;
    timer.start(stream)?;
    f()?;
    timer.stop(stream)?;
    timer.elapsed_ms()
}
