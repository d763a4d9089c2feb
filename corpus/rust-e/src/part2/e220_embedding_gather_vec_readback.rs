//! case: an embedding table gathers rows on the GPU and returns them by copying into a freshly allocated `Vec`; that `memcpy_dtoh` is an async copy into pageable memory of ids x dim floats (the ids go up through write-only pinned memory and the out-of-range counter is a 4-byte copy, both fine)
//! expect: pageable_async_copy=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const GATHER_SRC: &str = r#"
extern "C" __global__ void gather_rows(const float* table, const unsigned int* ids, float* out,
                                       unsigned int n_ids, unsigned int dim, unsigned int vocab,
                                       unsigned int* out_of_range) {
    unsigned int k = blockIdx.x;
    unsigned int d = threadIdx.x;
    if (k >= n_ids) return;
    unsigned int id = ids[k];
    if (id >= vocab) { if (d == 0) atomicAdd(out_of_range, 1u); return; }
    for (unsigned int j = d; j < dim; j += blockDim.x) out[k * dim + j] = table[id * dim + j];
}
"#;

pub struct EmbeddingTable {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    table: CudaSlice<f32>,
    vocab: u32,
    dim: u32,
    gather: CudaFunction,
}

#[derive(Debug)]
pub enum LookupError {
    Driver(DriverError),
    OutOfRange(u32),
}

impl From<DriverError> for LookupError {
    fn from(e: DriverError) -> Self {
        LookupError::Driver(e)
    }
}

impl EmbeddingTable {
    pub fn new(ctx: Arc<CudaContext>, stream: Arc<CudaStream>, table: CudaSlice<f32>, vocab: u32, dim: u32) -> Result<Self, Box<dyn std::error::Error>> {
        let gather = ctx.load_module(compile_ptx(GATHER_SRC)?)?.load_function("gather_rows")?;
        Ok(Self { ctx, stream, table, vocab, dim, gather })
    }

    pub fn lookup(&self, ids: &[u32]) -> Result<Vec<f32>, LookupError> {
        let n = ids.len() as u32;
        let mut ids_host = unsafe { self.ctx.alloc_pinned::<u32>(ids.len())? };
        ids_host.as_mut_slice()?.copy_from_slice(ids);
        let ids_dev = self.stream.clone_htod(&ids_host)?;
        let mut rows = self.stream.alloc_zeros::<f32>(ids.len() * self.dim as usize)?;
        let mut oob = self.stream.alloc_zeros::<u32>(1)?;

        let cfg = LaunchConfig { grid_dim: (n, 1, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
        let mut launch = self.stream.launch_builder(&self.gather);
        launch.arg(&self.table).arg(&ids_dev).arg(&mut rows).arg(&n).arg(&self.dim).arg(&self.vocab).arg(&mut oob);
        unsafe { launch.launch(cfg)? };

        let mut out = vec![0.0f32; ids.len() * self.dim as usize];
        self.stream.memcpy_dtoh(&rows, &mut out)?; // EXPECT: pageable_async_copy
        let mut bad = [0u32; 1];
        self.stream.memcpy_dtoh(&oob, &mut bad)?;
        match bad[0] {
            0 => Ok(out),
            k => Err(LookupError::OutOfRange(k)),
        }
    }
}
