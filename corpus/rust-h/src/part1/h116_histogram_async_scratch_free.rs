//! case: image histogram in two passes through cudarc's `sys` layer; the per-block partial histograms live in a `cuMemAllocAsync` scratch buffer that is released with `cuMemFree` right after the reduce kernel is enqueued: `cuMemFree` does not synchronize for stream-ordered allocations, so the memory is freed while both kernels may still use it
//! expect: missing_sync=1

use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::{result, sys, CudaContext};
use cudarc::nvrtc::compile_ptx;

const HIST_SRC: &str = r#"
extern "C" __global__ void partial_histograms(const unsigned char* img, int n, unsigned int* partial) {
    __shared__ unsigned int local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[img[i]], 1u);
    __syncthreads();
    partial[blockIdx.x * 256 + threadIdx.x] = local[threadIdx.x];
}
extern "C" __global__ void reduce_histograms(const unsigned int* partial, int blocks, unsigned int* hist) {
    unsigned int sum = 0;
    for (int b = 0; b < blocks; ++b) sum += partial[b * 256 + threadIdx.x];
    hist[threadIdx.x] = sum;
}
"#;

const BLOCKS: u32 = 120;

pub fn luminance_histogram(pixels: &[u8]) -> Result<[u32; 256], Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let cu_stream = stream.cu_stream();
    let ptx = CString::new(compile_ptx(HIST_SRC)?.to_src())?;

    unsafe {
        let mut module: sys::CUmodule = null_mut();
        sys::cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void).result()?;
        let mut partial_fn: sys::CUfunction = null_mut();
        let mut reduce_fn: sys::CUfunction = null_mut();
        sys::cuModuleGetFunction(&mut partial_fn, module, c"partial_histograms".as_ptr()).result()?;
        sys::cuModuleGetFunction(&mut reduce_fn, module, c"reduce_histograms".as_ptr()).result()?;

        // Page-locked staging for the image and the result.
        let h_img = result::malloc_host(pixels.len(), 0)? as *mut u8;
        std::ptr::copy_nonoverlapping(pixels.as_ptr(), h_img, pixels.len());
        let h_hist = result::malloc_host(256 * 4, 0)? as *mut u32;

        let d_img = result::malloc_async(cu_stream, pixels.len())?;
        let d_hist = result::malloc_async(cu_stream, 256 * 4)?;
        let mut d_partial: sys::CUdeviceptr = 0;
        sys::cuMemAllocAsync(&mut d_partial, BLOCKS as usize * 256 * 4, cu_stream).result()?;
        sys::cuMemcpyHtoDAsync_v2(d_img, h_img as *const c_void, pixels.len(), cu_stream).result()?;

        let n = pixels.len() as i32;
        let mut blocks = BLOCKS as i32;
        let (mut a0, mut a1, mut a2) = (d_img, n, d_partial);
        let mut args = [&mut a0 as *mut _ as *mut c_void, &mut a1 as *mut _ as *mut c_void, &mut a2 as *mut _ as *mut c_void];
        sys::cuLaunchKernel(partial_fn, BLOCKS, 1, 1, 256, 1, 1, 0, cu_stream, args.as_mut_ptr(), null_mut()).result()?;

        let (mut b0, mut b2) = (d_partial, d_hist);
        let mut args = [&mut b0 as *mut _ as *mut c_void, &mut blocks as *mut _ as *mut c_void, &mut b2 as *mut _ as *mut c_void];
        sys::cuLaunchKernel(reduce_fn, 1, 1, 1, 256, 1, 1, 0, cu_stream, args.as_mut_ptr(), null_mut()).result()?;

        // Scratch no longer needed on the host side.
        sys::cuMemFree_v2(d_partial).result()?; // EXPECT: missing_sync

        sys::cuMemcpyDtoHAsync_v2(h_hist as *mut c_void, d_hist, 256 * 4, cu_stream).result()?;
        stream.synchronize()?;
        let mut hist = [0u32; 256];
        hist.copy_from_slice(std::slice::from_raw_parts(h_hist, 256));

        result::free_async(d_img, cu_stream)?;
        result::free_async(d_hist, cu_stream)?;
        stream.synchronize()?;
        result::free_host(h_img as *mut c_void)?;
        result::free_host(h_hist as *mut c_void)?;
        sys::cuModuleUnload(module).result()?;
        Ok(hist)
    }
}
