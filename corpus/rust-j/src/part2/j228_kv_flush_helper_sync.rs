//! case: near-miss. KV-store memtable flush computes per-block checksums on the GPU (cudarc, context's only stream) and reads them from a pinned (flags 0) slice; the read comes after `wait_idle`, a helper that synchronizes the stream, so the data is complete
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const CKSUM_SRC: &str = r#"
extern "C" __global__ void block_checksums(const unsigned* data, unsigned words_per_block, unsigned n_blocks, unsigned* out) {
    unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= n_blocks) return;
    unsigned h = 2166136261u;
    for (unsigned w = 0; w < words_per_block; ++w) h = (h ^ data[b * words_per_block + w]) * 16777619u;
    out[b] = h;
}
"#;

pub struct SstWriter {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    sums_dev: CudaSlice<u32>,
    sums_host: PinnedHostSlice<u32>,
    words_per_block: u32,
}

pub struct BlockIndexEntry {
    pub block: u32,
    pub checksum: u32,
}

impl SstWriter {
    pub fn new(ctx: &Arc<CudaContext>, max_blocks: usize, words_per_block: u32) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.default_stream();
        let kernel = ctx.load_module(compile_ptx(CKSUM_SRC)?)?.load_function("block_checksums")?;
        Ok(Self {
            sums_dev: stream.alloc_zeros::<u32>(max_blocks)?,
            sums_host: unsafe { ctx.alloc_pinned_with_flags::<u32>(max_blocks, 0)? },
            stream,
            kernel,
            words_per_block,
        })
    }

    fn wait_idle(&self) -> Result<(), DriverError> {
        self.stream.synchronize()
    }

    fn launch_checksums(&mut self, data: &CudaSlice<u32>, n_blocks: u32) -> Result<(), DriverError> {
        let wpb = self.words_per_block;
        unsafe { self.stream.launch_builder(&self.kernel).arg(data).arg(&wpb).arg(&n_blocks).arg(&mut self.sums_dev).launch(LaunchConfig::for_num_elems(n_blocks)) }?;
        Ok(())
    }

    pub fn flush(&mut self, data: &CudaSlice<u32>) -> Result<Vec<BlockIndexEntry>, DriverError> {
        let n_blocks = (data.len() as u32) / self.words_per_block;
        if n_blocks == 0 {
            return Ok(Vec::new());
        }
        self.launch_checksums(data, n_blocks)?;
        self.stream.memcpy_dtoh(&self.sums_dev, &mut self.sums_host)?;
        self.wait_idle()?;
        let index = self.sums_host.as_slice()?[..n_blocks as usize]
            .iter()
            .enumerate()
            .map(|(i, &checksum)| BlockIndexEntry { block: i as u32, checksum })
            .collect();
        Ok(index)
    }
}
