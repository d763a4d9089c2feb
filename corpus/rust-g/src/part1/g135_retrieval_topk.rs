//! case: dense retrieval on cudarc's default stream: the query (a fixed 768-float array) is uploaded, a similarity kernel scores the whole corpus, and `clone_dtoh` copies the scores (corpus-sized) into a new `Vec` that is ranked right away; the device-to-host copy into pageable memory returns only once it is complete, so the immediate read is fine, but the copy itself is a pageable "async" copy
//! expect: pageable_async_copy=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

pub const DIM: usize = 768;

const SIM_SRC: &str = r#"
extern "C" __global__ void cosine_scores(const float* q, const float* corpus, const float* norms,
                                         float* scores, unsigned dim, unsigned n) {
    unsigned d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d >= n) return;
    float s = 0.0f;
    for (unsigned k = 0; k < dim; ++k) s += q[k] * corpus[(size_t)d * dim + k];
    scores[d] = s / norms[d];
}
"#;

pub struct Index {
    stream: Arc<CudaStream>,
    corpus: CudaSlice<f32>,
    norms: CudaSlice<f32>,
    n_docs: usize,
}

impl Index {
    pub fn search(&self, query: &[f32; DIM], k: usize) -> Result<Vec<(usize, f32)>> {
        let ctx = self.stream.context();
        let f = ctx.load_module(compile_ptx(SIM_SRC)?)?.load_function("cosine_scores")?;
        let q = self.stream.clone_htod(query)?;
        let mut scores = self.stream.alloc_zeros::<f32>(self.n_docs)?;
        let (dim, n) = (DIM as u32, self.n_docs as u32);
        let mut b = self.stream.launch_builder(&f);
        b.arg(&q).arg(&self.corpus).arg(&self.norms).arg(&mut scores).arg(&dim).arg(&n);
        unsafe { b.launch(LaunchConfig::for_num_elems(n))? };

        let host_scores = self.stream.clone_dtoh(&scores)?; // EXPECT: pageable_async_copy
        let mut ranked: Vec<(usize, f32)> = host_scores.into_iter().enumerate().collect();
        let k = k.min(ranked.len());
        if k == 0 {
            return Ok(Vec::new());
        }
        ranked.select_nth_unstable_by(k - 1, |a, b| b.1.total_cmp(&a.1));
        ranked.truncate(k);
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        Ok(ranked)
    }
}

pub fn open(corpus: CudaSlice<f32>, norms: CudaSlice<f32>) -> Index {
    let stream = corpus.context().default_stream();
    let n_docs = norms.len();
    Index { stream, corpus, norms, n_docs }
}
