//! case: windowed aggregation job (runtime crate) that enqueues the reduce kernel and the readback inside a scope holding a StreamFence guard whose Drop synchronizes the stream; the pinned result is read only after the scope ends (near-miss)
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const WINDOW_SRC: &str = r#"
extern "C" __global__ void window_sums(const float* values, unsigned n, unsigned window, float* sums) {
    unsigned w = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned start = w * window;
    if (start >= n) return;
    float s = 0.0f;
    for (unsigned i = start; i < min(start + window, n); ++i) s += values[i];
    sums[w] = s;
}
"#;

/// Synchronizes its stream when dropped, on every exit path of the scope that holds it.
pub struct StreamFence<'a> {
    stream: &'a Stream,
}

impl<'a> StreamFence<'a> {
    pub fn new(stream: &'a Stream) -> Self {
        StreamFence { stream }
    }
}

impl Drop for StreamFence<'_> {
    fn drop(&mut self) {
        if let Err(e) = self.stream.synchronize() {
            eprintln!("stream synchronize failed: {e}");
        }
    }
}

pub struct WindowAggregator {
    stream: Stream,
    kernel: Kernel,
    window: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct WindowStats {
    pub sums: Vec<f32>,
    pub max_window: usize,
}

impl WindowAggregator {
    pub fn new(ctx: &Context, window: usize) -> Result<Self> {
        let kernel = ctx.load_cuda(WINDOW_SRC)?.function("window_sums")?;
        Ok(WindowAggregator { stream: ctx.new_stream()?, kernel, window })
    }

    pub fn aggregate(&self, ctx: &Context, values: &DeviceBuffer<f32>) -> Result<WindowStats> {
        let windows = values.len().div_ceil(self.window);
        let sums_dev: DeviceBuffer<f32> = ctx.alloc_zeroed(windows)?;
        let mut sums_host: PinnedBuffer<f32> = ctx.alloc_pinned(windows)?;
        {
            let _fence = StreamFence::new(&self.stream);
            let n = values.len() as u32;
            let window = self.window as u32;
            unsafe {
                self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(windows as u32), &[values, &n, &window, &sums_dev])?;
                self.stream.copy_dtoh_async(&mut sums_host, &sums_dev)?;
            }
        } // _fence dropped: the stream is synchronized here, also when `?` left the scope early

        let max_window = sums_host
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map(|(i, _)| i)
            .unwrap_or(0);
        Ok(WindowStats { sums: sums_host.to_vec(), max_window })
    }
}
