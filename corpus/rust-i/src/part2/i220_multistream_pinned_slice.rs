//! case: log-analytics error counter (cudarc, two streams made with new_stream, event tracking left on): counts are copied into non-write-combined pinned memory and read through PinnedHostSlice::as_slice, which waits on the event cudarc recorded after the copy (near-miss)
//! expect: none

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::collections::BTreeMap;
use std::sync::Arc;

const COUNT_SRC: &str = r#"
extern "C" __global__ void count_status(const unsigned short* status, unsigned n, unsigned* counts) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&counts[status[i] % 600], 1u);
}
"#;

pub struct StatusCounter {
    ingest: Arc<CudaStream>,
    reduce: Arc<CudaStream>,
    count: CudaFunction,
    d_counts: CudaSlice<u32>,
    counts: PinnedHostSlice<u32>,
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

impl StatusCounter {
    pub fn new(ctx: &Arc<CudaContext>) -> Res<Self> {
        assert!(ctx.is_event_tracking());
        let ingest = ctx.new_stream()?;
        let reduce = ctx.new_stream()?;
        let count = ctx.load_module(compile_ptx(COUNT_SRC)?)?.load_function("count_status")?;
        Ok(StatusCounter {
            d_counts: reduce.alloc_zeros(600)?,
            counts: unsafe { ctx.alloc_pinned_with_flags(600, 0)? },
            ingest,
            reduce,
            count,
        })
    }

    pub fn ingest_stream(&self) -> &Arc<CudaStream> {
        &self.ingest
    }

    /// `status` was filled on the ingest stream; cudarc orders the kernel after that write.
    pub fn summarize(&mut self, status: &CudaSlice<u16>) -> Res<BTreeMap<u16, u32>> {
        self.reduce.memset_zeros(&mut self.d_counts)?;
        let n = status.len() as u32;
        unsafe {
            self.reduce
                .launch_builder(&self.count)
                .arg(status)
                .arg(&n)
                .arg(&mut self.d_counts)
                .launch(LaunchConfig::for_num_elems(n))?;
        }
        self.reduce.memcpy_dtoh(&self.d_counts, &mut self.counts)?;
        let counts = self.counts.as_slice()?;
        Ok(counts
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(|(code, &c)| (code as u16, c))
            .collect())
    }
}
