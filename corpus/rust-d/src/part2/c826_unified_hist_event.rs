//! case: a histogram kept in a cudarc `UnifiedSlice` on the default stream only: the host clears it before any kernel is queued, the kernel takes it by `&mut`, and `as_slice` waits on the slice's event, which cudarc's launch records for unified arguments even with a single stream
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void fill_hash(unsigned int* v, unsigned int n, unsigned int seed) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { unsigned int h = (i ^ seed) * 2654435761u; v[i] = h ^ (h >> 16); }
}
extern "C" __global__ void bucket_count(const unsigned int* v, unsigned int n, unsigned int* hist, unsigned int buckets) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&hist[v[i] % buckets], 1u);
}
"#;

pub struct HashQuality {
    stream: Arc<CudaStream>,
    fill: CudaFunction,
    count: CudaFunction,
    values: CudaSlice<u32>,
    hist: UnifiedSlice<u32>,
}

impl HashQuality {
    pub fn new(ctx: &Arc<CudaContext>, n: usize, buckets: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.default_stream();
        let m = ctx.load_module(compile_ptx(SRC)?)?;
        let values = stream.alloc_zeros::<u32>(n)?;
        let hist = unsafe { ctx.alloc_unified::<u32>(buckets, true)? };
        stream.synchronize()?; // nothing runs on the device once construction returns
        Ok(Self { fill: m.load_function("fill_hash")?, count: m.load_function("bucket_count")?, values, hist, stream })
    }

    /// Max/min bucket ratio of the hash for `seed` (1.0 is perfectly uniform).
    pub fn skew(&mut self, seed: u32) -> Result<f64, DriverError> {
        self.hist.as_mut_slice()?.fill(0);

        let n = self.values.len() as u32;
        let buckets = self.hist.len() as u32;
        let cfg = LaunchConfig::for_num_elems(n);
        let mut fill = self.stream.launch_builder(&self.fill);
        fill.arg(&mut self.values).arg(&n).arg(&seed);
        unsafe { fill.launch(cfg) }?;
        let mut count = self.stream.launch_builder(&self.count);
        count.arg(&self.values).arg(&n).arg(&mut self.hist).arg(&buckets);
        unsafe { count.launch(cfg) }?;

        let hist = self.hist.as_slice()?;
        let (lo, hi) = hist.iter().fold((u32::MAX, 0), |(lo, hi), &c| (lo.min(c), hi.max(c)));
        Ok(hi as f64 / lo.max(1) as f64)
    }
}
