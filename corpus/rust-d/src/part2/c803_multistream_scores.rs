//! case: a reranker scores batches on a compute stream and copies the scores back on a second stream into pinned memory allocated without the write-combined flag; the context has two streams, so cudarc records the kernel's write event, makes the copy stream wait for it, records the pinned buffer's event and `as_slice` waits on it
//! expect: none

use std::collections::VecDeque;
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

const MAX_DOCS: usize = 4096;
const DIM: usize = 768;

const SCORE_SRC: &str = r#"
extern "C" __global__ void dot_scores(const float* query, const float* docs, float* scores,
                                      unsigned int n_docs, unsigned int dim) {
    unsigned int d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d >= n_docs) return;
    float acc = 0.0f;
    for (unsigned int k = 0; k < dim; ++k) acc += query[k] * docs[(size_t)d * dim + k];
    scores[d] = acc;
}
"#;

pub struct Request {
    pub id: u64,
    pub n_docs: usize,
}

pub struct Reranker {
    compute: Arc<CudaStream>,
    copy: Arc<CudaStream>,
    score: CudaFunction,
    query: CudaSlice<f32>,
    docs: CudaSlice<f32>,
    scores_dev: CudaSlice<f32>,
    scores_host: PinnedHostSlice<f32>,
    queue: VecDeque<Request>,
}

impl Reranker {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        // Two streams: the context is in multi-stream mode from here on.
        let compute = ctx.new_stream()?;
        let copy = ctx.new_stream()?;
        let score = ctx.load_module(compile_ptx(SCORE_SRC)?)?.load_function("dot_scores")?;
        Ok(Self {
            query: compute.alloc_zeros::<f32>(DIM)?,
            docs: compute.alloc_zeros::<f32>(MAX_DOCS * DIM)?,
            scores_dev: compute.alloc_zeros::<f32>(MAX_DOCS)?,
            scores_host: unsafe { ctx.alloc_pinned_with_flags::<f32>(MAX_DOCS, 0)? },
            compute,
            copy,
            score,
            queue: VecDeque::new(),
        })
    }

    pub fn submit(&mut self, req: Request) {
        self.queue.push_back(req);
    }

    pub fn drain(&mut self) -> Result<Vec<(u64, usize, f32)>, DriverError> {
        let mut best = Vec::with_capacity(self.queue.len());
        while let Some(req) = self.queue.pop_front() {
            let n = req.n_docs.min(MAX_DOCS) as u32;
            let dim = DIM as u32;
            let mut launch = self.compute.launch_builder(&self.score);
            launch.arg(&self.query).arg(&self.docs).arg(&mut self.scores_dev).arg(&n).arg(&dim);
            unsafe { launch.launch(LaunchConfig::for_num_elems(n)) }?;

            // The copy stream waits for the kernel's write event; the pinned buffer's event is
            // recorded after the copy.
            self.copy.memcpy_dtoh(&self.scores_dev, &mut self.scores_host)?;
            let scores = self.scores_host.as_slice()?;
            let (arg, val) = scores[..n as usize]
                .iter()
                .copied()
                .enumerate()
                .fold((0, f32::MIN), |acc, (i, s)| if s > acc.1 { (i, s) } else { acc });
            best.push((req.id, arg, val));
        }
        Ok(best)
    }
}
