//! case: search ranking service (cudarc) with a compute stream and a copy stream: the copy stream waits on an event recorded after the scoring kernel, copies the scores into non-write-combined pinned memory, and is synchronized before the host sorts them (near-miss)
//! expect: none

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::sync::Arc;

const SCORE_SRC: &str = r#"
extern "C" __global__ void bm25(const float* tf, const float* idf, const float* doc_len,
                                float avg_len, unsigned docs, unsigned terms, float* scores) {
    unsigned d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d >= docs) return;
    float s = 0.0f;
    for (unsigned t = 0; t < terms; ++t) {
        float f = tf[d * terms + t];
        s += idf[t] * f * 2.2f / (f + 1.2f * (0.25f + 0.75f * doc_len[d] / avg_len));
    }
    scores[d] = s;
}
"#;

pub struct Ranker {
    compute: Arc<CudaStream>,
    copy: Arc<CudaStream>,
    bm25: CudaFunction,
    scores: CudaSlice<f32>,
    scores_host: PinnedHostSlice<f32>,
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

impl Ranker {
    pub fn new(ctx: &Arc<CudaContext>, max_docs: usize) -> Res<Self> {
        let compute = ctx.new_stream()?;
        let copy = ctx.new_stream()?;
        let bm25 = ctx.load_module(compile_ptx(SCORE_SRC)?)?.load_function("bm25")?;
        Ok(Ranker {
            scores: compute.alloc_zeros(max_docs)?,
            scores_host: unsafe { ctx.alloc_pinned_with_flags(max_docs, 0)? },
            compute,
            copy,
            bm25,
        })
    }

    pub fn top_k(&mut self, tf: &CudaSlice<f32>, idf: &CudaSlice<f32>, doc_len: &CudaSlice<f32>, avg_len: f32, k: usize) -> Res<Vec<(usize, f32)>> {
        let docs = doc_len.len() as u32;
        let terms = idf.len() as u32;
        unsafe {
            self.compute
                .launch_builder(&self.bm25)
                .arg(tf)
                .arg(idf)
                .arg(doc_len)
                .arg(&avg_len)
                .arg(&docs)
                .arg(&terms)
                .arg(&mut self.scores)
                .launch(LaunchConfig::for_num_elems(docs))?;
        }
        let scored = self.compute.record_event(None)?;
        self.copy.wait(&scored)?;
        self.copy.memcpy_dtoh(&self.scores, &mut self.scores_host)?;
        self.copy.synchronize()?;

        let mut ranked: Vec<(usize, f32)> = self.scores_host.as_slice()?[..docs as usize].iter().copied().enumerate().collect();
        ranked.sort_unstable_by(|a, b| b.1.total_cmp(&a.1));
        ranked.truncate(k);
        Ok(ranked)
    }
}
