//! case: storage engine's shard scanner loads the next shard on a dedicated copy stream and runs the predicate kernel on a compute stream (runtime layer); the event that should order them is recorded but the compute stream never waits on it before the kernel reads the shard
//! expect: missing_sync=1

use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const PRED_SRC: &str = r#"
extern "C" __global__ void eval_predicate(const long long* col, unsigned* selected, long long lo, long long hi, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && col[i] >= lo && col[i] < hi) atomicAdd(selected, 1u);
}
"#;

pub trait ShardSource {
    fn fill(&mut self, shard: usize, dst: &mut [i64]) -> usize;
}

pub struct ShardScanner {
    ctx: Context,
    copy_stream: Stream,
    compute_stream: Stream,
    loaded: Event,
    kernel: Kernel,
    host_shard: PinnedBuffer<i64>,
    dev_shard: DeviceBuffer<i64>,
    selected: DeviceBuffer<u32>,
    result: PinnedBuffer<u32>,
}

impl ShardScanner {
    pub fn new(ctx: &Context, shard_rows: usize) -> Result<Self> {
        let module = ctx.load_cuda(PRED_SRC)?;
        Ok(Self {
            ctx: ctx.clone(),
            copy_stream: ctx.new_stream()?,
            compute_stream: ctx.new_stream()?,
            loaded: ctx.new_event()?,
            kernel: module.function("eval_predicate")?,
            host_shard: ctx.alloc_pinned::<i64>(shard_rows)?,
            dev_shard: ctx.alloc::<i64>(shard_rows)?,
            selected: ctx.alloc_zeroed::<u32>(1)?,
            result: ctx.alloc_pinned::<u32>(1)?,
        })
    }

    pub fn count_in_range(&mut self, src: &mut dyn ShardSource, shard: usize, lo: i64, hi: i64) -> Result<u32> {
        let rows = src.fill(shard, &mut self.host_shard);
        unsafe { self.copy_stream.copy_htod_async(&mut self.dev_shard, &self.host_shard)? };
        self.copy_stream.record_event(&self.loaded)?;
        self.compute_stream.memset_d32_async(&mut self.selected, 0)?;
        let n = rows as u32;
        unsafe { self.compute_stream.launch(&self.kernel, LaunchConfig::for_num_elems(n), &[&self.dev_shard, &self.selected, &lo, &hi, &n])? }; // EXPECT: missing_sync
        self.compute_stream.copy_dtoh(&mut self.result, &self.selected)?;
        self.copy_stream.synchronize()?;
        Ok(self.result[0])
    }
}
