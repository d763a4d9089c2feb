// An `async fn` is a coroutine: at an `.await` it may return `Pending`, and the next poll
// resumes where it stopped. Work enqueued before the `.await` is still in flight after it:
// awaiting something else waits for nothing on the GPU. On the first poll nothing is running.
use cuda_lint_runtime::{Context, DeviceBuffer, Error, PinnedBuffer, Stream};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context as TaskCx, Poll};

/// Gives other tasks a turn: `Pending` once, then `Ready`.
struct YieldNow(bool);

impl Future for YieldNow {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskCx<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

struct Camera {
    stream: Stream,
    raw: DeviceBuffer<u16>,
    frame: PinnedBuffer<u16>,
}

impl Camera {
    fn new(ctx: &Context) -> Result<Camera, Error> {
        Ok(Camera { stream: ctx.new_stream()?, raw: ctx.alloc(1 << 20)?, frame: ctx.alloc_pinned(1 << 20)? })
    }

    async fn fires_frame_read_after_yielding(&mut self) -> Result<u16, Error> {
        unsafe { self.stream.copy_dtoh_async(&mut self.frame, &self.raw)? };
        YieldNow(false).await;
        Ok(self.frame.iter().copied().max().unwrap_or(0)) //~ missing_sync
    }

    async fn ok_frame_read_after_the_stream_is_synchronized(&mut self) -> Result<u16, Error> {
        unsafe { self.stream.copy_dtoh_async(&mut self.frame, &self.raw)? };
        YieldNow(false).await;
        self.stream.synchronize()?;
        Ok(self.frame.iter().copied().max().unwrap_or(0))
    }

    async fn ok_frame_filled_on_the_first_poll(&mut self, value: u16) -> Result<(), Error> {
        self.frame.fill(value);
        unsafe { self.stream.copy_htod_async(&mut self.raw, &self.frame)? };
        YieldNow(false).await;
        self.stream.synchronize()
    }
}

/// Resolves once the stream has finished its work, yielding between polls.
async fn stream_idle(stream: &Stream) -> Result<(), Error> {
    while !stream.query()? {
        YieldNow(false).await;
    }
    Ok(())
}

impl Camera {
    // Awaiting the crate's own `async fn` that uses CUDA: not followed, it may have waited.
    async fn ok_frame_read_after_awaiting_an_idle_stream(&mut self) -> Result<u16, Error> {
        unsafe { self.stream.copy_dtoh_async(&mut self.frame, &self.raw)? };
        stream_idle(&self.stream).await?;
        Ok(self.frame.iter().copied().max().unwrap_or(0))
    }
}

fn main() {}
