//! case: a retrieval scorer on its own cudarc stream copies the scores into cached pinned memory but passes the destination as a plain `&mut [f32]` (`as_mut_slice()?`), so cudarc records no event on the pinned buffer and the later `as_slice()` waits for nothing: top-k selection reads scores the copy has not written yet
//! expect: missing_sync=1

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SCORE_SRC: &str = r#"
extern "C" __global__ void cosine_scores(const float* docs, const float* query, float* scores, unsigned int dim, unsigned int ndocs)
{
    unsigned int d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d >= ndocs) return;
    const float* v = docs + (size_t)d * dim;
    float dot = 0.0f, nv = 0.0f, nq = 0.0f;
    for (unsigned int k = 0; k < dim; ++k) { dot += v[k] * query[k]; nv += v[k] * v[k]; nq += query[k] * query[k]; }
    scores[d] = dot * rsqrtf(nv * nq + 1e-12f);
}

extern "C" __global__ void synth_docs(float* docs, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) docs[i] = __sinf(0.37f * i) + 0.1f * (i % 7);
}
"#;

pub const DIM: u32 = 16;

pub struct Scorer {
    stream: Arc<CudaStream>,
    score: CudaFunction,
    docs: CudaSlice<f32>,
    query: CudaSlice<f32>,
    scores: CudaSlice<f32>,
    host_scores: PinnedHostSlice<f32>,
    dim: u32,
    ndocs: u32,
}

impl Scorer {
    pub fn new(ctx: &Arc<CudaContext>, ndocs: u32) -> Result<Self, Box<dyn Error>> {
        let dim = DIM;
        let stream = ctx.new_stream()?;
        let module = ctx.load_module(compile_ptx(SCORE_SRC)?)?;
        let synth = module.load_function("synth_docs")?;
        let mut docs = stream.alloc_zeros::<f32>((dim * ndocs) as usize)?;
        let total = dim * ndocs;
        unsafe { stream.launch_builder(&synth).arg(&mut docs).arg(&total).launch(LaunchConfig::for_num_elems(total))? };
        Ok(Self {
            score: module.load_function("cosine_scores")?,
            query: stream.alloc_zeros::<f32>(DIM as usize)?,
            scores: stream.alloc_zeros::<f32>(ndocs as usize)?,
            host_scores: unsafe { ctx.alloc_pinned_with_flags::<f32>(ndocs as usize, 0)? },
            docs,
            stream,
            dim,
            ndocs,
        })
    }

    /// Indices of the `k` best documents for a `DIM`-dimensional `query`.
    pub fn top_k(&mut self, query: &[f32; DIM as usize], k: usize) -> Result<Vec<(usize, f32)>, Box<dyn Error>> {
        self.stream.memcpy_htod(query, &mut self.query)?;
        unsafe {
            self.stream
                .launch_builder(&self.score)
                .arg(&self.docs)
                .arg(&self.query)
                .arg(&mut self.scores)
                .arg(&self.dim)
                .arg(&self.ndocs)
                .launch(LaunchConfig::for_num_elems(self.ndocs))?;
        }
        self.stream.memcpy_dtoh(&self.scores, self.host_scores.as_mut_slice()?)?;

        let mut ranked: Vec<(usize, f32)> = self.host_scores.as_slice()?.iter().copied().enumerate().collect(); // EXPECT: missing_sync
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        ranked.truncate(k);
        self.stream.synchronize()?;
        Ok(ranked)
    }
}

pub fn run() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let mut scorer = Scorer::new(&ctx, 100_000)?;
    let query: [f32; 16] = std::array::from_fn(|i| (i as f32 * 0.3).cos());
    for (doc, s) in scorer.top_k(&query, 5)? {
        println!("doc {doc}: {s:.4}");
    }
    Ok(())
}
