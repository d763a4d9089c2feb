//! case: cudarc embedding service: token ids go up from an alloc_pinned (write-combined) buffer the host only fills, embeddings come back into memory from alloc_pinned_with_flags(PORTABLE) (not write-combined) and are read after the stream is synchronized
//! expect: none
use cudarc::driver::sys;
use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::sync::Arc;

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const GATHER_SRC: &str = r#"
extern "C" __global__ void gather_rows(const float* table, const unsigned int* ids, float* out,
                                       unsigned int dim, unsigned int count) {
    unsigned int t = blockIdx.x;
    if (t >= count) return;
    const float* src = table + (unsigned long long)ids[t] * dim;
    for (unsigned int d = threadIdx.x; d < dim; d += blockDim.x) out[t * dim + d] = src[d];
}
"#;

pub struct EmbeddingService {
    stream: Arc<CudaStream>,
    gather: CudaFunction,
    table: CudaSlice<f32>,
    ids_up: PinnedHostSlice<u32>,
    rows_down: PinnedHostSlice<f32>,
    d_ids: CudaSlice<u32>,
    d_rows: CudaSlice<f32>,
    dim: usize,
    max_tokens: usize,
}

impl EmbeddingService {
    pub fn new(ctx: &Arc<CudaContext>, table: CudaSlice<f32>, dim: usize, max_tokens: usize) -> Res<Self> {
        let stream = ctx.new_stream()?;
        let gather = ctx.load_module(compile_ptx(GATHER_SRC)?)?.load_function("gather_rows")?;
        Ok(EmbeddingService {
            ids_up: unsafe { ctx.alloc_pinned::<u32>(max_tokens) }?,
            rows_down: unsafe { ctx.alloc_pinned_with_flags::<f32>(max_tokens * dim, sys::CU_MEMHOSTALLOC_PORTABLE) }?,
            d_ids: stream.alloc_zeros::<u32>(max_tokens)?,
            d_rows: stream.alloc_zeros::<f32>(max_tokens * dim)?,
            stream,
            gather,
            table,
            dim,
            max_tokens,
        })
    }

    pub fn embed(&mut self, ids: &[u32]) -> Res<Vec<Vec<f32>>> {
        let count = ids.len().min(self.max_tokens);
        self.ids_up.as_mut_slice()?[..count].copy_from_slice(&ids[..count]);
        self.stream.memcpy_htod(&self.ids_up, &mut self.d_ids)?;
        let (dim, cnt) = (self.dim as u32, count as u32);
        let cfg = LaunchConfig { grid_dim: (cnt.max(1), 1, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
        unsafe {
            self.stream
                .launch_builder(&self.gather)
                .arg(&self.table)
                .arg(&self.d_ids)
                .arg(&mut self.d_rows)
                .arg(&dim)
                .arg(&cnt)
                .launch(cfg)?;
        }
        self.stream.memcpy_dtoh(&self.d_rows, &mut self.rows_down)?;
        self.stream.synchronize()?;
        let rows = self.rows_down.as_slice()?;
        Ok(rows.chunks(self.dim).take(count).map(<[f32]>::to_vec).collect())
    }
}
