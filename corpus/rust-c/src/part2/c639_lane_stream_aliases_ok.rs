//! case: a multi-lane pipeline hands the same `Arc<Stream>` (runtime layer) to a lane's compute and download stages; the kernel, the download into pinned memory and the synchronize all go through different handles of that one stream before the host reads
//! expect: none

use std::sync::Arc;

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const SOFTMAX_SRC: &str = r#"
extern "C" __global__ void row_softmax(float* x, unsigned cols) {
    float* row = x + (size_t)blockIdx.x * cols;
    float m = -INFINITY;
    for (unsigned c = 0; c < cols; ++c) m = fmaxf(m, row[c]);
    float s = 0.0f;
    for (unsigned c = 0; c < cols; ++c) { row[c] = __expf(row[c] - m); s += row[c]; }
    for (unsigned c = 0; c < cols; ++c) row[c] /= s;
}
"#;

struct ComputeStage {
    stream: Arc<Stream>,
    kernel: Kernel,
}

struct DownloadStage {
    stream: Arc<Stream>,
    host: PinnedBuffer<f32>,
}

pub struct Lane {
    compute: ComputeStage,
    download: DownloadStage,
    logits: DeviceBuffer<f32>,
}

impl Lane {
    pub fn new(ctx: &Context, kernel: Kernel, rows: usize, cols: usize) -> Result<Self> {
        let stream = Arc::new(ctx.new_stream()?);
        Ok(Self {
            compute: ComputeStage { stream: Arc::clone(&stream), kernel },
            download: DownloadStage { stream, host: ctx.alloc_pinned(rows * cols)? },
            logits: ctx.alloc(rows * cols)?,
        })
    }

    fn stream(&self) -> &Stream {
        &self.compute.stream
    }

    /// Softmax over the lane's `rows x cols` logits; returns the argmax of each row.
    pub fn softmax_argmax(&mut self, rows: u32, cols: u32) -> Result<Vec<usize>> {
        let cfg = LaunchConfig { grid: (rows, 1, 1), block: (1, 1, 1), shared_mem_bytes: 0 };
        unsafe { self.compute.stream.launch(&self.compute.kernel, cfg, &[&self.logits, &cols])? };
        unsafe { self.download.stream.copy_dtoh_async(&mut self.download.host, &self.logits)? };
        self.stream().synchronize()?;
        Ok(self
            .download
            .host
            .chunks_exact(cols as usize)
            .map(|row| row.iter().enumerate().fold((0, f32::MIN), |b, (i, &p)| if p > b.1 { (i, p) } else { b }).0)
            .collect())
    }
}

pub fn build_lanes(ctx: &Context, lanes: usize, rows: usize, cols: usize) -> Result<Vec<Lane>> {
    let kernel = ctx.load_cuda(SOFTMAX_SRC)?.function("row_softmax")?;
    (0..lanes).map(|_| Lane::new(ctx, kernel.clone(), rows, cols)).collect()
}
