//! case: a particle filter kernel whose dropped-count module global (cuModuleGetGlobal) is freed with cuMemFree in Drop
//! expect: mismatched_free=1
use std::ffi::{c_void, CString};

use cudarc::driver::{sys, DriverError};

const FILTER_SRC: &str = r#"
__device__ unsigned long long g_dropped;

extern "C" __global__ void cull(const float* w, float* out, unsigned n, float thr) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (w[i] < thr) { out[i] = 0.0f; atomicAdd(&g_dropped, 1ULL); }
    else out[i] = w[i];
}
"#;

pub struct Culler {
    module: sys::CUmodule,
    cull: sys::CUfunction,
    dropped: sys::CUdeviceptr,
    out: sys::CUdeviceptr,
    capacity: usize,
}

impl Culler {
    pub fn new(capacity: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let ptx = cudarc::nvrtc::compile_ptx(FILTER_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let mut module = std::ptr::null_mut();
        let mut cull = std::ptr::null_mut();
        let mut dropped = 0;
        let mut dropped_bytes = 0usize;
        let mut out = 0;
        unsafe {
            sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
            sys::cuModuleGetFunction(&mut cull, module, c"cull".as_ptr()).result()?;
            sys::cuModuleGetGlobal_v2(&mut dropped, &mut dropped_bytes, module, c"g_dropped".as_ptr()).result()?;
            sys::cuMemAlloc_v2(&mut out, capacity * 4).result()?;
        }
        Ok(Self { module, cull, dropped, out, capacity })
    }

    /// Culls `weights` (device memory of `n <= capacity` floats); returns how many were dropped so far.
    pub fn run(&mut self, weights: sys::CUdeviceptr, n: u32, thr: f32, stream: sys::CUstream) -> Result<u64, DriverError> {
        assert!(n as usize <= self.capacity);
        let mut w = weights;
        let mut out = self.out;
        let mut n_arg = n;
        let mut thr_arg = thr;
        let mut params: [*mut c_void; 4] = [
            (&mut w as *mut u64).cast(),
            (&mut out as *mut u64).cast(),
            (&mut n_arg as *mut u32).cast(),
            (&mut thr_arg as *mut f32).cast(),
        ];
        let mut dropped = 0u64;
        unsafe {
            sys::cuLaunchKernel(self.cull, n.div_ceil(256), 1, 1, 256, 1, 1, 0, stream, params.as_mut_ptr(), std::ptr::null_mut())
                .result()?;
            sys::cuStreamSynchronize(stream).result()?;
            sys::cuMemcpyDtoH_v2((&mut dropped as *mut u64).cast(), self.dropped, 8).result()?;
        }
        Ok(dropped)
    }
}

impl Drop for Culler {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            let _ = sys::cuMemFree_v2(self.out);
            let _ = sys::cuMemFree_v2(self.dropped); // EXPECT: mismatched_free
            let _ = sys::cuModuleUnload(self.module);
        }
    }
}
