//! case: a retrieval top-k enqueues the scoring kernel and the download of candidate ids into pinned memory, then returns early from the pinned buffer when the caller asked for no more ids than the cached prefix, skipping the synchronize that the normal path does
//! expect: missing_sync=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const RANK_SRC: &str = r#"
extern "C" __global__ void rank_by_threshold(const float* scores, unsigned* ids, unsigned* count, unsigned n, float thr) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && scores[i] >= thr) ids[atomicAdd(count, 1u)] = i;
}
"#;

pub struct TopK {
    stream: Stream,
    kernel: Kernel,
    ids: DeviceBuffer<u32>,
    count: DeviceBuffer<u32>,
    ids_host: PinnedBuffer<u32>,
    count_host: PinnedBuffer<u32>,
    cached: usize,
}

impl TopK {
    pub fn new(ctx: &Context, max_docs: usize) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(RANK_SRC)?.function("rank_by_threshold")?,
            ids: ctx.alloc(max_docs)?,
            count: ctx.alloc_zeroed(1)?,
            ids_host: ctx.alloc_pinned(max_docs)?,
            count_host: ctx.alloc_pinned(1)?,
            cached: 0,
        })
    }

    /// Ids of the documents scoring at least `thr`, at most `k` of them.
    pub fn query(&mut self, scores: &DeviceBuffer<f32>, thr: f32, k: usize) -> Result<Vec<u32>> {
        let n = scores.len() as u32;
        self.stream.memset_d32_async(&mut self.count, 0)?;
        unsafe {
            self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(n), &[scores, &self.ids, &self.count, &n, &thr])?;
            self.stream.copy_dtoh_async(&mut self.count_host, &self.count)?;
            self.stream.copy_dtoh_async(&mut self.ids_host, &self.ids)?;
        }
        if k <= self.cached {
            // Enough candidates from the previous query: skip the wait.
            return Ok(self.ids_host[..k].to_vec()); // EXPECT: missing_sync
        }
        self.stream.synchronize()?;
        let found = (self.count_host[0] as usize).min(k);
        self.cached = found;
        Ok(self.ids_host[..found].to_vec())
    }
}
