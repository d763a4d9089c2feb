//! case: the same resampler shape, but its stream is created with flags 0 (`CU_STREAM_DEFAULT`, a blocking stream): the legacy default stream on which the blocking `cuMemcpyDtoH` runs waits for all work of blocking streams first, so the copy sees the kernel's output
//! expect: none

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUstream};
use cudarc::driver::{CudaContext, CudaFunction, DriverError};
use cudarc::nvrtc::compile_ptx;

const BOX_SRC: &str = r#"
extern "C" __global__ void box3(const float* src, float* dst, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float l = i > 0 ? src[i - 1] : src[i], r = i + 1 < n ? src[i + 1] : src[i];
    dst[i] = (l + src[i] + r) * (1.0f / 3.0f);
}
"#;

pub struct Smoother {
    ctx: Arc<CudaContext>,
    kernel: CudaFunction,
    stream: CUstream,
}

impl Smoother {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        let kernel = ctx.load_module(compile_ptx(BOX_SRC)?)?.load_function("box3")?;
        let mut stream: CUstream = null_mut();
        unsafe { sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_DEFAULT as u32).result()? };
        Ok(Self { ctx: ctx.clone(), kernel, stream })
    }

    pub fn smooth(&self, src: CUdeviceptr, n: u32) -> Result<Vec<f32>, DriverError> {
        let bytes = n as usize * 4;
        let mut dst: CUdeviceptr = 0;
        let mut out = vec![0.0f32; n as usize];
        unsafe {
            sys::cuMemAlloc_v2(&mut dst, bytes).result()?;
            let (mut s, mut d, mut nn) = (src, dst, n);
            let mut args = [
                (&mut s) as *mut CUdeviceptr as *mut c_void,
                (&mut d) as *mut CUdeviceptr as *mut c_void,
                (&mut nn) as *mut u32 as *mut c_void,
            ];
            sys::cuLaunchKernel(self.kernel.cu_function(), n.div_ceil(256), 1, 1, 256, 1, 1, 0, self.stream, args.as_mut_ptr(), null_mut())
                .result()?;
            // legacy default stream: implicitly ordered after the blocking stream's kernel
            sys::cuMemcpyDtoH_v2(out.as_mut_ptr().cast(), dst, bytes).result()?;
            sys::cuMemFree_v2(dst).result()?;
        }
        Ok(out)
    }
}

impl Drop for Smoother {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let s = Smoother::new(&ctx)?;
    let n = 1u32 << 22;
    let mut src: CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut src, n as usize * 4).result()?;
        sys::cuMemsetD32_v2(src, 2.0f32.to_bits(), n as usize).result()?;
    }
    let out = s.smooth(src, n)?;
    println!("first {} last {}", out[0], out[out.len() - 1]);
    unsafe { sys::cuMemFree_v2(src).result()? };
    Ok(())
}
