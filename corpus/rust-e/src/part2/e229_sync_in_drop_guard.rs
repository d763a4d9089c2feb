//! case: near-miss: the readback is enqueued inside a scope holding a guard whose `Drop` synchronizes the stream, and the host reads the pinned buffer only after the scope (the guard also covers the early return of `?`)
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, LaunchConfig, PinnedBuffer, Result, Stream};

const LOSS_SRC: &str = r#"
extern "C" __global__ void cross_entropy(const float* logits, const int* labels, float* loss, int batch, int classes) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch) return;
    const float* row = logits + b * classes;
    float m = row[0];
    for (int c = 1; c < classes; ++c) m = fmaxf(m, row[c]);
    float s = 0.f;
    for (int c = 0; c < classes; ++c) s += __expf(row[c] - m);
    loss[b] = logf(s) + m - row[labels[b]];
}
"#;

/// Waits for everything enqueued on the stream when it goes out of scope.
pub struct StreamFence<'s> {
    stream: &'s Stream,
}

impl<'s> StreamFence<'s> {
    pub fn new(stream: &'s Stream) -> Self {
        Self { stream }
    }
}

impl Drop for StreamFence<'_> {
    fn drop(&mut self) {
        if let Err(e) = self.stream.synchronize() {
            eprintln!("stream synchronize failed in fence: {e}");
        }
    }
}

pub fn mean_loss(ctx: &Context, stream: &Stream, logits: &DeviceBuffer<f32>, labels: &DeviceBuffer<i32>, classes: i32) -> Result<f32> {
    let batch = labels.len() as i32;
    let kernel = ctx.load_cuda(LOSS_SRC)?.function("cross_entropy")?;
    let per_sample: DeviceBuffer<f32> = ctx.alloc(batch as usize)?;
    let mut host: PinnedBuffer<f32> = ctx.alloc_pinned(batch as usize)?;
    {
        let _fence = StreamFence::new(stream);
        unsafe {
            stream.launch(&kernel, LaunchConfig::for_num_elems(batch as u32), &[logits, labels, &per_sample, &batch, &classes])?;
            stream.copy_dtoh_async(&mut host, &per_sample)?;
        }
    }
    let total: f32 = host.iter().sum();
    Ok(total / batch.max(1) as f32)
}
