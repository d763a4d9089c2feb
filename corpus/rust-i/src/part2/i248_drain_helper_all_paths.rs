//! case: ETL dedup stage (runtime crate): after the unique-flag kernel and the async readback into pinned memory, both branches (empty batch and normal) call the stage's drain() helper, which synchronizes the stream, before the flags are read (near-miss: the sync is in a helper on every path)
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const UNIQUE_SRC: &str = r#"
extern "C" __global__ void mark_first(const unsigned long long* sorted_keys, unsigned n, unsigned char* first) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) first[i] = (i == 0 || sorted_keys[i] != sorted_keys[i - 1]) ? 1 : 0;
}
"#;

pub struct DedupStage {
    stream: Stream,
    mark: Kernel,
    d_first: DeviceBuffer<u8>,
    first: PinnedBuffer<u8>,
    batches: u64,
}

impl DedupStage {
    pub fn new(ctx: &Context, max_rows: usize) -> Result<Self> {
        Ok(DedupStage {
            stream: ctx.new_stream()?,
            mark: ctx.load_cuda(UNIQUE_SRC)?.function("mark_first")?,
            d_first: ctx.alloc_zeroed(max_rows)?,
            first: ctx.alloc_pinned(max_rows)?,
            batches: 0,
        })
    }

    /// Waits for everything this stage enqueued.
    fn drain(&self) -> Result<()> {
        self.stream.synchronize()
    }

    /// Indices of the first row of every key run in `sorted_keys` (all of `d_first` is copied).
    pub fn unique_rows(&mut self, sorted_keys: &DeviceBuffer<u64>) -> Result<Vec<usize>> {
        let n = sorted_keys.len().min(self.d_first.len());
        self.stream.memset_d8_async(&mut self.d_first, 0)?;
        let nn = n as u32;
        unsafe {
            self.stream.launch(&self.mark, LaunchConfig::for_num_elems(nn), &[sorted_keys, &nn, &self.d_first])?;
            self.stream.copy_dtoh_async(&mut self.first, &self.d_first)?;
        }
        self.batches += 1;
        if n == 0 {
            self.drain()?;
            return Ok(Vec::new());
        }
        self.drain()?;
        Ok(self.first[..n].iter().enumerate().filter(|(_, f)| **f != 0).map(|(i, _)| i).collect())
    }
}
