//! case: a word-count job launches its counting kernel with cudarc on a stream from `new_stream` (non-blocking) and fetches the counts with driver::result's blocking `memcpy_dtoh_sync` (cuMemcpyDtoH on the legacy default stream), which does not wait for a non-blocking stream
//! expect: missing_sync=1

use std::sync::Arc;

use cudarc::driver::result;
use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

pub const BUCKETS: usize = 1024;

const COUNT_CU: &str = r#"
// FNV-1a over each whitespace-separated token; one thread per byte that starts a token.
extern "C" __global__ void count_tokens(const unsigned char* text, int n, unsigned int* buckets) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || text[i] == ' ' || (i > 0 && text[i - 1] != ' ')) return;
    unsigned int h = 2166136261u;
    for (int j = i; j < n && text[j] != ' '; ++j) h = (h ^ text[j]) * 16777619u;
    atomicAdd(&buckets[h % 1024], 1u);
}
"#;

pub struct TokenCounter {
    stream: Arc<CudaStream>,
    count: CudaFunction,
    buckets: CudaSlice<u32>,
}

impl TokenCounter {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let count = ctx.load_module(compile_ptx(COUNT_CU)?)?.load_function("count_tokens")?;
        let buckets = stream.alloc_zeros::<u32>(BUCKETS)?;
        Ok(Self { stream, count, buckets })
    }

    pub fn count(&mut self, text: &CudaSlice<u8>) -> Result<[u32; BUCKETS], DriverError> {
        let n = text.len() as i32;
        self.stream.memset_zeros(&mut self.buckets)?;
        unsafe {
            self.stream
                .launch_builder(&self.count)
                .arg(text)
                .arg(&n)
                .arg(&mut self.buckets)
                .launch(LaunchConfig::for_num_elems(n as u32))?;
        }
        let mut host = [0u32; BUCKETS];
        let (src, _record) = self.buckets.device_ptr(&self.stream);
        unsafe { result::memcpy_dtoh_sync(&mut host, src)? }; // EXPECT: missing_sync
        Ok(host)
    }
}
