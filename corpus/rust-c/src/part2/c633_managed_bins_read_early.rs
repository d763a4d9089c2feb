//! case: a latency histogram kernel accumulates into cuMemAllocManaged bins on a non-blocking stream, and the host totals the bins right after the launch, before cuStreamSynchronize
//! expect: missing_sync=1

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext};
use cudarc::nvrtc::compile_ptx;

pub const NBINS: usize = 64;

const LAT_SRC: &str = r#"
extern "C" __global__ void log2_histogram(const unsigned long long* ns, unsigned* bins, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned b = 63 - __clzll(ns[i] | 1ull);
    atomicAdd(&bins[b], 1u);
}
"#;

pub struct LatencyHistogram {
    _ctx: Arc<CudaContext>,
    module: sys::CUmodule,
    func: sys::CUfunction,
    stream: sys::CUstream,
    bins: sys::CUdeviceptr,
}

impl LatencyHistogram {
    pub fn new(ctx: Arc<CudaContext>) -> Result<Self, Box<dyn Error>> {
        ctx.bind_to_thread()?;
        let image = CString::new(compile_ptx(LAT_SRC)?.to_src())?;
        let module = unsafe { result::module::load_data(image.as_ptr() as *const c_void)? };
        let func = unsafe { result::module::get_function(module, CString::new("log2_histogram")?)? };
        let stream = result::stream::create(result::stream::StreamKind::NonBlocking)?;
        let mut bins = 0;
        unsafe {
            sys::cuMemAllocManaged(&mut bins, NBINS * 4, sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32).result()?;
            std::ptr::write_bytes(bins as *mut u32, 0, NBINS);
        }
        Ok(Self { _ctx: ctx, module, func, stream, bins })
    }

    /// Adds `samples` (device array of nanosecond latencies) and returns the running total count.
    pub fn add(&mut self, samples: sys::CUdeviceptr, n: u32) -> Result<u64, Box<dyn Error>> {
        let (mut samples, mut bins, mut n_arg) = (samples, self.bins, n);
        let mut params = [
            &mut samples as *mut _ as *mut c_void,
            &mut bins as *mut _ as *mut c_void,
            &mut n_arg as *mut _ as *mut c_void,
        ];
        unsafe {
            sys::cuLaunchKernel(self.func, n.div_ceil(256), 1, 1, 256, 1, 1, 0, self.stream, params.as_mut_ptr(), null_mut())
                .result()?;
        }
        let total: u64 = unsafe { std::slice::from_raw_parts(self.bins as *const u32, NBINS) }.iter().map(|&c| c as u64).sum(); // EXPECT: missing_sync
        unsafe { sys::cuStreamSynchronize(self.stream).result()? };
        Ok(total)
    }

    pub fn percentile_bucket(&self, q: f64) -> Result<usize, Box<dyn Error>> {
        unsafe { sys::cuStreamSynchronize(self.stream).result()? };
        let bins = unsafe { std::slice::from_raw_parts(self.bins as *const u32, NBINS) };
        let total: u64 = bins.iter().map(|&c| c as u64).sum();
        let mut acc = 0u64;
        for (b, &c) in bins.iter().enumerate() {
            acc += c as u64;
            if acc as f64 >= q * total as f64 {
                return Ok(b);
            }
        }
        Ok(NBINS - 1)
    }
}

impl Drop for LatencyHistogram {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemFree_v2(self.bins);
            let _ = result::stream::destroy(self.stream);
            let _ = result::module::unload(self.module);
        }
    }
}
