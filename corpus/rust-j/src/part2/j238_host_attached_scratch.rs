//! case: near-miss. Stream dedup stage keeps its seen-hash table in cudarc managed memory allocated host-attached (`alloc_unified(.., false)`, CU_MEM_ATTACH_HOST) and updates it from the host while the hashing kernel runs on other buffers; host-attached memory is not taken by kernels, so the host may use it concurrently
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const HASH_SRC: &str = r#"
extern "C" __global__ void hash_keys(const unsigned long long* keys, unsigned long long* hashes, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long x = keys[i];
    x ^= x >> 33; x *= 0xff51afd7ed558ccdull; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ull; x ^= x >> 33;
    hashes[i] = x;
}
"#;

pub struct DedupStage {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    hashes_dev: CudaSlice<u64>,
    prev_hashes: PinnedHostSlice<u64>,
    prev_len: usize,
    seen: UnifiedSlice<u64>,
    buckets: usize,
}

impl DedupStage {
    pub fn new(ctx: &Arc<CudaContext>, batch: usize, buckets: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let kernel = ctx.load_module(compile_ptx(HASH_SRC)?)?.load_function("hash_keys")?;
        let mut seen = unsafe { ctx.alloc_unified::<u64>(buckets, false)? };
        seen.as_mut_slice()?.fill(0);
        Ok(Self {
            hashes_dev: stream.alloc_zeros::<u64>(batch)?,
            prev_hashes: unsafe { ctx.alloc_pinned_with_flags::<u64>(batch, 0)? },
            prev_len: 0,
            stream,
            kernel,
            seen,
            buckets,
        })
    }

    /// Hashes `keys` on the GPU while the host folds the previous batch into the seen table.
    /// Returns how many of the previous batch's keys were new.
    pub fn process(&mut self, keys: &CudaSlice<u64>) -> Result<usize, DriverError> {
        let n = keys.len() as u32;
        unsafe { self.stream.launch_builder(&self.kernel).arg(keys).arg(&mut self.hashes_dev).arg(&n).launch(LaunchConfig::for_num_elems(n)) }?;
        let mut fresh = 0;
        let buckets = self.buckets as u64;
        let prev: Vec<u64> = self.prev_hashes.as_slice()?[..self.prev_len].to_vec();
        let seen = self.seen.as_mut_slice()?;
        for h in prev {
            let slot = (h % buckets) as usize;
            if seen[slot] != h {
                seen[slot] = h;
                fresh += 1;
            }
        }
        self.stream.synchronize()?;
        self.stream.memcpy_dtoh(&self.hashes_dev, &mut self.prev_hashes)?;
        self.stream.synchronize()?;
        self.prev_len = n as usize;
        Ok(fresh)
    }
}
