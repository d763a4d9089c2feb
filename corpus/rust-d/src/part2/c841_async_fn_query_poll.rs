//! case: an async tokenizer-stats task (runtime layer) enqueues a kernel and the copy into pinned memory, then polls `stream.query()` and yields to the executor until the stream reports all work done, and only then reads the pinned counts
//! expect: none

use std::future::Future;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const COUNT_SRC: &str = r#"
extern "C" __global__ void token_lengths(const unsigned char* text, const unsigned int* offsets, unsigned int n_tok,
                                         unsigned int* lengths) {
    unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n_tok) {
        unsigned int len = 0;
        for (unsigned int i = offsets[t]; i < offsets[t + 1]; ++i) len += (text[i] & 0xC0) != 0x80; // code points
        lengths[t] = len;
    }
}
"#;

struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<()> {
        if std::mem::replace(&mut self.0, true) {
            Poll::Ready(())
        } else {
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

/// Resolves once everything enqueued on `stream` has completed, without blocking the thread.
async fn stream_done(stream: &Stream) -> Result<()> {
    while !stream.query()? {
        YieldOnce(false).await;
    }
    Ok(())
}

pub struct TokenStats {
    stream: Stream,
    kernel: Kernel,
    lengths_dev: DeviceBuffer<u32>,
    lengths_host: PinnedBuffer<u32>,
}

impl TokenStats {
    pub fn new(ctx: &Context, max_tokens: usize) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(COUNT_SRC)?.function("token_lengths")?,
            lengths_dev: ctx.alloc(max_tokens)?,
            lengths_host: ctx.alloc_pinned(max_tokens)?,
        })
    }

    pub async fn mean_length(&mut self, text: &DeviceBuffer<u8>, offsets: &DeviceBuffer<u32>) -> Result<f64> {
        let n_tok = (offsets.len() as u32 - 1).min(self.lengths_dev.len() as u32);
        unsafe {
            self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(n_tok), &[text, offsets, &n_tok, &self.lengths_dev])?;
            self.stream.copy_dtoh_async(&mut self.lengths_host, &self.lengths_dev)?;
        }
        stream_done(&self.stream).await?;
        let total: u64 = self.lengths_host[..n_tok as usize].iter().map(|&l| l as u64).sum();
        Ok(total as f64 / n_tok.max(1) as f64)
    }
}
