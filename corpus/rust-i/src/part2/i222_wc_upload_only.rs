//! case: dedup service computing chunk fingerprints (cudarc): input chunks are staged through CudaContext::alloc_pinned memory (write-combined) that the host only ever writes, and each chunk's upload is synchronized before the staging buffer is overwritten; fingerprints come back through a small array (near-miss)
//! expect: none

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::collections::HashSet;
use std::sync::Arc;

const FP_SRC: &str = r#"
extern "C" __global__ void fingerprint(const unsigned char* data, unsigned n, unsigned long long* out) {
    __shared__ unsigned long long part[256];
    unsigned long long h = 1469598103934665603ull;
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x) h = (h ^ data[i]) * 1099511628211ull + i;
    part[threadIdx.x] = h;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long acc = 0;
        for (unsigned t = 0; t < blockDim.x; ++t) acc ^= part[t] + (acc << 6) + (acc >> 2);
        out[0] = acc;
    }
}
"#;

pub struct Deduper {
    stream: Arc<CudaStream>,
    fingerprint: CudaFunction,
    staging: PinnedHostSlice<u8>,
    d_chunk: CudaSlice<u8>,
    d_fp: CudaSlice<u64>,
    seen: HashSet<u64>,
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

impl Deduper {
    pub fn new(ctx: &Arc<CudaContext>, chunk_size: usize) -> Res<Self> {
        let stream = ctx.default_stream();
        Ok(Deduper {
            fingerprint: ctx.load_module(compile_ptx(FP_SRC)?)?.load_function("fingerprint")?,
            // Upload-only buffer: write-combining is what we want here.
            staging: unsafe { ctx.alloc_pinned::<u8>(chunk_size)? },
            d_chunk: stream.alloc_zeros(chunk_size)?,
            d_fp: stream.alloc_zeros(1)?,
            seen: HashSet::new(),
            stream,
        })
    }

    /// Returns the indices of chunks not seen before.
    pub fn new_chunks<'a>(&mut self, chunks: impl IntoIterator<Item = &'a [u8]>) -> Res<Vec<usize>> {
        let mut fresh = Vec::new();
        for (idx, chunk) in chunks.into_iter().enumerate() {
            let len = chunk.len().min(self.staging.len());
            {
                let dst = self.staging.as_mut_slice()?;
                dst[..len].copy_from_slice(&chunk[..len]);
                dst[len..].fill(0);
            }
            self.stream.memcpy_htod(&self.staging, &mut self.d_chunk)?;
            let n = len as u32;
            unsafe {
                self.stream
                    .launch_builder(&self.fingerprint)
                    .arg(&self.d_chunk)
                    .arg(&n)
                    .arg(&mut self.d_fp)
                    .launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 })?;
            }
            let mut fp = [0u64; 1];
            self.stream.memcpy_dtoh(&self.d_fp, &mut fp)?;
            self.stream.synchronize()?;
            if self.seen.insert(fp[0]) {
                fresh.push(idx);
            }
        }
        Ok(fresh)
    }
}
