//! case: GPU hash-join probe for a database engine (runtime crate): per-partition match counts are copied into pinned memory, but the stream is synchronized only when the build side is large ("small joins finish fast anyway"), so on the other path the counts are read while the copy is in flight
//! expect: missing_sync=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const PROBE_SRC: &str = r#"
extern "C" __global__ void probe(const unsigned long long* table, unsigned table_slots,
                                 const unsigned long long* keys, unsigned nkeys,
                                 unsigned partitions, unsigned* counts) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nkeys) return;
    unsigned long long k = keys[i];
    unsigned slot = (unsigned)((k * 0x9E3779B97F4A7C15ull) >> 40) % table_slots;
    for (unsigned probe = 0; probe < table_slots; ++probe) {
        unsigned long long t = table[(slot + probe) % table_slots];
        if (t == 0) break;
        if (t == k) { atomicAdd(&counts[i % partitions], 1u); break; }
    }
}
"#;

pub struct JoinProbe {
    stream: Stream,
    probe: Kernel,
    d_counts: DeviceBuffer<u32>,
    counts: PinnedBuffer<u32>,
    partitions: usize,
}

pub struct JoinPlan {
    pub build_rows: usize,
    pub output_budget: usize,
}

impl JoinProbe {
    pub fn new(ctx: &Context, partitions: usize) -> Result<Self> {
        Ok(JoinProbe {
            stream: ctx.new_stream()?,
            probe: ctx.load_cuda(PROBE_SRC)?.function("probe")?,
            d_counts: ctx.alloc_zeroed(partitions)?,
            counts: ctx.alloc_pinned(partitions)?,
            partitions,
        })
    }

    /// Returns the per-partition output sizes, used to allocate the materialization buffers.
    pub fn count_matches(&mut self, plan: &JoinPlan, table: &DeviceBuffer<u64>, keys: &DeviceBuffer<u64>) -> Result<Vec<usize>> {
        self.stream.memset_d32_async(&mut self.d_counts, 0)?;
        let slots = table.len() as u32;
        let nkeys = keys.len() as u32;
        let parts = self.partitions as u32;
        unsafe {
            self.stream.launch(&self.probe, LaunchConfig::for_num_elems(nkeys), &[table, &slots, keys, &nkeys, &parts, &self.d_counts])?;
            self.stream.copy_dtoh_async(&mut self.counts, &self.d_counts)?;
        }
        if plan.build_rows > 1 << 20 {
            self.stream.synchronize()?;
        }
        let sizes: Vec<usize> = self.counts.iter().map(|&c| c as usize).collect(); // EXPECT: missing_sync
        let total: usize = sizes.iter().sum();
        if total > plan.output_budget {
            return Err(cuda_lint_runtime::Error::InvalidArgument { call: "count_matches", reason: format!("{total} matches exceed the budget") });
        }
        Ok(sizes)
    }
}
