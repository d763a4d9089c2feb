use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

use super::build::{BuildSide, JOIN_SRC};

pub struct ProbeResult {
    pub matched_rows: Vec<u32>,
}

pub struct ProbeSide {
    kernel: Kernel,
    keys_host: PinnedBuffer<u64>,
    keys_dev: DeviceBuffer<u64>,
    pairs_dev: DeviceBuffer<u32>,
    count_dev: DeviceBuffer<u32>,
    pairs_host: PinnedBuffer<u32>,
    count_host: PinnedBuffer<u32>,
}

impl ProbeSide {
    pub fn new(ctx: &Context, max_probe: usize) -> Result<Self> {
        Ok(Self {
            kernel: ctx.load_cuda(JOIN_SRC)?.function("probe_table")?,
            keys_host: ctx.alloc_pinned::<u64>(max_probe)?,
            keys_dev: ctx.alloc::<u64>(max_probe)?,
            pairs_dev: ctx.alloc::<u32>(max_probe)?,
            count_dev: ctx.alloc::<u32>(1)?,
            pairs_host: ctx.alloc_pinned::<u32>(max_probe)?,
            count_host: ctx.alloc_pinned::<u32>(1)?,
        })
    }

    pub fn probe(&mut self, stream: &Stream, build: &BuildSide, keys: &[u64]) -> Result<ProbeResult> {
        let n = keys.len().min(self.keys_host.len());
        self.keys_host[..n].copy_from_slice(&keys[..n]);
        unsafe { stream.copy_htod_async(&mut self.keys_dev, &self.keys_host)? };
        stream.memset_d32_async(&mut self.count_dev, 0)?;
        let n32 = n as u32;
        unsafe {
            stream.launch(
                &self.kernel,
                LaunchConfig::for_num_elems(n32),
                &[build.table(), &self.keys_dev, &self.pairs_dev, &self.count_dev, &n32, &build.cap],
            )?
        };
        unsafe { stream.copy_dtoh_async(&mut self.count_host, &self.count_dev)? };
        unsafe { stream.copy_dtoh_async(&mut self.pairs_host, &self.pairs_dev)? };
        let matched = self.count_host[0] as usize; // EXPECT: missing_sync
        stream.synchronize()?;
        Ok(ProbeResult { matched_rows: self.pairs_host[..matched.min(n)].to_vec() })
    }
}
