//! case: the same kind of GPU Bloom filter done right: the fill ratio synchronizes the non-blocking insert stream first and then reads the words back with the blocking `result::memcpy_dtoh_sync` (a blocking copy, on the legacy stream, after the insert stream has drained), only logging the device address as a number
//! expect: none

use std::sync::Arc;

use cudarc::driver::result;
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaContext, CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const BLOOM_SRC: &str = r#"
extern "C" __global__ void bloom_insert(unsigned* bits, const unsigned long long* keys, unsigned n, unsigned n_bits) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long h = keys[i] * 0xC2B2AE3D27D4EB4Full;
    for (int k = 0; k < 3; ++k) {
        unsigned bit = (unsigned)((h >> (21 * k)) % n_bits);
        atomicOr(&bits[bit / 32], 1u << (bit % 32));
    }
}
"#;

pub struct DedupFilter {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    insert: CudaFunction,
    bits: CUdeviceptr,
    n_words: usize,
}

impl DedupFilter {
    pub fn new(ctx: Arc<CudaContext>, n_bits: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let insert = ctx.load_module(compile_ptx(BLOOM_SRC)?)?.load_function("bloom_insert")?;
        let n_words = n_bits.div_ceil(32);
        let bits = unsafe { result::malloc_sync(n_words * 4)? };
        unsafe { result::memset_d8_async(bits, 0, n_words * 4, stream.cu_stream())? };
        eprintln!("dedup filter: {} words at device address {:#x}", n_words, bits);
        Ok(Self { ctx, stream, insert, bits, n_words })
    }

    pub fn insert(&self, keys: CUdeviceptr, n: u32) -> Result<(), DriverError> {
        let n_bits = (self.n_words * 32) as u32;
        let cfg = LaunchConfig::for_num_elems(n);
        unsafe { self.stream.launch_builder(&self.insert).arg(&self.bits).arg(&keys).arg(&n).arg(&n_bits).launch(cfg)? };
        Ok(())
    }

    pub fn fill_ratio(&self) -> Result<f64, DriverError> {
        // the blocking copy below runs on the legacy stream, which does not wait for our
        // non-blocking stream: drain it first
        self.stream.synchronize()?;
        let mut words = vec![0u32; self.n_words];
        unsafe { result::memcpy_dtoh_sync(&mut words, self.bits)? };
        let set: u64 = words.iter().map(|w| w.count_ones() as u64).sum();
        Ok(set as f64 / (self.n_words * 32) as f64)
    }
}

impl Drop for DedupFilter {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        let _ = self.ctx.bind_to_thread();
        unsafe {
            let _ = result::free_sync(self.bits);
        }
    }
}
