//! case: a layer-norm helper keeps its reduction partials in a local `Vec` of buffers that goes out of scope when it returns, with both kernels still queued
//! expect: relies_on_implicit_sync=1

use std::error::Error;
use std::ffi::c_void;

use cudarc::driver::{result, sys, CudaContext, CudaFunction, DriverError};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void partial_moments(const float* x, float* sum, float* sumsq, int n) {
    __shared__ float s[256];
    __shared__ float q[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    s[threadIdx.x] = v;
    q[threadIdx.x] = v * v;
    __syncthreads();
    for (int step = blockDim.x / 2; step > 0; step >>= 1) {
        if (threadIdx.x < step) {
            s[threadIdx.x] += s[threadIdx.x + step];
            q[threadIdx.x] += q[threadIdx.x + step];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        sum[blockIdx.x] = s[0];
        sumsq[blockIdx.x] = q[0];
    }
}

extern "C" __global__ void normalize(float* x, const float* sum, const float* sumsq, int nblocks, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0.0f, q = 0.0f;
    for (int b = 0; b < nblocks; ++b) { s += sum[b]; q += sumsq[b]; }
    float mean = s / n;
    float var = q / n - mean * mean;
    x[i] = (x[i] - mean) * rsqrtf(var + 1e-5f);
}
"#;

struct RawBuf(sys::CUdeviceptr);

impl RawBuf {
    fn new(bytes: usize) -> Result<Self, DriverError> {
        Ok(Self(unsafe { result::malloc_sync(bytes)? }))
    }
}

impl Drop for RawBuf {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemFree_v2(self.0);
        }
    }
}

const BLOCK: u32 = 256;

/// Normalizes `data` (n floats on the device) in place on `stream`.
fn enqueue_layer_norm(
    stream: sys::CUstream,
    moments: &CudaFunction,
    norm: &CudaFunction,
    data: sys::CUdeviceptr,
    n: usize,
) -> Result<(), DriverError> {
    let nblocks = (n as u32).div_ceil(BLOCK);
    let mut scratch: Vec<RawBuf> = Vec::with_capacity(2);
    scratch.push(RawBuf::new(nblocks as usize * 4)?);
    scratch.push(RawBuf::new(nblocks as usize * 4)?);

    let mut x = data;
    let mut sum = scratch[0].0;
    let mut sumsq = scratch[1].0;
    let mut n_i = n as i32;
    let mut nb = nblocks as i32;

    let mut p1: [*mut c_void; 4] = [
        &mut x as *mut _ as *mut c_void,
        &mut sum as *mut _ as *mut c_void,
        &mut sumsq as *mut _ as *mut c_void,
        &mut n_i as *mut _ as *mut c_void,
    ];
    unsafe { result::launch_kernel(moments.cu_function(), (nblocks, 1, 1), (BLOCK, 1, 1), 0, stream, &mut p1)? };

    let mut p2: [*mut c_void; 5] = [
        &mut x as *mut _ as *mut c_void,
        &mut sum as *mut _ as *mut c_void,
        &mut sumsq as *mut _ as *mut c_void,
        &mut nb as *mut _ as *mut c_void,
        &mut n_i as *mut _ as *mut c_void,
    ];
    unsafe { result::launch_kernel(norm.cu_function(), (nblocks, 1, 1), (BLOCK, 1, 1), 0, stream, &mut p2) }
} // EXPECT: relies_on_implicit_sync

pub fn layer_norm(values: &[f32]) -> Result<Vec<f32>, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(SRC)?)?;
    let moments = module.load_function("partial_moments")?;
    let norm = module.load_function("normalize")?;

    let data = RawBuf::new(std::mem::size_of_val(values))?;
    unsafe { result::memcpy_htod_sync(data.0, values)? };
    let queued = enqueue_layer_norm(stream.cu_stream(), &moments, &norm, data.0, values.len());
    stream.synchronize()?;
    queued?;

    let mut out = vec![0.0f32; values.len()];
    unsafe { result::memcpy_dtoh_sync(&mut out, data.0)? };
    Ok(out)
}
