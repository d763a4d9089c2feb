//! case: a metrics exporter copies device counters into a UnifiedSlice with memcpy_dtoh on the only (default) stream and reads it through as_slice, which waits for no event there
//! expect: missing_sync=1
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void count_hits(const unsigned* keys, unsigned* counters, unsigned n, unsigned buckets) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&counters[keys[i] % buckets], 1u);
}
"#;

pub struct Exporter {
    stream: Arc<CudaStream>,
    count: CudaFunction,
    counters: CudaSlice<u32>,
    snapshot: UnifiedSlice<u32>,
}

impl Exporter {
    pub fn new(ctx: &Arc<CudaContext>, buckets: usize) -> Result<Self, Box<dyn std::error::Error>> {
        // one stream only: cudarc does not record events on copies
        let stream = ctx.default_stream();
        Ok(Self {
            count: ctx.load_module(compile_ptx(SRC)?)?.load_function("count_hits")?,
            counters: stream.alloc_zeros(buckets)?,
            snapshot: unsafe { ctx.alloc_unified::<u32>(buckets, true)? },
            stream,
        })
    }

    pub fn ingest(&mut self, keys: &CudaSlice<u32>) -> Result<(), DriverError> {
        let n = keys.len() as u32;
        let b = self.counters.len() as u32;
        unsafe { self.stream.launch_builder(&self.count).arg(keys).arg(&mut self.counters).arg(&n).arg(&b).launch(LaunchConfig::for_num_elems(n))? };
        Ok(())
    }

    pub fn export(&mut self) -> Result<Vec<(usize, u32)>, DriverError> {
        self.stream.memcpy_dtoh(&self.counters, &mut self.snapshot)?;
        let hot = self.snapshot.as_slice()?.iter().copied().enumerate().filter(|&(_, c)| c > 0).collect(); // EXPECT: missing_sync
        Ok(hot)
    }
}
