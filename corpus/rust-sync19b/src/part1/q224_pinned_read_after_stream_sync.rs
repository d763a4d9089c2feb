//! case: a two-phase scorer frees phase one's raw input early, then synchronizes the stream before reading phase two's pinned result
//! expect: none

use std::error::Error;
use std::ffi::c_void;
use std::ptr;

use cudarc::driver::{result, sys, CudaContext, CudaFunction, DriverError};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void clamp_scores(const float* raw, float* clean, float lo, float hi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) clean[i] = fminf(fmaxf(raw[i], lo), hi);
}

extern "C" __global__ void sigmoid(const float* clean, float* prob, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) prob[i] = 1.0f / (1.0f + __expf(-clean[i]));
}
"#;

struct Dev(sys::CUdeviceptr);

impl Dev {
    fn alloc(bytes: usize) -> Result<Self, DriverError> {
        Ok(Self(unsafe { result::malloc_sync(bytes)? }))
    }
}

impl Drop for Dev {
    fn drop(&mut self) {
        unsafe {
            let _ = result::free_sync(self.0);
        }
    }
}

struct PinnedF32 {
    ptr: *mut f32,
    len: usize,
}

impl PinnedF32 {
    fn new(len: usize) -> Result<Self, DriverError> {
        let p = unsafe { result::malloc_host(len * 4, 0)? };
        Ok(Self { ptr: p as *mut f32, len })
    }
}

impl Drop for PinnedF32 {
    fn drop(&mut self) {
        unsafe {
            let _ = result::free_host(self.ptr as *mut c_void);
        }
    }
}

fn launch_1d(f: &CudaFunction, n: usize, stream: sys::CUstream, args: &mut [*mut c_void]) -> Result<(), DriverError> {
    unsafe { result::launch_kernel(f.cu_function(), ((n as u32).div_ceil(256), 1, 1), (256, 1, 1), 0, stream, args) }
}

pub fn score_synced(raw: &[f32]) -> Result<Vec<f32>, Box<dyn Error>> {
    let n = raw.len();
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let cs = stream.cu_stream();
    let module = ctx.load_module(compile_ptx(SRC)?)?;
    let clamp = module.load_function("clamp_scores")?;
    let sigmoid = module.load_function("sigmoid")?;

    let d_raw = Dev::alloc(n * 4)?;
    let d_clean = Dev::alloc(n * 4)?;
    let d_prob = Dev::alloc(n * 4)?;
    let host = PinnedF32::new(n)?;
    unsafe { result::memcpy_htod_sync(d_raw.0, raw)? };

    // phase one
    let (mut r, mut c, mut lo, mut hi, mut n_i) = (d_raw.0, d_clean.0, -8.0f32, 8.0f32, n as i32);
    let mut a1: [*mut c_void; 5] = [
        &mut r as *mut _ as *mut c_void,
        &mut c as *mut _ as *mut c_void,
        &mut lo as *mut _ as *mut c_void,
        &mut hi as *mut _ as *mut c_void,
        &mut n_i as *mut _ as *mut c_void,
    ];
    launch_1d(&clamp, n, cs, &mut a1)?;
    unsafe { result::stream::synchronize(cs)? };

    // phase two, copied back into pinned memory
    let mut p = d_prob.0;
    let mut a2: [*mut c_void; 3] = [
        &mut c as *mut _ as *mut c_void,
        &mut p as *mut _ as *mut c_void,
        &mut n_i as *mut _ as *mut c_void,
    ];
    launch_1d(&sigmoid, n, cs, &mut a2)?;
    let copied = unsafe { sys::cuMemcpyDtoHAsync_v2(host.ptr as *mut c_void, d_prob.0, n * 4, cs).result() };

    // phase one's input is finished: give the memory back early
    drop(d_raw);

    unsafe { result::stream::synchronize(cs)? };
    copied?;
    let probs: Vec<f32> = unsafe { std::slice::from_raw_parts(host.ptr, host.len) }.to_vec();
    Ok(probs)
}
