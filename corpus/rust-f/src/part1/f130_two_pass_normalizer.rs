//! case: a two-pass normalization takes its per-block scratch from `cuMemAllocAsync` on the work stream and gives it back with `cuMemFree` right after enqueuing the two kernels that write and read it; for stream-ordered allocations `cuMemFree` does not synchronize, so the memory is released while the kernels may still use it (`cuMemFreeAsync` on the stream would be right)
//! expect: missing_sync=1

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUstream};
use cudarc::driver::{CudaContext, CudaFunction, DriverError};
use cudarc::nvrtc::compile_ptx;

const NORM_SRC: &str = r#"
extern "C" __global__ void block_max(const float* x, float* scratch, unsigned int n)
{
    __shared__ float s[256];
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? fabsf(x[i]) : 0.0f;
    __syncthreads();
    for (unsigned int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] = fmaxf(s[threadIdx.x], s[threadIdx.x + k]);
        __syncthreads();
    }
    if (threadIdx.x == 0) scratch[blockIdx.x] = s[0];
}

extern "C" __global__ void divide_by_max(float* x, const float* scratch, unsigned int blocks, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float m = 0.0f;
    for (unsigned int b = 0; b < blocks; ++b) m = fmaxf(m, scratch[b]);
    x[i] = m > 0.0f ? x[i] / m : 0.0f;
}
"#;

pub struct Normalizer {
    ctx: Arc<CudaContext>,
    block_max: CudaFunction,
    divide: CudaFunction,
    stream: CUstream,
}

impl Normalizer {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        let module = ctx.load_module(compile_ptx(NORM_SRC)?)?;
        let mut stream: CUstream = null_mut();
        unsafe { sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()? };
        Ok(Self {
            ctx: ctx.clone(),
            block_max: module.load_function("block_max")?,
            divide: module.load_function("divide_by_max")?,
            stream,
        })
    }

    /// Scales `x` (device, `n` floats) into [-1, 1] in place; returns once enqueued.
    pub fn normalize(&self, x: CUdeviceptr, n: u32) -> Result<(), DriverError> {
        let blocks = n.div_ceil(256);
        let mut scratch: CUdeviceptr = 0;
        unsafe {
            sys::cuMemAllocAsync(&mut scratch, 4 * blocks as usize, self.stream).result()?;
            let (mut px, mut ps, mut nb, mut nn) = (x, scratch, blocks, n);
            let mut first = [
                (&mut px) as *mut CUdeviceptr as *mut c_void,
                (&mut ps) as *mut CUdeviceptr as *mut c_void,
                (&mut nn) as *mut u32 as *mut c_void,
            ];
            sys::cuLaunchKernel(self.block_max.cu_function(), blocks, 1, 1, 256, 1, 1, 0, self.stream, first.as_mut_ptr(), null_mut())
                .result()?;
            let mut second = [
                (&mut px) as *mut CUdeviceptr as *mut c_void,
                (&mut ps) as *mut CUdeviceptr as *mut c_void,
                (&mut nb) as *mut u32 as *mut c_void,
                (&mut nn) as *mut u32 as *mut c_void,
            ];
            sys::cuLaunchKernel(self.divide.cu_function(), blocks, 1, 1, 256, 1, 1, 0, self.stream, second.as_mut_ptr(), null_mut())
                .result()?;
            sys::cuMemFree_v2(scratch).result() // EXPECT: missing_sync
        }
    }

    pub fn wait(&self) -> Result<(), DriverError> {
        unsafe { sys::cuStreamSynchronize(self.stream).result() }
    }
}

impl Drop for Normalizer {
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
    let norm = Normalizer::new(&ctx)?;
    let n = 1u32 << 24;
    let mut x: CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut x, 4 * n as usize).result()?;
        sys::cuMemsetD32Async(x, (-3.0f32).to_bits(), n as usize, norm.stream).result()?;
    }
    norm.normalize(x, n)?;
    norm.wait()?;
    let mut head = [0.0f32; 4];
    unsafe {
        sys::cuMemcpyDtoH_v2(head.as_mut_ptr().cast(), x, 16).result()?;
        sys::cuMemFree_v2(x).result()?;
    }
    println!("{head:?}");
    Ok(())
}
