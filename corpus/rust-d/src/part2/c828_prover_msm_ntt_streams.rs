//! case: a prover overlaps an MSM bucket pass on one stream with an NTT on another (cudarc `driver::result`); the bucket sums are copied into pinned host memory on the MSM stream, but before the host-side bucket reduction only the NTT stream is synchronized
//! expect: missing_sync=1

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::result::{self, stream::StreamKind, DriverError};
use cudarc::driver::sys::{CUdeviceptr, CUfunction, CUstream};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

const PROVER_SRC: &str = r#"
extern "C" __global__ void msm_buckets(const unsigned long long* scalars, const unsigned long long* points,
                                       unsigned int n, unsigned int window, unsigned long long* buckets) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int b = (unsigned int)((scalars[i] >> (window * 8)) & 0xFF);
    atomicAdd(&buckets[b], points[i]); // toy group law: addition mod 2^64
}
extern "C" __global__ void ntt_stage(unsigned long long* a, unsigned int n, unsigned int half, unsigned long long w) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n / 2) return;
    unsigned int j = (i / half) * 2 * half + (i % half);
    unsigned long long u = a[j], v = a[j + half] * w;
    a[j] = u + v; a[j + half] = u - v;
}
"#;

pub struct ProverGpu {
    msm_stream: CUstream,
    ntt_stream: CUstream,
    msm: CUfunction,
    ntt: CUfunction,
    buckets_dev: CUdeviceptr,
    buckets_host: *mut u64, // cuMemHostAlloc, flags 0
    _module: Arc<cudarc::driver::CudaModule>,
}

const BUCKETS: usize = 256;

unsafe fn launch(f: CUfunction, n: u32, stream: CUstream, params: &mut [*mut c_void]) -> Result<(), DriverError> {
    unsafe { result::launch_kernel(f, (n.div_ceil(256), 1, 1), (256, 1, 1), 0, stream, params) }
}

impl ProverGpu {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        let module = ctx.load_module(compile_ptx(PROVER_SRC)?)?;
        let msm = module.load_function("msm_buckets")?.cu_function();
        let ntt = module.load_function("ntt_stage")?.cu_function();
        let buckets_dev = unsafe { result::malloc_sync(BUCKETS * 8)? };
        let buckets_host = unsafe { result::malloc_host(BUCKETS * 8, 0)? } as *mut u64;
        Ok(Self {
            msm_stream: result::stream::create(StreamKind::NonBlocking)?,
            ntt_stream: result::stream::create(StreamKind::NonBlocking)?,
            msm,
            ntt,
            buckets_dev,
            buckets_host,
            _module: module,
        })
    }

    /// One MSM window overlapped with one NTT stage; returns the window's bucket-sum digest.
    pub fn window_and_ntt(
        &mut self,
        scalars: CUdeviceptr,
        points: CUdeviceptr,
        n_points: u32,
        window: u32,
        poly: CUdeviceptr,
        poly_len: u32,
        half: u32,
        twiddle: u64,
    ) -> Result<u64, DriverError> {
        unsafe {
            result::memset_d8_async(self.buckets_dev, 0, BUCKETS * 8, self.msm_stream)?;
            let (mut s, mut p, mut n, mut w, mut b) = (scalars, points, n_points, window, self.buckets_dev);
            let mut msm_params = [
                &mut s as *mut _ as *mut c_void,
                &mut p as *mut _ as *mut c_void,
                &mut n as *mut _ as *mut c_void,
                &mut w as *mut _ as *mut c_void,
                &mut b as *mut _ as *mut c_void,
            ];
            launch(self.msm, n_points, self.msm_stream, &mut msm_params)?;
            let host = std::slice::from_raw_parts_mut(self.buckets_host, BUCKETS);
            result::memcpy_dtoh_async(host, self.buckets_dev, self.msm_stream)?;

            let (mut a, mut len, mut h, mut tw) = (poly, poly_len, half, twiddle);
            let mut ntt_params = [
                &mut a as *mut _ as *mut c_void,
                &mut len as *mut _ as *mut c_void,
                &mut h as *mut _ as *mut c_void,
                &mut tw as *mut _ as *mut c_void,
            ];
            launch(self.ntt, poly_len / 2, self.ntt_stream, &mut ntt_params)?;
            result::stream::synchronize(self.ntt_stream)?;
        }

        // running-sum bucket reduction: sum_i i * B_i
        let buckets = unsafe { std::slice::from_raw_parts(self.buckets_host, BUCKETS) };
        let mut running = 0u64;
        let mut acc = 0u64;
        for &bucket in buckets.iter().rev() { // EXPECT: missing_sync
            running = running.wrapping_add(bucket);
            acc = acc.wrapping_add(running);
        }
        Ok(acc)
    }
}
