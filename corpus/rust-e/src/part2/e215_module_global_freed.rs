//! case: a histogram job loads a module with a `__device__` counter array, takes its address with cuModuleGetGlobal, and the cleanup at the end frees it with cuMemFree along with the real allocations, though a module global is not an allocation
//! expect: mismatched_free=1

use std::ffi::{c_void, CString};

use cudarc::driver::sys;
use cudarc::nvrtc::compile_ptx;

const BUCKET_SRC: &str = r#"
__device__ unsigned int g_bucket_counts[64];
extern "C" __global__ void bucketize(const float* keys, unsigned int* bucket_of, unsigned int n, float lo, float inv_width) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int b = (int)((keys[i] - lo) * inv_width);
        b = b < 0 ? 0 : (b > 63 ? 63 : b);
        bucket_of[i] = (unsigned int)b;
        atomicAdd(&g_bucket_counts[b], 1u);
    }
}
"#;

pub fn bucket_counts(keys: &[f32], lo: f32, hi: f32) -> Result<[u32; 64], Box<dyn std::error::Error>> {
    // one-shot job: everything goes to the legacy default stream, in order
    let stream: sys::CUstream = std::ptr::null_mut();
    let ptx = CString::new(compile_ptx(BUCKET_SRC)?.to_src())?;
    let fname = CString::new("bucketize")?;
    let gname = CString::new("g_bucket_counts")?;
    let n = keys.len();
    let mut counts = [0u32; 64];
    unsafe {
        let mut module: sys::CUmodule = std::ptr::null_mut();
        sys::cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void).result()?;
        let mut f: sys::CUfunction = std::ptr::null_mut();
        sys::cuModuleGetFunction(&mut f, module, fname.as_ptr()).result()?;
        let mut d_counts: sys::CUdeviceptr = 0;
        let mut counts_bytes = 0usize;
        sys::cuModuleGetGlobal_v2(&mut d_counts, &mut counts_bytes, module, gname.as_ptr()).result()?;

        let mut d_keys: sys::CUdeviceptr = 0;
        let mut d_bucket_of: sys::CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_keys, n * 4).result()?;
        sys::cuMemAlloc_v2(&mut d_bucket_of, n * 4).result()?;
        sys::cuMemcpyHtoD_v2(d_keys, keys.as_ptr() as *const c_void, n * 4).result()?;
        sys::cuMemsetD32Async(d_counts, 0, 64, stream).result()?;

        let (mut n_v, mut lo_v, mut inv_w) = (n as u32, lo, 64.0 / (hi - lo));
        let mut params: [*mut c_void; 5] = [
            &mut d_keys as *mut _ as *mut c_void,
            &mut d_bucket_of as *mut _ as *mut c_void,
            &mut n_v as *mut _ as *mut c_void,
            &mut lo_v as *mut _ as *mut c_void,
            &mut inv_w as *mut _ as *mut c_void,
        ];
        sys::cuLaunchKernel(f, (n as u32).div_ceil(256), 1, 1, 256, 1, 1, 0, stream, params.as_mut_ptr(), std::ptr::null_mut()).result()?;
        sys::cuStreamSynchronize(stream).result()?;
        sys::cuMemcpyDtoH_v2(counts.as_mut_ptr() as *mut c_void, d_counts, counts_bytes.min(256)).result()?;

        sys::cuMemFree_v2(d_keys).result()?;
        sys::cuMemFree_v2(d_bucket_of).result()?;
        sys::cuMemFree_v2(d_counts).result()?; // EXPECT: mismatched_free
        sys::cuModuleUnload(module).result()?;
    }
    Ok(counts)
}
