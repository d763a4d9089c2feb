//! case: an `async fn` request handler of an embedding server enqueues the D2H copy into its pinned buffer, yields to the executor so other requests can run, and then serializes the buffer: an `.await` is not a CUDA synchronization
//! expect: missing_sync=1
use std::future::Future;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll, RawWaker, RawWakerVTable, Waker};

use cuda_lint_runtime::{DeviceBuffer, PinnedBuffer, Stream};

/// Yields once to the executor (what `tokio::task::yield_now` does).
struct YieldNow(bool);

impl Future for YieldNow {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

pub struct EmbeddingSlot {
    pub stream: Stream,
    pub d_embedding: DeviceBuffer<f32>,
    pub h_embedding: PinnedBuffer<f32>,
}

pub async fn respond(slot: &mut EmbeddingSlot) -> cuda_lint_runtime::Result<String> {
    // SAFETY: `h_embedding` lives in the slot, which outlives the copy.
    unsafe { slot.stream.copy_dtoh_async(&mut slot.h_embedding, &slot.d_embedding)? };
    YieldNow(false).await;
    let body = slot.h_embedding.iter().map(|x| format!("{x:.6}")).collect::<Vec<_>>().join(","); // EXPECT: missing_sync
    Ok(format!("{{\"embedding\":[{body}]}}"))
}

/// Minimal single-future executor used by the server's blocking entry point.
pub fn block_on<F: Future>(fut: F) -> F::Output {
    fn noop_raw() -> RawWaker {
        fn clone(_: *const ()) -> RawWaker {
            noop_raw()
        }
        fn noop(_: *const ()) {}
        static VTABLE: RawWakerVTable = RawWakerVTable::new(clone, noop, noop, noop);
        RawWaker::new(std::ptr::null(), &VTABLE)
    }
    let waker = unsafe { Waker::from_raw(noop_raw()) };
    let mut cx = TaskContext::from_waker(&waker);
    let mut fut = std::pin::pin!(fut);
    loop {
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
    }
}
