//! case: a ranking service gathers kernel scores into a cudarc `UnifiedSlice` with `memcpy_dtoh` on the default stream only and reads it with `as_slice`; with one stream cudarc records no event for the copy, the unified slice's event was never recorded, so `as_slice` returns before the copy lands
//! expect: missing_sync=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const BM25_SRC: &str = r#"
extern "C" __global__ void bm25(const float* tf, const float* idf, const float* doc_len, float avg_len,
                                unsigned int n_docs, unsigned int n_terms, float* score) {
    unsigned int d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d >= n_docs) return;
    const float k1 = 1.2f, b = 0.75f;
    float s = 0.0f;
    for (unsigned int t = 0; t < n_terms; ++t) {
        float f = tf[(size_t)t * n_docs + d];
        s += idf[t] * f * (k1 + 1.0f) / (f + k1 * (1.0f - b + b * doc_len[d] / avg_len));
    }
    score[d] = s;
}
"#;

pub struct Ranker {
    stream: Arc<CudaStream>,
    bm25: CudaFunction,
    tf: CudaSlice<f32>,
    idf: CudaSlice<f32>,
    doc_len: CudaSlice<f32>,
    scores: CudaSlice<f32>,
    gathered: UnifiedSlice<f32>,
    n_terms: u32,
}

impl Ranker {
    pub fn new(ctx: &Arc<CudaContext>, n_docs: usize, n_terms: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.default_stream();
        Ok(Self {
            bm25: ctx.load_module(compile_ptx(BM25_SRC)?)?.load_function("bm25")?,
            tf: stream.alloc_zeros::<f32>(n_docs * n_terms)?,
            idf: stream.alloc_zeros::<f32>(n_terms)?,
            doc_len: stream.alloc_zeros::<f32>(n_docs)?,
            scores: stream.alloc_zeros::<f32>(n_docs)?,
            gathered: unsafe { ctx.alloc_unified::<f32>(n_docs, true)? },
            n_terms: n_terms as u32,
            stream,
        })
    }

    pub fn top_k(&mut self, k: usize, avg_len: f32) -> Result<Vec<(u32, f32)>, DriverError> {
        let n_docs = self.scores.len() as u32;
        let mut launch = self.stream.launch_builder(&self.bm25);
        launch
            .arg(&self.tf)
            .arg(&self.idf)
            .arg(&self.doc_len)
            .arg(&avg_len)
            .arg(&n_docs)
            .arg(&self.n_terms)
            .arg(&mut self.scores);
        unsafe { launch.launch(LaunchConfig::for_num_elems(n_docs)) }?;

        self.stream.memcpy_dtoh(&self.scores, &mut self.gathered)?;
        let mut ranked: Vec<(u32, f32)> = self.gathered.as_slice()?.iter().enumerate().map(|(d, &s)| (d as u32, s)).collect(); // EXPECT: missing_sync
        ranked.sort_unstable_by(|a, b| b.1.total_cmp(&a.1));
        ranked.truncate(k);
        Ok(ranked)
    }
}
