use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use super::backend::{Backend, BackendError};

const GATHER_SRC: &str = r#"
extern "C" __global__ void gather_rows(const unsigned* tokens, const float* table, float* out, unsigned n, unsigned dim) {
    unsigned t = blockIdx.x;
    if (t >= n) return;
    for (unsigned d = threadIdx.x; d < dim; d += blockDim.x)
        out[t * dim + d] = table[tokens[t] * dim + d];
}
"#;

pub struct GpuBackend {
    stream: Arc<CudaStream>,
    gather: CudaFunction,
    table: CudaSlice<f32>,
    tokens_host: PinnedHostSlice<u32>,
    tokens_dev: CudaSlice<u32>,
    out_dev: CudaSlice<f32>,
    out_host: PinnedHostSlice<f32>,
    dim: usize,
    max_tokens: usize,
    pub profile: bool,
}

impl GpuBackend {
    pub fn new(ordinal: usize, table_host: &PinnedHostSlice<f32>, dim: usize, max_tokens: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let ctx = CudaContext::new(ordinal)?;
        let stream = ctx.default_stream();
        let gather = ctx.load_module(compile_ptx(GATHER_SRC)?)?.load_function("gather_rows")?;
        Ok(Self {
            table: stream.clone_htod(table_host)?,
            tokens_host: unsafe { ctx.alloc_pinned_with_flags::<u32>(max_tokens, 0)? },
            tokens_dev: stream.alloc_zeros::<u32>(max_tokens)?,
            out_dev: stream.alloc_zeros::<f32>(max_tokens * dim)?,
            out_host: unsafe { ctx.alloc_pinned_with_flags::<f32>(max_tokens * dim, 0)? },
            stream,
            gather,
            dim,
            max_tokens,
            profile: false,
        })
    }
}

impl Backend for GpuBackend {
    fn name(&self) -> &str {
        "gpu"
    }

    fn embed(&mut self, tokens: &[u32]) -> Result<Vec<f32>, BackendError> {
        if tokens.len() > self.max_tokens {
            return Err(BackendError::TooManyTokens(tokens.len()));
        }
        // the previous request may still be reading the token staging
        self.stream.synchronize()?;
        self.tokens_host.as_mut_slice()?[..tokens.len()].copy_from_slice(tokens);
        let started = Instant::now();
        self.stream.memcpy_htod(&self.tokens_host, &mut self.tokens_dev)?;
        let (n, dim) = (tokens.len() as u32, self.dim as u32);
        let cfg = LaunchConfig { grid_dim: (n.max(1), 1, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
        unsafe {
            self.stream
                .launch_builder(&self.gather)
                .arg(&self.tokens_dev)
                .arg(&self.table)
                .arg(&mut self.out_dev)
                .arg(&n)
                .arg(&dim)
                .launch(cfg)?
        };
        self.stream.memcpy_dtoh(&self.out_dev, &mut self.out_host)?;
        if self.profile {
            self.stream.synchronize()?;
            eprintln!("gpu embed: {} tokens in {:?}", tokens.len(), started.elapsed());
        }
        let out = self.out_host.as_slice()?[..tokens.len() * self.dim].to_vec(); // EXPECT: missing_sync
        Ok(out)
    }
}
