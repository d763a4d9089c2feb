//! case: k-means assignment step on cudarc's sys layer allocates its distance scratch with cuMemAllocAsync on the compute stream, launches the NVRTC kernel that writes it, and releases it with cuMemFree_v2 — which does not synchronize for stream-ordered allocations — before the stream is synchronized
//! expect: missing_sync=1

use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::{sys, DriverError};
use cudarc::nvrtc::compile_ptx;

const ASSIGN_SRC: &str = r#"
extern "C" __global__ void assign(const float* pts, const float* centroids, float* dist, int* labels, int n, int k, int dim) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int best = 0; float bd = 3.4e38f;
    for (int c = 0; c < k; ++c) {
        float d = 0.f;
        for (int j = 0; j < dim; ++j) { float t = pts[i * dim + j] - centroids[c * dim + j]; d += t * t; }
        dist[i * k + c] = d;
        if (d < bd) { bd = d; best = c; }
    }
    labels[i] = best;
}
"#;

pub struct KMeansGpu {
    module: sys::CUmodule,
    assign: sys::CUfunction,
    stream: sys::CUstream,
}

impl KMeansGpu {
    pub fn new(stream: sys::CUstream) -> Result<Self, Box<dyn std::error::Error>> {
        let image = CString::new(compile_ptx(ASSIGN_SRC)?.to_src())?;
        let mut km = KMeansGpu { module: null_mut(), assign: null_mut(), stream };
        unsafe {
            sys::cuModuleLoadData(&mut km.module, image.as_ptr().cast()).result()?;
            sys::cuModuleGetFunction(&mut km.assign, km.module, c"assign".as_ptr()).result()?;
        }
        Ok(km)
    }

    /// Assigns every point to its nearest centroid; `labels` is device memory of `n` ints.
    pub fn assign_step(&self, pts: sys::CUdeviceptr, centroids: sys::CUdeviceptr, labels: sys::CUdeviceptr, n: usize, k: usize, dim: usize) -> Result<(), DriverError> {
        let mut dist: sys::CUdeviceptr = 0;
        unsafe {
            sys::cuMemAllocAsync(&mut dist, n * k * 4, self.stream).result()?;
            let (mut p, mut c, mut l) = (pts, centroids, labels);
            let (mut n_, mut k_, mut d_) = (n as i32, k as i32, dim as i32);
            let mut params: [*mut c_void; 7] = [
                (&mut p) as *mut _ as *mut c_void,
                (&mut c) as *mut _ as *mut c_void,
                (&mut dist) as *mut _ as *mut c_void,
                (&mut l) as *mut _ as *mut c_void,
                (&mut n_) as *mut i32 as *mut c_void,
                (&mut k_) as *mut i32 as *mut c_void,
                (&mut d_) as *mut i32 as *mut c_void,
            ];
            sys::cuLaunchKernel(self.assign, (n as u32).div_ceil(128), 1, 1, 128, 1, 1, 0, self.stream, params.as_mut_ptr(), null_mut()).result()?;
            // The per-pair distances were only needed inside the kernel.
            sys::cuMemFree_v2(dist).result()?; // EXPECT: missing_sync
            sys::cuStreamSynchronize(self.stream).result()
        }
    }
}

impl Drop for KMeansGpu {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuModuleUnload(self.module);
        }
    }
}
