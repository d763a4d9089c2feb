//! case: a ranking service page-locks its reusable `Vec<f32>` of scores in place (runtime layer `register_host`) so the download is truly asynchronous, then looks for the best score before synchronizing; registered memory stays in flight until the stream is done
//! expect: missing_sync=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Result, Stream};

const DOT_SRC: &str = r#"
extern "C" __global__ void dot_rows(const float* docs, const float* q, float* out, unsigned ndocs, unsigned dim) {
    unsigned d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d >= ndocs) return;
    float s = 0.0f;
    for (unsigned k = 0; k < dim; ++k) s += docs[(size_t)d * dim + k] * q[k];
    out[d] = s;
}
"#;

pub struct Ranker {
    stream: Stream,
    kernel: Kernel,
    scores_dev: DeviceBuffer<f32>,
    /// Reused across queries; registered for the duration of each download.
    scores: Vec<f32>,
}

impl Ranker {
    pub fn new(ctx: &Context, ndocs: usize) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(DOT_SRC)?.function("dot_rows")?,
            scores_dev: ctx.alloc(ndocs)?,
            scores: vec![0.0; ndocs],
        })
    }

    /// Returns (best doc, its score) for the query vector `q` against `docs` (`ndocs x dim`).
    pub fn best(&mut self, ctx: &Context, docs: &DeviceBuffer<f32>, q: &DeviceBuffer<f32>) -> Result<(usize, f32)> {
        let (ndocs, dim) = (self.scores_dev.len() as u32, q.len() as u32);
        unsafe {
            self.stream
                .launch(&self.kernel, LaunchConfig::for_num_elems(ndocs), &[docs, q, &self.scores_dev, &ndocs, &dim])?
        };
        let mut pinned = ctx.register_host(&mut self.scores)?;
        unsafe { self.stream.copy_dtoh_async(&mut pinned, &self.scores_dev)? };

        let best = pinned.iter().copied().enumerate().fold((0, f32::MIN), |b, (i, s)| if s > b.1 { (i, s) } else { b }); // EXPECT: missing_sync
        self.stream.synchronize()?;
        drop(pinned);
        Ok(best)
    }
}
