//! case: dedup service's Bloom filter kept in device memory from cudarc's `result::malloc_sync` (`cuMemAlloc`); the fill-ratio metric synchronizes and then builds a host slice over the device pointer with `slice::from_raw_parts` and counts its bits
//! expect: host_deref_device_ptr=1

use std::sync::Arc;

use cudarc::driver::result;
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaContext, CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const BLOOM_SRC: &str = r#"
extern "C" __global__ void bloom_insert(unsigned* bits, const unsigned long long* keys, unsigned n, unsigned n_bits) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long h = keys[i] * 0x9E3779B97F4A7C15ull;
    for (int k = 0; k < 4; ++k) {
        unsigned bit = (unsigned)((h >> (16 * k)) % n_bits);
        atomicOr(&bits[bit / 32], 1u << (bit % 32));
    }
}
"#;

pub struct GpuBloom {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    insert: CudaFunction,
    bits: CUdeviceptr,
    n_words: usize,
}

impl GpuBloom {
    pub fn new(ctx: Arc<CudaContext>, n_bits: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let insert = ctx.load_module(compile_ptx(BLOOM_SRC)?)?.load_function("bloom_insert")?;
        let n_words = n_bits.div_ceil(32);
        let bits = unsafe { result::malloc_sync(n_words * 4)? };
        unsafe { result::memset_d8_async(bits, 0, n_words * 4, stream.cu_stream())? };
        Ok(Self { ctx, stream, insert, bits, n_words })
    }

    /// `keys` already on the device (from the ingest stage).
    pub fn insert(&self, keys: CUdeviceptr, n: u32) -> Result<(), DriverError> {
        let n_bits = (self.n_words * 32) as u32;
        unsafe {
            self.stream
                .launch_builder(&self.insert)
                .arg(&self.bits)
                .arg(&keys)
                .arg(&n)
                .arg(&n_bits)
                .launch(LaunchConfig::for_num_elems(n))?
        };
        Ok(())
    }

    /// Fraction of bits set: exported as a gauge every few seconds.
    pub fn fill_ratio(&self) -> Result<f64, DriverError> {
        self.stream.synchronize()?;
        let set: u64 = unsafe { std::slice::from_raw_parts(self.bits as *const u32, self.n_words) }.iter().map(|w| w.count_ones() as u64).sum(); // EXPECT: host_deref_device_ptr
        Ok(set as f64 / (self.n_words * 32) as f64)
    }
}

impl Drop for GpuBloom {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        let _ = self.ctx.bind_to_thread();
        unsafe {
            let _ = result::free_sync(self.bits);
        }
    }
}
