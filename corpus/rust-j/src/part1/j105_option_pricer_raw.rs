//! case: Monte Carlo option pricer on cudarc's `result` layer allocates its payoff readback with `malloc_host` (cuMemHostAlloc) but its Drop releases it with `cuMemFree_v2`; its constructor also sanity-checks the freshly zeroed device path buffer by dereferencing the raw device pointer on the host
//! expect: mismatched_free=1, host_deref_device_ptr=1

use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext, CudaFunction, DriverError};
use cudarc::nvrtc::compile_ptx;

const PRICER_SRC: &str = r#"
extern "C" __global__ void gbm_paths(float* terminal, float s0, float mu, float sigma, float t, int steps, int n,
                                     unsigned long long seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long x = seed ^ (0x9E3779B97F4A7C15ull * (i + 1));
    float s = s0, dt = t / steps;
    for (int k = 0; k < steps; ++k) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        float u1 = ((x >> 40) + 1) / 16777217.0f;
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        float u2 = (x >> 40) / 16777216.0f;
        float z = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
        s *= expf((mu - 0.5f * sigma * sigma) * dt + sigma * sqrtf(dt) * z);
    }
    terminal[i] = s;
}
"#;

#[derive(Clone, Copy, Debug)]
pub struct EuropeanCall {
    pub spot: f32,
    pub strike: f32,
    pub rate: f32,
    pub vol: f32,
    pub maturity: f32,
}

pub struct PathBuffers {
    ctx: Arc<CudaContext>,
    stream: sys::CUstream,
    dev_terminal: sys::CUdeviceptr,
    host_terminal: *mut f32,
    n_paths: usize,
    func: CudaFunction,
}

impl PathBuffers {
    pub fn new(ctx: Arc<CudaContext>, n_paths: usize) -> Result<Self, Box<dyn std::error::Error>> {
        ctx.bind_to_thread()?;
        let bytes = n_paths * std::mem::size_of::<f32>();
        let func = ctx.load_module(compile_ptx(PRICER_SRC)?)?.load_function("gbm_paths")?;
        let stream = result::stream::create(result::stream::StreamKind::NonBlocking)?;
        let dev_terminal = unsafe { result::malloc_sync(bytes)? };
        unsafe { result::memset_d8_sync(dev_terminal, 0, bytes)? };
        debug_assert!(unsafe { *(dev_terminal as *const f32) } == 0.0); // EXPECT: host_deref_device_ptr
        let host_terminal = unsafe { result::malloc_host(bytes, 0)? } as *mut f32;
        Ok(Self { ctx, stream, dev_terminal, host_terminal, n_paths, func })
    }

    pub fn price(&mut self, opt: &EuropeanCall, steps: i32, seed: u64) -> Result<(f32, f32), DriverError> {
        let n = self.n_paths as i32;
        let mut s0 = opt.spot;
        let mut mu = opt.rate;
        let mut sigma = opt.vol;
        let mut t = opt.maturity;
        let mut steps = steps;
        let mut n_arg = n;
        let mut seed = seed;
        let mut dptr = self.dev_terminal;
        let mut params: Vec<*mut std::ffi::c_void> = vec![
            arg(&mut dptr),
            arg(&mut s0),
            arg(&mut mu),
            arg(&mut sigma),
            arg(&mut t),
            arg(&mut steps),
            arg(&mut n_arg),
            arg(&mut seed),
        ];
        unsafe {
            result::launch_kernel(
                self.func.cu_function(),
                ((n as u32).div_ceil(256), 1, 1),
                (256, 1, 1),
                0,
                self.stream,
                &mut params,
            )?;
            let host = std::slice::from_raw_parts_mut(self.host_terminal, self.n_paths);
            result::memcpy_dtoh_async(host, self.dev_terminal, self.stream)?;
            result::stream::synchronize(self.stream)?;
        }
        let host = unsafe { std::slice::from_raw_parts(self.host_terminal, self.n_paths) };
        let disc = (-opt.rate * opt.maturity).exp();
        let payoffs: Vec<f64> = host.iter().map(|&s| ((s - opt.strike).max(0.0) * disc) as f64).collect();
        let mean = payoffs.iter().sum::<f64>() / payoffs.len() as f64;
        let var = payoffs.iter().map(|p| (p - mean).powi(2)).sum::<f64>() / (payoffs.len() as f64 - 1.0);
        Ok((mean as f32, (var / payoffs.len() as f64).sqrt() as f32))
    }
}

fn arg<T>(x: &mut T) -> *mut std::ffi::c_void {
    x as *mut T as *mut std::ffi::c_void
}

impl Drop for PathBuffers {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        unsafe {
            let _ = result::stream::synchronize(self.stream);
            let _ = sys::cuMemFree_v2(self.dev_terminal);
            let _ = sys::cuMemFree_v2(self.host_terminal as sys::CUdeviceptr); // EXPECT: mismatched_free
            let _ = result::stream::destroy(self.stream);
        }
    }
}
