//! case: feature store keeps one physical allocation behind two VMM views (runtime layer); the ingest stream writes rows through the write view and the scoring stream reads them through the read view, with no event between the two streams
//! expect: unfenced_vmm_alias=1
use cuda_lint_runtime::{
    Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, PinnedBuffer, Result, Stream, VirtualRange,
};

const KERNELS: &str = r#"
extern "C" __global__ void ingest_rows(float* rows, const float* staged, unsigned int n, float decay) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) rows[i] = rows[i] * decay + staged[i];
}

extern "C" __global__ void score_rows(const float* rows, const float* weights, float* scores,
                                      unsigned int dim, unsigned int nrows) {
    unsigned int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= nrows) return;
    float acc = 0.f;
    for (unsigned int k = 0; k < dim; ++k) acc += rows[r * dim + k] * weights[k];
    scores[r] = acc;
}
"#;

pub struct FeatureStore {
    ctx: Context,
    write_view: Mapping,
    read_view: Mapping,
    ingest: Kernel,
    score: Kernel,
    ingest_stream: Stream,
    score_stream: Stream,
    dim: usize,
    rows: usize,
}

impl FeatureStore {
    pub fn open(dim: usize, rows: usize) -> Result<FeatureStore> {
        let ctx = Context::new(0)?;
        let gran = ctx.vmm_granularity()?;
        let bytes = (dim * rows * 4).div_ceil(gran) * gran;
        let physical = PhysicalAllocation::new(&ctx, bytes)?;
        let write_view = VirtualRange::reserve(&ctx, bytes)?.map(&physical, 0)?;
        let read_view = VirtualRange::reserve(&ctx, bytes)?.map(&physical, 0)?;
        let module = ctx.load_cuda(KERNELS)?;
        Ok(FeatureStore {
            ingest: module.function("ingest_rows")?,
            score: module.function("score_rows")?,
            ingest_stream: ctx.new_stream()?,
            score_stream: ctx.new_stream()?,
            write_view,
            read_view,
            ctx,
            dim,
            rows,
        })
    }

    /// Blends a staged batch into the table (on the ingest stream).
    pub fn ingest(&self, staged: &DeviceBuffer<f32>, decay: f32) -> Result<()> {
        let n = (self.dim * self.rows) as u32;
        unsafe {
            self.ingest_stream
                .launch(&self.ingest, LaunchConfig::for_num_elems(n), &[&self.write_view, staged, &n, &decay])
        }
    }

    /// Scores every row against `weights` (on the scoring stream) and returns the scores.
    pub fn score(&self, weights: &DeviceBuffer<f32>, scores: &mut DeviceBuffer<f32>, out: &mut PinnedBuffer<f32>) -> Result<()> {
        let (dim, nrows) = (self.dim as u32, self.rows as u32);
        unsafe {
            self.score_stream.launch(&self.score, LaunchConfig::for_num_elems(nrows), &[&self.read_view, weights, &*scores, &dim, &nrows])?; // EXPECT: unfenced_vmm_alias
            self.score_stream.copy_dtoh_async(&mut out[..], scores)?;
        }
        self.score_stream.synchronize()
    }
}

pub fn refresh_and_score(batches: &[DeviceBuffer<f32>], weights: &DeviceBuffer<f32>, dim: usize, rows: usize) -> Result<Vec<f32>> {
    let store = FeatureStore::open(dim, rows)?;
    for b in batches {
        store.ingest(b, 0.9)?;
    }
    let mut scores = store.ctx.alloc::<f32>(rows)?;
    let mut out = store.ctx.alloc_pinned::<f32>(rows)?;
    store.score(weights, &mut scores, &mut out)?;
    store.ingest_stream.synchronize()?;
    Ok(out.to_vec())
}
