//! case: vibration monitor on the runtime API (cudarc runtime::result / runtime::sys): samples are copied from a Vec with cudaMemcpyAsync, reduced by a kernel into a cudaMalloc'd stats block, and the alarm check reads the peak with ptr::read on that device pointer
//! expect: pageable_async_copy=1, host_deref_device_ptr=1
use cudarc::driver::result as drv;
use cudarc::driver::sys as dsys;
use cudarc::runtime::result as rtr;
use cudarc::runtime::sys as rt;
use std::ffi::{CString, c_void};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const STATS_SRC: &str = r#"
extern "C" __global__ void peak_rms(const float* s, unsigned int n, float* stats) {
    __shared__ float pk[256];
    __shared__ float sq[256];
    float p = 0.f, q = 0.f;
    for (unsigned int i = threadIdx.x; i < n; i += blockDim.x) { float v = fabsf(s[i]); p = fmaxf(p, v); q += v * v; }
    pk[threadIdx.x] = p; sq[threadIdx.x] = q;
    __syncthreads();
    for (unsigned int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) { pk[threadIdx.x] = fmaxf(pk[threadIdx.x], pk[threadIdx.x + k]); sq[threadIdx.x] += sq[threadIdx.x + k]; }
        __syncthreads();
    }
    if (threadIdx.x == 0) { stats[0] = pk[0]; stats[1] = sqrtf(sq[0] / (float)n); }
}
"#;

pub struct Monitor {
    stream: rt::cudaStream_t,
    func: dsys::CUfunction,
    threshold: f32,
}

impl Monitor {
    pub fn new(threshold: f32) -> Res<Self> {
        rtr::device::set(0)?;
        drv::init()?;
        let ctx = unsafe { drv::primary_ctx::retain(drv::device::get(0)?) }?;
        unsafe { drv::ctx::set_current(ctx) }?;
        let image = CString::new(cudarc::nvrtc::compile_ptx(STATS_SRC)?.to_src())?;
        let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
        let func = unsafe { drv::module::get_function(module, CString::new("peak_rms")?) }?;
        let stream = rtr::stream::create(rtr::stream::StreamKind::NonBlocking)?;
        Ok(Monitor { stream, func, threshold })
    }

    /// Returns the RMS of the window, or an error if the peak crossed the alarm threshold.
    pub fn check_window(&self, window: Vec<f32>) -> Res<f32> {
        let n = window.len();
        let d_samples = unsafe { rtr::malloc_sync(n * 4) }?;
        let d_stats = unsafe { rtr::malloc_sync(2 * 4) }?;
        unsafe {
            rt::cudaMemcpyAsync(d_samples, window.as_ptr().cast(), n * 4, rt::cudaMemcpyKind::cudaMemcpyHostToDevice, self.stream).result()?; // EXPECT: pageable_async_copy
        }
        let (mut s, mut nn, mut st) = (d_samples as u64, n as u32, d_stats as u64);
        let mut params: [*mut c_void; 3] = [(&mut s as *mut u64).cast(), (&mut nn as *mut u32).cast(), (&mut st as *mut u64).cast()];
        unsafe {
            drv::launch_kernel(self.func, (1, 1, 1), (256, 1, 1), 0, self.stream as dsys::CUstream, &mut params)?;
            rtr::stream::synchronize(self.stream)?;
        }
        let peak = unsafe { std::ptr::read(d_stats as *const f32) }; // EXPECT: host_deref_device_ptr
        let mut stats = [0f32; 2];
        unsafe {
            rtr::memcpy_dtoh_sync(&mut stats, d_stats)?;
            rtr::free_sync(d_samples)?;
            rtr::free_sync(d_stats)?;
        }
        if peak > self.threshold {
            return Err(format!("peak {peak} over threshold {}", self.threshold).into());
        }
        Ok(stats[1])
    }
}

impl Drop for Monitor {
    fn drop(&mut self) {
        unsafe {
            let _ = rtr::stream::synchronize(self.stream);
            let _ = rtr::stream::destroy(self.stream);
        }
    }
}
