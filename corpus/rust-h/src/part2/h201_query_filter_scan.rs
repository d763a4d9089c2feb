//! case: GPU predicate scan of a columnar query engine; the match bitmap is copied into pinned memory on the context's only stream (the default one), so cudarc records no event on it and the popcount reads it through `as_slice` before the copy is done
//! expect: missing_sync=1

use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice,
    PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

const FILTER_SRC: &str = r#"
extern "C" __global__ void filter_gt(const int* col, int threshold, unsigned* bitmap, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && col[i] > threshold) {
        atomicOr(&bitmap[i / 32], 1u << (i % 32));
    }
}
"#;

#[derive(Debug)]
pub enum ScanError {
    Driver(DriverError),
    Compile(String),
    TooManyRows { rows: usize, capacity: usize },
}

impl From<DriverError> for ScanError {
    fn from(e: DriverError) -> Self {
        ScanError::Driver(e)
    }
}

/// One executor per GPU: owns its context, so nothing else creates streams in it.
pub struct ScanExecutor {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    filter: CudaFunction,
    bitmap: CudaSlice<u32>,
    bitmap_host: PinnedHostSlice<u32>,
    capacity: usize,
}

impl ScanExecutor {
    pub fn new(ordinal: usize, capacity: usize) -> Result<Self, ScanError> {
        let ctx = CudaContext::new(ordinal)?;
        let stream = ctx.default_stream();
        let ptx = compile_ptx(FILTER_SRC).map_err(|e| ScanError::Compile(format!("{e:?}")))?;
        let filter = ctx.load_module(ptx)?.load_function("filter_gt")?;
        let words = capacity.div_ceil(32);
        let bitmap = stream.alloc_zeros::<u32>(words)?;
        // SAFETY: fully overwritten by every readback before it is read.
        let bitmap_host = unsafe { ctx.alloc_pinned_with_flags::<u32>(words, 0)? };
        Ok(Self { ctx, stream, filter, bitmap, bitmap_host, capacity })
    }

    pub fn upload_column(&self, values: &PinnedHostSlice<i32>) -> Result<CudaSlice<i32>, ScanError> {
        if values.len() > self.capacity {
            return Err(ScanError::TooManyRows { rows: values.len(), capacity: self.capacity });
        }
        Ok(self.stream.clone_htod(values)?)
    }

    /// `SELECT count(*) FROM t WHERE col > threshold`
    pub fn count_greater(&mut self, column: &CudaSlice<i32>, threshold: i32) -> Result<u64, ScanError> {
        let n = column.len() as u32;
        self.stream.memset_zeros(&mut self.bitmap)?;
        let cfg = LaunchConfig::for_num_elems(n);
        unsafe {
            self.stream
                .launch_builder(&self.filter)
                .arg(column)
                .arg(&threshold)
                .arg(&mut self.bitmap)
                .arg(&n)
                .launch(cfg)?
        };
        self.stream.memcpy_dtoh(&self.bitmap, &mut self.bitmap_host)?;
        let matches: u64 = self.bitmap_host.as_slice()?.iter().map(|w| w.count_ones() as u64).sum(); // EXPECT: missing_sync
        Ok(matches)
    }
}
