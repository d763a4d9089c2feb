//! case: reranking stage of a vector-search service turns off cudarc's event tracking for throughput and then reads the pinned score buffer with `as_slice` after a `memcpy_dtoh` on its copy stream; without tracking no event is recorded on the pinned slice, so `as_slice` waits for nothing
//! expect: missing_sync=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const RERANK_SRC: &str = r#"
extern "C" __global__ void cross_score(const float* q, const float* docs, float* scores, unsigned n_docs, unsigned dim) {
    unsigned d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d >= n_docs) return;
    float s = 0.0f;
    for (unsigned k = 0; k < dim; ++k) s += q[k] * docs[d * dim + k];
    scores[d] = 1.0f / (1.0f + __expf(-s));
}
"#;

pub struct Candidate {
    pub doc_id: u64,
    pub score: f32,
}

pub struct Reranker {
    compute: Arc<CudaStream>,
    copy: Arc<CudaStream>,
    kernel: CudaFunction,
    scores: CudaSlice<f32>,
    scores_host: PinnedHostSlice<f32>,
    dim: usize,
}

impl Reranker {
    pub fn new(ctx: &Arc<CudaContext>, max_docs: usize, dim: usize) -> Result<Self, Box<dyn std::error::Error>> {
        // We order our streams by hand; cudarc's per-slice events cost too much here.
        unsafe { ctx.disable_event_tracking() };
        let compute = ctx.new_stream()?;
        let copy = ctx.new_stream()?;
        let kernel = ctx.load_module(compile_ptx(RERANK_SRC)?)?.load_function("cross_score")?;
        let scores = compute.alloc_zeros::<f32>(max_docs)?;
        let scores_host = unsafe { ctx.alloc_pinned_with_flags::<f32>(max_docs, 0)? };
        Ok(Self { compute, copy, kernel, scores, scores_host, dim })
    }

    pub fn rerank(&mut self, query: &CudaSlice<f32>, docs: &CudaSlice<f32>, ids: &[u64], keep: usize) -> Result<Vec<Candidate>, DriverError> {
        let n = ids.len() as u32;
        let dim = self.dim as u32;
        unsafe { self.compute.launch_builder(&self.kernel).arg(query).arg(docs).arg(&mut self.scores).arg(&n).arg(&dim).launch(LaunchConfig::for_num_elems(n)) }?;
        self.copy.join(&self.compute)?;
        self.copy.memcpy_dtoh(&self.scores, &mut self.scores_host)?;
        let mut out: Vec<Candidate> = self.scores_host.as_slice()?[..ids.len()].iter().zip(ids).map(|(&score, &doc_id)| Candidate { doc_id, score }).collect(); // EXPECT: missing_sync
        out.sort_by(|a, b| b.score.total_cmp(&a.score));
        out.truncate(keep);
        Ok(out)
    }
}
