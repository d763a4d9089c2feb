//! case: near-miss. Log-retention job (cudarc, one default stream) counts expired records per partition and copies them into a pinned (flags 0) slice; it records a blocking-sync event after the copy and waits on that event before reading, which orders the read after the copy even though cudarc records nothing itself with one stream
//! expect: none

use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const EXPIRE_SRC: &str = r#"
extern "C" __global__ void count_expired(const long long* ts, const unsigned* partition, unsigned n,
                                         long long cutoff, unsigned* per_partition) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && ts[i] < cutoff) atomicAdd(&per_partition[partition[i]], 1u);
}
"#;

pub struct RetentionPlan {
    pub partition: usize,
    pub expired: u32,
    pub drop_whole: bool,
}

pub struct RetentionJob {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    counts: CudaSlice<u32>,
    counts_host: PinnedHostSlice<u32>,
}

impl RetentionJob {
    pub fn new(ctx: &Arc<CudaContext>, partitions: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.default_stream();
        let kernel = ctx.load_module(compile_ptx(EXPIRE_SRC)?)?.load_function("count_expired")?;
        Ok(Self {
            counts: stream.alloc_zeros::<u32>(partitions)?,
            counts_host: unsafe { ctx.alloc_pinned_with_flags::<u32>(partitions, 0)? },
            stream,
            kernel,
        })
    }

    pub fn plan(&mut self, ts: &CudaSlice<i64>, partition: &CudaSlice<u32>, cutoff: i64, sizes: &[u32]) -> Result<Vec<RetentionPlan>, DriverError> {
        let n = ts.len() as u32;
        self.stream.memset_zeros(&mut self.counts)?;
        unsafe { self.stream.launch_builder(&self.kernel).arg(ts).arg(partition).arg(&n).arg(&cutoff).arg(&mut self.counts).launch(LaunchConfig::for_num_elems(n)) }?;
        self.stream.memcpy_dtoh(&self.counts, &mut self.counts_host)?;
        let copied = self.stream.record_event(Some(sys::CUevent_flags::CU_EVENT_BLOCKING_SYNC))?;
        copied.synchronize()?;
        let plans = self.counts_host.as_slice()?
            .iter()
            .zip(sizes)
            .enumerate()
            .filter(|&(_, (&e, _))| e > 0)
            .map(|(p, (&expired, &size))| RetentionPlan { partition: p, expired, drop_whole: expired == size })
            .collect();
        Ok(plans)
    }
}
