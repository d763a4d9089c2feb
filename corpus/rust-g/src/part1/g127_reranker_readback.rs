//! case: cross-encoder reranker with a compute stream and a device-to-host stream: scores are copied into pinned memory allocated without the write-combined flag and read through `PinnedHostSlice::as_slice`, which waits on the event cudarc records after the copy because the context has several streams
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const SCORE_SRC: &str = r#"
extern "C" __global__ void pair_scores(const float* q, const float* docs, float* scores, unsigned dim, unsigned n_docs) {
    unsigned d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d >= n_docs) return;
    float s = 0.0f;
    for (unsigned k = 0; k < dim; ++k) s += q[k] * docs[(size_t)d * dim + k];
    scores[d] = 1.0f / (1.0f + expf(-s));
}
"#;

pub struct Reranker {
    ctx: Arc<CudaContext>,
    compute: Arc<CudaStream>,
    d2h: Arc<CudaStream>,
    dim: u32,
}

impl Reranker {
    pub fn new(dim: u32) -> Result<Self> {
        let ctx = CudaContext::new(0)?;
        let compute = ctx.new_stream()?;
        let d2h = ctx.new_stream()?;
        Ok(Reranker { ctx, compute, d2h, dim })
    }

    pub fn top_k(&self, query: &CudaSlice<f32>, docs: &CudaSlice<f32>, k: usize) -> Result<Vec<(usize, f32)>> {
        let f = self.ctx.load_module(compile_ptx(SCORE_SRC)?)?.load_function("pair_scores")?;
        let n_docs = (docs.len() / self.dim as usize) as u32;
        let mut scores = self.compute.alloc_zeros::<f32>(n_docs as usize)?;
        let mut b = self.compute.launch_builder(&f);
        b.arg(query).arg(docs).arg(&mut scores).arg(&self.dim).arg(&n_docs);
        unsafe { b.launch(LaunchConfig::for_num_elems(n_docs))? };

        let mut host = unsafe { self.ctx.alloc_pinned_with_flags::<f32>(n_docs as usize, 0)? };
        self.d2h.memcpy_dtoh(&scores, &mut host)?;

        let mut ranked: Vec<(usize, f32)> = host.as_slice()?.iter().copied().enumerate().collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        ranked.truncate(k);
        Ok(ranked)
    }
}
