//! case: a sensor aggregator writes its per-channel results straight into mapped pinned memory (`cuMemHostAlloc(DEVICEMAP)`, not write-combined): the kernel gets the device alias from `cuMemHostGetDevicePointer`, the host reads through its own host pointer only after `cuStreamSynchronize`, and the block is returned with `cuMemFreeHost`
//! expect: none

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUstream};
use cudarc::driver::{CudaContext, CudaFunction, DriverError};
use cudarc::nvrtc::compile_ptx;

const AGG_SRC: &str = r#"
extern "C" __global__ void channel_rms(const short* samples, float* rms, unsigned int channels, unsigned int frames)
{
    unsigned int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= channels) return;
    float acc = 0.0f;
    for (unsigned int f = 0; f < frames; ++f) { float s = samples[f * channels + c]; acc += s * s; }
    rms[c] = sqrtf(acc / frames);
}
"#;

pub struct Aggregator {
    ctx: Arc<CudaContext>,
    kernel: CudaFunction,
    stream: CUstream,
    samples: CUdeviceptr,
    rms_host: *mut f32,
    rms_dev: CUdeviceptr,
    channels: u32,
    frames: u32,
}

impl Aggregator {
    pub fn new(ctx: &Arc<CudaContext>, channels: u32, frames: u32) -> Result<Self, Box<dyn std::error::Error>> {
        let kernel = ctx.load_module(compile_ptx(AGG_SRC)?)?.load_function("channel_rms")?;
        let mut stream: CUstream = null_mut();
        let mut samples: CUdeviceptr = 0;
        let mut host: *mut c_void = null_mut();
        let mut dev: CUdeviceptr = 0;
        unsafe {
            sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuMemAlloc_v2(&mut samples, (channels * frames) as usize * 2).result()?;
            sys::cuMemsetD8Async(samples, 3, (channels * frames) as usize * 2, stream).result()?;
            sys::cuMemHostAlloc(&mut host, channels as usize * 4, sys::CU_MEMHOSTALLOC_DEVICEMAP).result()?;
            sys::cuMemHostGetDevicePointer_v2(&mut dev, host, 0).result()?;
        }
        Ok(Self { ctx: ctx.clone(), kernel, stream, samples, rms_host: host.cast(), rms_dev: dev, channels, frames })
    }

    /// RMS of every channel of the current sample block.
    pub fn rms(&self) -> Result<Vec<f32>, DriverError> {
        let (mut s, mut r, mut c, mut f) = (self.samples, self.rms_dev, self.channels, self.frames);
        let mut args = [
            (&mut s) as *mut CUdeviceptr as *mut c_void,
            (&mut r) as *mut CUdeviceptr as *mut c_void,
            (&mut c) as *mut u32 as *mut c_void,
            (&mut f) as *mut u32 as *mut c_void,
        ];
        unsafe {
            sys::cuLaunchKernel(self.kernel.cu_function(), c.div_ceil(64), 1, 1, 64, 1, 1, 0, self.stream, args.as_mut_ptr(), null_mut())
                .result()?;
            sys::cuStreamSynchronize(self.stream).result()?;
            Ok(std::slice::from_raw_parts(self.rms_host, self.channels as usize).to_vec())
        }
    }
}

impl Drop for Aggregator {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemFreeHost(self.rms_host.cast());
            let _ = sys::cuMemFree_v2(self.samples);
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let agg = Aggregator::new(&ctx, 64, 48_000)?;
    let rms = agg.rms()?;
    println!("channel 0 rms {:.1}, channel 63 rms {:.1}", rms[0], rms[63]);
    Ok(())
}
