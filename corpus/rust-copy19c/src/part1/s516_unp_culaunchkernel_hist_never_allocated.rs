//! case: raw cuLaunchKernel of a histogram kernel whose d_hist argument stayed 0 (no cuMemAlloc for it); the kernel's atomicAdd writes through it and the readback copies from it
//! expect: unallocated_pointer=2

use cudarc::driver::sys;
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;
use std::ffi::{c_void, CString};
use std::mem::size_of;

const SRC: &str = r#"
extern "C" __global__ void histogram(const unsigned char* pixels, unsigned int* hist, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&hist[pixels[i]], 1u);
    }
}
"#;

const PIXELS: usize = 640 * 480;
const BINS: usize = 256;

pub fn histogram(image: &[u8; PIXELS]) -> [u32; BINS] {
    let ctx = CudaContext::new(0).unwrap();
    ctx.bind_to_thread().unwrap();
    let ptx = compile_ptx(SRC).unwrap();
    let image_src = CString::new(ptx.to_src()).unwrap();
    let name = CString::new("histogram").unwrap();
    let mut module: sys::CUmodule = std::ptr::null_mut();
    let mut func: sys::CUfunction = std::ptr::null_mut();
    let mut d_pixels: sys::CUdeviceptr = 0;
    let mut d_hist: sys::CUdeviceptr = 0;
    let mut hist = [0u32; BINS];
    unsafe {
        sys::cuModuleLoadData(&mut module, image_src.as_ptr() as *const c_void).result().unwrap();
        sys::cuModuleGetFunction(&mut func, module, name.as_ptr()).result().unwrap();
        sys::cuMemAlloc_v2(&mut d_pixels, PIXELS).result().unwrap();
        sys::cuMemcpyHtoD_v2(d_pixels, image.as_ptr() as *const c_void, PIXELS).result().unwrap();
        let mut n = PIXELS as i32;
        let mut params = [
            &mut d_pixels as *mut sys::CUdeviceptr as *mut c_void,
            &mut d_hist as *mut sys::CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let grid = (PIXELS as u32).div_ceil(256);
        sys::cuLaunchKernel(func, grid, 1, 1, 256, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut()).result().unwrap(); // EXPECT: unallocated_pointer
        sys::cuMemcpyDtoH_v2(hist.as_mut_ptr() as *mut c_void, d_hist, BINS * size_of::<u32>()).result().unwrap(); // EXPECT: unallocated_pointer
        sys::cuMemFree_v2(d_pixels).result().unwrap();
        sys::cuModuleUnload(module);
    }
    hist
}
