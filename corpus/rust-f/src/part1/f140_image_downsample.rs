//! case: an image resampler runs its kernel on a stream created with `CU_STREAM_NON_BLOCKING` and then fetches the output with the blocking `cuMemcpyDtoH`, trusting "blocking" to mean "after the kernel"; the blocking copy runs on the legacy default stream, which does not wait for non-blocking streams
//! expect: missing_sync=1

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUstream};
use cudarc::driver::{CudaContext, CudaFunction, DriverError};
use cudarc::nvrtc::compile_ptx;

const RESAMPLE_SRC: &str = r#"
extern "C" __global__ void downsample2x(const float* src, float* dst, unsigned int w, unsigned int h)
{
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    unsigned int ow = w / 2, oh = h / 2;
    if (x >= ow || y >= oh) return;
    const float* r0 = src + (2 * y) * w + 2 * x;
    const float* r1 = r0 + w;
    dst[y * ow + x] = 0.25f * (r0[0] + r0[1] + r1[0] + r1[1]);
}
"#;

pub struct Resampler {
    ctx: Arc<CudaContext>,
    kernel: CudaFunction,
    stream: CUstream,
}

impl Resampler {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        let kernel = ctx.load_module(compile_ptx(RESAMPLE_SRC)?)?.load_function("downsample2x")?;
        let mut stream: CUstream = null_mut();
        unsafe { sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()? };
        Ok(Self { ctx: ctx.clone(), kernel, stream })
    }

    /// Halves a `w x h` image already on the device and returns the result on the host.
    pub fn half(&self, src: CUdeviceptr, w: u32, h: u32) -> Result<Vec<f32>, DriverError> {
        let (ow, oh) = (w / 2, h / 2);
        let bytes = (ow * oh) as usize * 4;
        let mut dst: CUdeviceptr = 0;
        let mut out = vec![0.0f32; (ow * oh) as usize];
        unsafe {
            sys::cuMemAlloc_v2(&mut dst, bytes).result()?;
            let (mut s, mut d, mut ww, mut hh) = (src, dst, w, h);
            let mut args = [
                (&mut s) as *mut CUdeviceptr as *mut c_void,
                (&mut d) as *mut CUdeviceptr as *mut c_void,
                (&mut ww) as *mut u32 as *mut c_void,
                (&mut hh) as *mut u32 as *mut c_void,
            ];
            sys::cuLaunchKernel(self.kernel.cu_function(), ow.div_ceil(128), oh, 1, 128, 1, 1, 0, self.stream, args.as_mut_ptr(), null_mut())
                .result()?;
            sys::cuMemcpyDtoH_v2(out.as_mut_ptr().cast(), dst, bytes).result()?; // EXPECT: missing_sync
            sys::cuStreamSynchronize(self.stream).result()?;
            sys::cuMemFree_v2(dst).result()?;
        }
        Ok(out)
    }
}

impl Drop for Resampler {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        unsafe {
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let r = Resampler::new(&ctx)?;
    let (w, h) = (4096u32, 4096u32);
    let mut src: CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut src, (w * h) as usize * 4).result()?;
        sys::cuMemsetD32_v2(src, 1.0f32.to_bits(), (w * h) as usize).result()?;
        sys::cuCtxSynchronize().result()?; // the memset ran on the legacy stream
    }
    let half = r.half(src, w, h)?;
    println!("{}x{} -> {} values, first {}", w, h, half.len(), half[0]);
    unsafe { sys::cuMemFree_v2(src).result()? };
    Ok(())
}
