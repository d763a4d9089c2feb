//! case: a FIR smoother that owns its taps and work buffers is dropped only after a `wait_idle` helper synchronized its stream; the pinned output is read after that too
//! expect: none

use std::error::Error;
use std::ffi::c_void;
use std::ptr;
use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext, CudaFunction, DriverError};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void fir(const float* x, const float* taps, float* y, int n, int ntaps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < ntaps; ++k) {
        int j = i - k;
        if (j >= 0) acc += taps[k] * x[j];
    }
    y[i] = acc;
}
"#;

pub struct PinnedOut {
    ptr: *mut f32,
    len: usize,
}

impl PinnedOut {
    pub fn new(len: usize) -> Result<Self, DriverError> {
        let mut p: *mut c_void = ptr::null_mut();
        unsafe { sys::cuMemAllocHost_v2(&mut p, len * 4).result()? };
        Ok(Self { ptr: p as *mut f32, len })
    }

    pub fn as_slice(&self) -> &[f32] {
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl Drop for PinnedOut {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemFreeHost(self.ptr as *mut c_void);
        }
    }
}

pub struct Smoother {
    taps: sys::CUdeviceptr,
    ntaps: usize,
    d_x: sys::CUdeviceptr,
    d_y: sys::CUdeviceptr,
    cap: usize,
    func: CudaFunction,
    stream: sys::CUstream,
}

impl Smoother {
    pub fn new(ctx: &Arc<CudaContext>, taps: &[f32], cap: usize) -> Result<Self, Box<dyn Error>> {
        let func = ctx.load_module(compile_ptx(SRC)?)?.load_function("fir")?;
        let mut s = Self { taps: 0, ntaps: taps.len(), d_x: 0, d_y: 0, cap, func, stream: result::stream::null() };
        // from here on, Drop frees whatever was allocated
        unsafe {
            s.taps = result::malloc_sync(std::mem::size_of_val(taps))?;
            s.d_x = result::malloc_sync(cap * 4)?;
            s.d_y = result::malloc_sync(cap * 4)?;
            result::memcpy_htod_sync(s.taps, taps)?;
        }
        Ok(s)
    }

    /// Enqueues the filter over `x` and the copy of the result into `out`.
    pub fn forward(&mut self, x: &[f32], out: &mut PinnedOut) -> Result<(), DriverError> {
        assert!(x.len() <= self.cap && out.len >= x.len());
        unsafe { result::memcpy_htod_sync(self.d_x, x)? };
        let (mut xp, mut tp, mut yp) = (self.d_x, self.taps, self.d_y);
        let (mut n, mut nt) = (x.len() as i32, self.ntaps as i32);
        let mut args: [*mut c_void; 5] = [
            &mut xp as *mut _ as *mut c_void,
            &mut tp as *mut _ as *mut c_void,
            &mut yp as *mut _ as *mut c_void,
            &mut n as *mut _ as *mut c_void,
            &mut nt as *mut _ as *mut c_void,
        ];
        unsafe {
            result::launch_kernel(self.func.cu_function(), ((x.len() as u32).div_ceil(256), 1, 1), (256, 1, 1), 0, self.stream, &mut args)?;
            sys::cuMemcpyDtoHAsync_v2(out.ptr as *mut c_void, self.d_y, x.len() * 4, self.stream).result()
        }
    }
}

impl Drop for Smoother {
    fn drop(&mut self) {
        for p in [self.taps, self.d_x, self.d_y] {
            if p != 0 {
                unsafe {
                    let _ = sys::cuMemFree_v2(p);
                }
            }
        }
    }
}

fn wait_idle(stream: sys::CUstream) -> Result<(), DriverError> {
    unsafe { result::stream::synchronize(stream) }
}

pub fn smooth(signal: &[f32], taps: &[f32]) -> Result<Vec<f32>, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let mut out = PinnedOut::new(signal.len())?;
    let mut smoother = Smoother::new(&ctx, taps, signal.len())?;

    let queued = smoother.forward(signal, &mut out);
    wait_idle(smoother.stream)?;
    queued?;
    drop(smoother);

    Ok(out.as_slice()[..signal.len()].to_vec())
}
