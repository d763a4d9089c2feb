//! case: embedding service on cudarc's default stream only: a gather kernel fills the output, `memcpy_dtoh` copies it into non-write-combined pinned memory, and `as_slice` is read for L2 normalisation; with a single stream cudarc records no event on the pinned slice, so nothing waited for the copy
//! expect: missing_sync=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const GATHER_SRC: &str = r#"
extern "C" __global__ void gather_rows(const float* table, const unsigned* ids,
                                       float* out, unsigned dim, unsigned n_ids) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < dim * n_ids) {
        unsigned r = i / dim, c = i % dim;
        out[i] = table[(size_t)ids[r] * dim + c];
    }
}
"#;

pub const BATCH: usize = 64;

pub struct EmbeddingService {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    table: CudaSlice<f32>,
    gather: CudaFunction,
    dim: usize,
}

impl EmbeddingService {
    pub fn new(vocab: usize, dim: usize) -> Result<Self> {
        let ctx = CudaContext::new(0)?;
        let stream = ctx.default_stream();
        let module = ctx.load_module(compile_ptx(GATHER_SRC)?)?;
        let gather = module.load_function("gather_rows")?;
        let table = stream.alloc_zeros::<f32>(vocab * dim)?;
        Ok(Self { ctx, stream, table, gather, dim })
    }

    pub fn embed(&self, ids: &[u32; BATCH]) -> Result<Vec<Vec<f32>>> {
        let ids_dev = self.stream.clone_htod(ids)?;
        let mut out = self.stream.alloc_zeros::<f32>(BATCH * self.dim)?;
        let dim = self.dim as u32;
        let n = BATCH as u32;
        let mut launch = self.stream.launch_builder(&self.gather);
        launch.arg(&self.table).arg(&ids_dev).arg(&mut out).arg(&dim).arg(&n);
        unsafe { launch.launch(LaunchConfig::for_num_elems(dim * n))? };

        let mut host = unsafe { self.ctx.alloc_pinned_with_flags::<f32>(BATCH * self.dim, 0)? };
        self.stream.memcpy_dtoh(&out, &mut host)?;

        let rows = host.as_slice()?; // EXPECT: missing_sync
        Ok(rows
            .chunks(self.dim)
            .map(|row| {
                let norm = row.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
                row.iter().map(|x| x / norm).collect()
            })
            .collect())
    }
}

pub fn serve_once() -> Result<usize> {
    let svc = EmbeddingService::new(32_000, 384)?;
    let mut ids = [0u32; BATCH];
    ids.iter_mut().enumerate().for_each(|(i, id)| *id = (i as u32 * 577) % 32_000);
    Ok(svc.embed(&ids)?.len())
}
