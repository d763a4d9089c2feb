//! case: near-miss of the raw-pointer cross-stream race: the kernel goes through cudarc's launch builder with the `CudaSlice` itself, so cudarc records the write event after the launch; the copy stream's `memcpy_dtoh` waits on it and `as_slice` waits on the pinned buffer's event
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const BM25_SRC: &str = r#"
extern "C" __global__ void bm25(const float* tf, const float* idf, const float* doc_len, float* score,
                                float avg_len, int n_docs, int n_terms) {
    int d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d >= n_docs) return;
    const float k1 = 1.2f, b = 0.75f;
    float s = 0.f, norm = k1 * (1.f - b + b * doc_len[d] / avg_len);
    for (int t = 0; t < n_terms; ++t) { float f = tf[d * n_terms + t]; s += idf[t] * f * (k1 + 1.f) / (f + norm); }
    score[d] = s;
}
"#;

pub struct Ranker {
    ctx: Arc<CudaContext>,
    compute: Arc<CudaStream>,
    copy: Arc<CudaStream>,
    bm25: CudaFunction,
}

impl Ranker {
    pub fn new(ctx: Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        let bm25 = ctx.load_module(compile_ptx(BM25_SRC)?)?.load_function("bm25")?;
        Ok(Self { compute: ctx.new_stream()?, copy: ctx.new_stream()?, bm25, ctx })
    }

    pub fn top_k(&self, tf: &CudaSlice<f32>, idf: &CudaSlice<f32>, doc_len: &CudaSlice<f32>, avg_len: f32, k: usize) -> Result<Vec<(usize, f32)>, Box<dyn std::error::Error>> {
        let n_docs = doc_len.len();
        let (nd, nt) = (n_docs as i32, idf.len() as i32);
        let mut scores = self.compute.alloc_zeros::<f32>(n_docs)?;
        let mut launch = self.compute.launch_builder(&self.bm25);
        launch.arg(tf).arg(idf).arg(doc_len).arg(&mut scores).arg(&avg_len).arg(&nd).arg(&nt);
        unsafe { launch.launch(LaunchConfig::for_num_elems(n_docs as u32))? };

        let mut host = unsafe { self.ctx.alloc_pinned_with_flags::<f32>(n_docs, 0)? };
        self.copy.memcpy_dtoh(&scores, &mut host)?;
        let mut ranked: Vec<(usize, f32)> = host.as_slice()?.iter().copied().enumerate().collect();
        ranked.sort_unstable_by(|a, b| b.1.total_cmp(&a.1));
        ranked.truncate(k);
        Ok(ranked)
    }
}
