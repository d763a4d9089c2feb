//! case: GPU bloom-filter cache front end: lookups run as a cudarc kernel on a non-blocking stream, while request statistics live in cudaMallocManaged memory (runtime sys, attached globally) that the host updates right after launching the lookup kernel, which does not use it
//! expect: managed_concurrent_access=1

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys as rt;
use std::ffi::c_void;
use std::sync::Arc;

const BLOOM_SRC: &str = r#"
extern "C" __global__ void bloom_lookup(const unsigned* bits, unsigned nbits, const unsigned long long* keys,
                                        unsigned n, unsigned char* maybe) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long k = keys[i];
    unsigned char hit = 1;
    for (unsigned h = 0; h < 4; ++h) {
        unsigned b = (unsigned)((k * (0x9E3779B97F4A7C15ull + 2 * h + 1)) >> 33) % nbits;
        hit &= (bits[b / 32] >> (b % 32)) & 1;
    }
    maybe[i] = hit;
}
"#;

#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub struct CacheStats {
    pub requests: u64,
    pub batches: u64,
    pub maybe_hits: u64,
    pub last_batch: u64,
}

pub struct BloomFrontEnd {
    stream: Arc<CudaStream>,
    lookup: CudaFunction,
    bits: CudaSlice<u32>,
    nbits: u32,
    stats: *mut CacheStats,
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

impl BloomFrontEnd {
    pub fn new(ctx: &Arc<CudaContext>, nbits: u32) -> Res<Self> {
        let stream = ctx.new_stream()?;
        let mut stats: *mut c_void = std::ptr::null_mut();
        let rc = unsafe { rt::cudaMallocManaged(&mut stats, std::mem::size_of::<CacheStats>(), rt::cudaMemAttachGlobal) };
        if rc != rt::cudaError_t::cudaSuccess {
            return Err(format!("cudaMallocManaged: {rc:?}").into());
        }
        unsafe { (stats as *mut CacheStats).write(CacheStats::default()) };
        Ok(BloomFrontEnd {
            lookup: ctx.load_module(compile_ptx(BLOOM_SRC)?)?.load_function("bloom_lookup")?,
            bits: stream.alloc_zeros(nbits.div_ceil(32) as usize)?,
            nbits,
            stats: stats as *mut CacheStats,
            stream,
        })
    }

    /// Marks which keys may be cached; `maybe_host` is non-write-combined pinned memory.
    pub fn probe(&mut self, keys: &CudaSlice<u64>, maybe: &mut CudaSlice<u8>, maybe_host: &mut PinnedHostSlice<u8>) -> Res<usize> {
        let n = keys.len() as u32;
        unsafe {
            self.stream
                .launch_builder(&self.lookup)
                .arg(&self.bits)
                .arg(&self.nbits)
                .arg(keys)
                .arg(&n)
                .arg(&mut *maybe)
                .launch(LaunchConfig::for_num_elems(n))?;
        }
        let stats = unsafe { &mut *self.stats };
        stats.requests += n as u64; // EXPECT: managed_concurrent_access
        stats.batches += 1;
        stats.last_batch = n as u64;

        self.stream.memcpy_dtoh(&*maybe, maybe_host)?;
        self.stream.synchronize()?;
        let hits = maybe_host.as_slice()?.iter().filter(|&&m| m != 0).count();
        stats.maybe_hits += hits as u64;
        Ok(hits)
    }

    pub fn stats(&self) -> CacheStats {
        unsafe { *self.stats }
    }
}

impl Drop for BloomFrontEnd {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        unsafe {
            rt::cudaFree(self.stats as *mut c_void);
        }
    }
}
