//! case: LSM compaction marks live keys on the GPU and reads the survivor flags back through a pinned (non write-combined) slice on the context's only stream; with a single stream cudarc records no event, so `as_slice` returns before the D2H copy has landed
//! expect: missing_sync=1

use std::collections::BTreeMap;
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

const COMPACT_SRC: &str = r#"
extern "C" __global__ void mark_live(const unsigned long long* keys, const unsigned int* tombstones,
                                     unsigned int* live, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    bool shadowed = (i + 1 < n) && keys[i] == keys[i + 1];
    live[i] = (!shadowed && tombstones[i] == 0u) ? 1u : 0u;
}
"#;

#[derive(Debug, Clone)]
pub struct RunDescriptor {
    pub level: u32,
    pub first_key: u64,
    pub entries: usize,
}

#[derive(Debug, Default)]
pub struct CompactionStats {
    pub per_level: BTreeMap<u32, (usize, usize)>,
}

pub struct Compactor {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    mark_live: CudaFunction,
    live_host: PinnedHostSlice<u32>,
    stats: CompactionStats,
}

impl Compactor {
    pub fn new(ordinal: usize, max_entries: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let ctx = CudaContext::new(ordinal)?;
        // The engine drives everything from the default stream: one compaction at a time.
        let stream = ctx.default_stream();
        let module = ctx.load_module(compile_ptx(COMPACT_SRC)?)?;
        let mark_live = module.load_function("mark_live")?;
        // Flags 0: plain page-locked memory, readable at full speed by the host.
        let live_host = unsafe { ctx.alloc_pinned_with_flags::<u32>(max_entries, 0)? };
        Ok(Self {
            ctx,
            stream,
            mark_live,
            live_host,
            stats: CompactionStats::default(),
        })
    }

    fn launch_mark(
        &self,
        keys: &CudaSlice<u64>,
        tombstones: &CudaSlice<u32>,
        live: &mut CudaSlice<u32>,
    ) -> Result<(), DriverError> {
        let n = keys.len() as u32;
        let mut builder = self.stream.launch_builder(&self.mark_live);
        builder.arg(keys).arg(tombstones).arg(live).arg(&n);
        unsafe { builder.launch(LaunchConfig::for_num_elems(n)) }?;
        Ok(())
    }

    /// Returns how many entries of `run` survive compaction.
    pub fn compact(
        &mut self,
        run: &RunDescriptor,
        keys: &CudaSlice<u64>,
        tombstones: &CudaSlice<u32>,
    ) -> Result<usize, DriverError> {
        if run.entries == 0 {
            return Ok(0);
        }
        let mut live = self.stream.alloc_zeros::<u32>(run.entries)?;
        self.launch_mark(keys, tombstones, &mut live)?;
        self.stream.memcpy_dtoh(&live, &mut self.live_host)?;
        let survivors = self.live_host.as_slice()?[..run.entries].iter().filter(|&&f| f == 1).count(); // EXPECT: missing_sync
        let entry = self.stats.per_level.entry(run.level).or_default();
        entry.0 += run.entries;
        entry.1 += survivors;
        Ok(survivors)
    }

    pub fn finish(&self) -> Result<(), DriverError> {
        self.stream.synchronize()
    }
}
