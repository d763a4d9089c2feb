//! case: vector-search query service uploads each batch of query embeddings straight from the request's `Vec<f32>` and clones the full score matrix back into a `Vec`; both cudarc copies go through pageable memory (the read after `clone_dtoh` itself is complete)
//! expect: pageable_async_copy=2

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SCORE_SRC: &str = r#"
extern "C" __global__ void dot_scores(const float* corpus, const float* queries, float* scores,
                                      unsigned n_corpus, unsigned n_queries, unsigned dim) {
    unsigned c = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned q = blockIdx.y;
    if (c >= n_corpus || q >= n_queries) return;
    float acc = 0.0f;
    for (unsigned d = 0; d < dim; ++d) acc += corpus[c * dim + d] * queries[q * dim + d];
    scores[q * n_corpus + c] = acc;
}
"#;

pub struct QueryBatch {
    pub request_ids: Vec<u64>,
    pub queries: Vec<f32>,
    pub k: usize,
}

pub struct Hit {
    pub request_id: u64,
    pub doc: u32,
    pub score: f32,
}

pub trait Scorer {
    fn search(&mut self, batch: &QueryBatch) -> Result<Vec<Hit>, Box<dyn std::error::Error>>;
}

pub struct FlatIndex {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    corpus: CudaSlice<f32>,
    n_corpus: usize,
    dim: usize,
    query_dev: CudaSlice<f32>,
    scores_dev: CudaSlice<f32>,
}

impl FlatIndex {
    pub fn open(ctx: &Arc<CudaContext>, corpus: CudaSlice<f32>, dim: usize, max_queries: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let kernel = ctx.load_module(compile_ptx(SCORE_SRC)?)?.load_function("dot_scores")?;
        let n_corpus = corpus.len() / dim;
        let query_dev = stream.alloc_zeros::<f32>(max_queries * dim)?;
        let scores_dev = stream.alloc_zeros::<f32>(max_queries * n_corpus)?;
        Ok(Self { stream, kernel, corpus, n_corpus, dim, query_dev, scores_dev })
    }
}

fn top_k(row: &[f32], k: usize) -> Vec<(u32, f32)> {
    let mut idx: Vec<(u32, f32)> = row.iter().enumerate().map(|(i, &s)| (i as u32, s)).collect();
    idx.sort_unstable_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal));
    idx.truncate(k);
    idx
}

impl Scorer for FlatIndex {
    fn search(&mut self, batch: &QueryBatch) -> Result<Vec<Hit>, Box<dyn std::error::Error>> {
        let nq = batch.request_ids.len();
        if nq == 0 {
            return Ok(Vec::new());
        }
        self.stream.memcpy_htod(&batch.queries, &mut self.query_dev)?; // EXPECT: pageable_async_copy
        let cfg = LaunchConfig {
            grid_dim: ((self.n_corpus as u32).div_ceil(256), nq as u32, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        let (nc, nqu, dim) = (self.n_corpus as u32, nq as u32, self.dim as u32);
        let mut launch = self.stream.launch_builder(&self.kernel);
        launch.arg(&self.corpus).arg(&self.query_dev).arg(&mut self.scores_dev).arg(&nc).arg(&nqu).arg(&dim);
        unsafe { launch.launch(cfg) }?;
        let scores: Vec<f32> = self.stream.clone_dtoh(&self.scores_dev)?; // EXPECT: pageable_async_copy
        let hits = batch
            .request_ids
            .iter()
            .enumerate()
            .flat_map(|(q, &rid)| {
                let row = &scores[q * self.n_corpus..(q + 1) * self.n_corpus];
                top_k(row, batch.k).into_iter().map(move |(doc, score)| Hit { request_id: rid, doc, score })
            })
            .collect();
        Ok(hits)
    }
}
