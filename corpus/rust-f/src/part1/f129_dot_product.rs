//! case: a stream-ordered temporary (`cuMemAllocAsync`) is released with plain `cuMemFree` only after `cuStreamSynchronize` (allowed: the driver just does not synchronize for it), and a runtime-API staging buffer from `cudaMallocHost` goes back through `cudaFreeHost`
//! expect: none

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr, CUstream};
use cudarc::driver::{CudaContext, CudaFunction};
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys as rt;

const DOT_SRC: &str = r#"
extern "C" __global__ void partial_dot(const float* a, const float* b, float* partial, unsigned int n)
{
    __shared__ float s[256];
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? a[i] * b[i] : 0.0f;
    __syncthreads();
    for (unsigned int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}
"#;

/// Dot product of two device vectors with a stream-ordered temporary for the partial sums.
pub fn dot(f: &CudaFunction, a: CUdeviceptr, b: CUdeviceptr, n: u32, stream: CUstream) -> Result<f32, Box<dyn std::error::Error>> {
    let blocks = n.div_ceil(256);
    let bytes = blocks as usize * 4;
    let mut partial: CUdeviceptr = 0;
    let mut host: *mut c_void = null_mut();
    unsafe {
        sys::cuMemAllocAsync(&mut partial, bytes, stream).result()?;
        rt::cudaMallocHost(&mut host, bytes).result()?;
        let (mut pa, mut pb, mut pp, mut nn) = (a, b, partial, n);
        let mut args = [
            (&mut pa) as *mut CUdeviceptr as *mut c_void,
            (&mut pb) as *mut CUdeviceptr as *mut c_void,
            (&mut pp) as *mut CUdeviceptr as *mut c_void,
            (&mut nn) as *mut u32 as *mut c_void,
        ];
        sys::cuLaunchKernel(f.cu_function(), blocks, 1, 1, 256, 1, 1, 0, stream, args.as_mut_ptr(), null_mut()).result()?;
        sys::cuMemcpyDtoHAsync_v2(host, partial, bytes, stream).result()?;
        sys::cuStreamSynchronize(stream).result()?;
        sys::cuMemFree_v2(partial).result()?;
        let sum = std::slice::from_raw_parts(host as *const f32, blocks as usize).iter().sum();
        rt::cudaFreeHost(host).result()?;
        Ok(sum)
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let f = ctx.load_module(compile_ptx(DOT_SRC)?)?.load_function("partial_dot")?;
    let n = 1u32 << 22;
    let mut stream: CUstream = null_mut();
    let (mut a, mut b): (CUdeviceptr, CUdeviceptr) = (0, 0);
    unsafe {
        sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
        sys::cuMemAlloc_v2(&mut a, 4 * n as usize).result()?;
        sys::cuMemAlloc_v2(&mut b, 4 * n as usize).result()?;
        sys::cuMemsetD32Async(a, 0.5f32.to_bits(), n as usize, stream).result()?;
        sys::cuMemsetD32Async(b, 2.0f32.to_bits(), n as usize, stream).result()?;
    }
    let d = dot(&f, a, b, n, stream)?;
    println!("dot = {d}");
    unsafe {
        sys::cuStreamSynchronize(stream).result()?;
        sys::cuMemFree_v2(a).result()?;
        sys::cuMemFree_v2(b).result()?;
        sys::cuStreamDestroy_v2(stream).result()?;
    }
    Ok(())
}
