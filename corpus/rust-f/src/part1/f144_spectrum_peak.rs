//! case: a runtime-API spectrum job uploads its samples with `cudaMemcpyAsync` straight from a `Vec` (pageable: staged and blocking) and reads the magnitudes back into a `cudaHostAlloc(.., cudaHostAllocWriteCombined)` buffer, which it then scans on the host after `cudaStreamSynchronize` (uncached reads)
//! expect: pageable_async_copy=1, write_combined_host_read=1

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys as drv;
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys::{self as rt, cudaMemcpyKind};

const MAG_SRC: &str = r#"
extern "C" __global__ void magnitudes(const float2* bins, float* mag, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) mag[i] = sqrtf(bins[i].x * bins[i].x + bins[i].y * bins[i].y);
}
"#;

pub struct SpectrumJob {
    stream: rt::cudaStream_t,
    d_bins: *mut c_void,
    d_mag: *mut c_void,
    h_mag: *mut f32,
    n: usize,
    kernel: drv::CUfunction,
    _module: std::sync::Arc<cudarc::driver::CudaModule>,
}

impl SpectrumJob {
    pub fn new(ctx: &std::sync::Arc<CudaContext>, n: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let module = ctx.load_module(compile_ptx(MAG_SRC)?)?;
        let kernel = module.load_function("magnitudes")?.cu_function();
        let mut stream: rt::cudaStream_t = null_mut();
        let (mut d_bins, mut d_mag, mut h_mag): (*mut c_void, *mut c_void, *mut c_void) = (null_mut(), null_mut(), null_mut());
        unsafe {
            rt::cudaStreamCreateWithFlags(&mut stream, rt::cudaStreamNonBlocking).result()?;
            rt::cudaMalloc(&mut d_bins, n * 8).result()?;
            rt::cudaMalloc(&mut d_mag, n * 4).result()?;
            rt::cudaHostAlloc(&mut h_mag, n * 4, rt::cudaHostAllocWriteCombined).result()?;
        }
        Ok(Self { stream, d_bins, d_mag, h_mag: h_mag.cast(), n, kernel, _module: module })
    }

    /// Index and magnitude of the strongest bin of `bins` (interleaved re, im).
    pub fn peak(&mut self, bins: &Vec<f32>) -> Result<(usize, f32), Box<dyn std::error::Error>> {
        assert_eq!(bins.len(), 2 * self.n);
        unsafe {
            rt::cudaMemcpyAsync(self.d_bins, bins.as_ptr().cast(), bins.len() * 4, cudaMemcpyKind::cudaMemcpyHostToDevice, self.stream) // EXPECT: pageable_async_copy
                .result()?;
            let (mut b, mut m, mut n) = (self.d_bins as drv::CUdeviceptr, self.d_mag as drv::CUdeviceptr, self.n as u32);
            let mut args = [
                (&mut b) as *mut drv::CUdeviceptr as *mut c_void,
                (&mut m) as *mut drv::CUdeviceptr as *mut c_void,
                (&mut n) as *mut u32 as *mut c_void,
            ];
            drv::cuLaunchKernel(self.kernel, n.div_ceil(256), 1, 1, 256, 1, 1, 0, self.stream as drv::CUstream, args.as_mut_ptr(), null_mut())
                .result()?;
            rt::cudaMemcpyAsync(self.h_mag.cast(), self.d_mag, self.n * 4, cudaMemcpyKind::cudaMemcpyDeviceToHost, self.stream).result()?;
            rt::cudaStreamSynchronize(self.stream).result()?;
        }
        let mags = unsafe { std::slice::from_raw_parts(self.h_mag, self.n) };
        let best = mags.iter().copied().enumerate().fold((0, 0.0f32), |b, (i, m)| if m > b.1 { (i, m) } else { b }); // EXPECT: write_combined_host_read
        Ok(best)
    }
}

impl Drop for SpectrumJob {
    fn drop(&mut self) {
        unsafe {
            rt::cudaStreamSynchronize(self.stream);
            rt::cudaFree(self.d_bins);
            rt::cudaFree(self.d_mag);
            rt::cudaFreeHost(self.h_mag.cast());
            rt::cudaStreamDestroy(self.stream);
        }
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let n = 1 << 20;
    let mut job = SpectrumJob::new(&ctx, n)?;
    let bins: Vec<f32> = (0..2 * n).map(|i| if i == 2 * 4242 { 50.0 } else { ((i * 7) % 13) as f32 * 0.01 }).collect();
    let (k, m) = job.peak(&bins)?;
    println!("peak at bin {k}: {m}");
    Ok(())
}
