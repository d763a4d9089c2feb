//! case: the async embedding handler done right: after enqueuing the D2H copy it awaits a future that polls `stream.query()` until the stream is idle, and only then reads the pinned buffer
//! expect: none
use std::future::Future;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};

use cuda_lint_runtime::{DeviceBuffer, PinnedBuffer, Stream};

/// Resolves once all work enqueued on the stream so far has completed.
pub struct StreamIdle<'a> {
    stream: &'a Stream,
}

impl Future for StreamIdle<'_> {
    type Output = cuda_lint_runtime::Result<()>;
    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        match self.stream.query() {
            Ok(true) => Poll::Ready(Ok(())),
            Ok(false) => {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
            Err(e) => Poll::Ready(Err(e)),
        }
    }
}

pub struct Slot {
    pub stream: Stream,
    pub d_out: DeviceBuffer<f32>,
    pub h_out: PinnedBuffer<f32>,
}

impl Slot {
    pub async fn respond(&mut self, top_k: usize) -> cuda_lint_runtime::Result<Vec<(usize, f32)>> {
        unsafe { self.stream.copy_dtoh_async(&mut self.h_out, &self.d_out)? };
        StreamIdle { stream: &self.stream }.await?;
        let mut scored: Vec<(usize, f32)> = self.h_out.iter().copied().enumerate().collect();
        scored.sort_unstable_by(|a, b| b.1.total_cmp(&a.1));
        scored.truncate(top_k);
        Ok(scored)
    }
}
