use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SHARD_SRC: &str = r#"
extern "C" __global__ void shard_topk(const float* vecs, const float* q, unsigned n, unsigned dim,
                                      unsigned k, unsigned long long* packed) {
    // one block per shard; thread 0 does a simple selection (shards are small)
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    for (unsigned j = 0; j < k; ++j) packed[j] = 0ull;
    for (unsigned i = 0; i < n; ++i) {
        float s = 0.0f;
        for (unsigned d = 0; d < dim; ++d) s += vecs[i * dim + d] * q[d];
        unsigned long long key = ((unsigned long long)__float_as_uint(s + 1000.0f) << 32) | i;
        for (unsigned j = 0; j < k; ++j) {
            if (key > packed[j]) { unsigned long long t = packed[j]; packed[j] = key; key = t; }
        }
    }
}
"#;

#[derive(Debug, Clone, Copy)]
pub struct ShardHit {
    pub doc: u64,
    pub score: f32,
}

pub struct ShardSearcher {
    shard_id: u32,
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    vectors: CudaSlice<f32>,
    query_dev: CudaSlice<f32>,
    query_host: PinnedHostSlice<f32>,
    packed_dev: CudaSlice<u64>,
    packed_host: PinnedHostSlice<u64>,
    dim: usize,
}

impl ShardSearcher {
    pub fn open(ctx: &Arc<CudaContext>, shard_id: u32, vectors: &PinnedHostSlice<f32>, dim: usize, max_k: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let kernel = ctx.load_module(compile_ptx(SHARD_SRC)?)?.load_function("shard_topk")?;
        let vectors = stream.clone_htod(vectors)?;
        Ok(Self {
            shard_id,
            kernel,
            vectors,
            query_dev: stream.alloc_zeros::<f32>(dim)?,
            query_host: unsafe { ctx.alloc_pinned_with_flags::<f32>(dim, 0)? },
            packed_dev: stream.alloc_zeros::<u64>(max_k)?,
            packed_host: unsafe { ctx.alloc_pinned_with_flags::<u64>(max_k, 0)? },
            stream,
            dim,
        })
    }

    pub fn search(&mut self, query: &[f32], k: usize) -> Result<Vec<ShardHit>, Box<dyn std::error::Error>> {
        self.query_host.as_mut_slice()?.copy_from_slice(&query[..self.dim]);
        self.stream.memcpy_htod(&self.query_host, &mut self.query_dev)?;
        let (n, dim, kk) = ((self.vectors.len() / self.dim) as u32, self.dim as u32, k as u32);
        let cfg = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (32, 1, 1), shared_mem_bytes: 0 };
        unsafe { self.stream.launch_builder(&self.kernel).arg(&self.vectors).arg(&self.query_dev).arg(&n).arg(&dim).arg(&kk).arg(&mut self.packed_dev).launch(cfg) }?;
        self.stream.memcpy_dtoh(&self.packed_dev, self.packed_host.as_mut_slice()?)?;
        let base = (self.shard_id as u64) << 40;
        let hits = self.packed_host.as_slice()?[..k].iter().filter(|&&p| p != 0).map(|&p| ShardHit { doc: base | (p & 0xFFFF_FFFF), score: f32::from_bits((p >> 32) as u32) - 1000.0 }).collect(); // EXPECT: missing_sync
        Ok(hits)
    }
}
