//! case: a batch scorer keeps host-maintained statistics in a `ManagedBuffer` (runtime layer) and bumps them right after launching the scoring kernel, which only uses device buffers and is still running
//! expect: managed_concurrent_access=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, ManagedBuffer, PinnedBuffer, Result, Stream};

const SCORE_SRC: &str = r#"
extern "C" __global__ void bm25(const float* tf, const float* idf, const float* doc_len, float* score,
                                unsigned ndocs, unsigned nterms, float avg_len) {
    unsigned d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d >= ndocs) return;
    const float k1 = 1.2f, b = 0.75f;
    float s = 0.0f, norm = k1 * (1.0f - b + b * doc_len[d] / avg_len);
    for (unsigned t = 0; t < nterms; ++t) {
        float f = tf[t * ndocs + d];
        s += idf[t] * f * (k1 + 1.0f) / (f + norm);
    }
    score[d] = s;
}
"#;

/// Indices into the statistics buffer.
pub mod stat {
    pub const BATCHES: usize = 0;
    pub const DOCS: usize = 1;
    pub const TERMS: usize = 2;
}

pub struct Scorer {
    stream: Stream,
    kernel: Kernel,
    stats: ManagedBuffer<u64>,
    scores_host: PinnedBuffer<f32>,
}

impl Scorer {
    pub fn new(ctx: &Context, max_docs: usize) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(SCORE_SRC)?.function("bm25")?,
            stats: ctx.alloc_managed::<u64>(8)?,
            scores_host: ctx.alloc_pinned::<f32>(max_docs)?,
        })
    }

    pub fn score(
        &mut self,
        tf: &DeviceBuffer<f32>,
        idf: &DeviceBuffer<f32>,
        doc_len: &DeviceBuffer<f32>,
        scores: &mut DeviceBuffer<f32>,
        avg_len: f32,
    ) -> Result<&[f32]> {
        let ndocs = doc_len.len() as u32;
        let nterms = idf.len() as u32;
        unsafe {
            self.stream.launch(
                &self.kernel,
                LaunchConfig::for_num_elems(ndocs),
                &[tf, idf, doc_len, &*scores, &ndocs, &nterms, &avg_len],
            )?
        };
        for (slot, add) in [(stat::BATCHES, 1), (stat::DOCS, ndocs as u64), (stat::TERMS, nterms as u64)] {
            self.stats[slot] += add; // EXPECT: managed_concurrent_access
        }

        unsafe { self.stream.copy_dtoh_async(&mut self.scores_host[..ndocs as usize], scores)? };
        self.stream.synchronize()?;
        Ok(&self.scores_host[..ndocs as usize])
    }
}
