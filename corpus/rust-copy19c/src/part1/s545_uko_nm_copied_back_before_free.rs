//! case: near miss: the kernel's output is copied back with cuMemcpyDtoH before cuMemFree
//! expect: none

use cudarc::driver::sys;
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::ffi::c_void;
use std::mem::size_of;

const SRC: &str = r#"
extern "C" __global__ void gray(const unsigned char* rgb, unsigned char* out, int pixels) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < pixels) {
        float y = 0.299f * rgb[3 * i] + 0.587f * rgb[3 * i + 1] + 0.114f * rgb[3 * i + 2];
        out[i] = (unsigned char)y;
    }
}
"#;

const PIXELS: usize = 320 * 240;

pub fn to_gray(rgb: &[u8; 3 * PIXELS]) -> Vec<u8> {
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(SRC).unwrap()).unwrap().load_function("gray").unwrap();
    let mut d_rgb: sys::CUdeviceptr = 0;
    let mut d_gray: sys::CUdeviceptr = 0;
    let mut out = vec![0u8; PIXELS];
    unsafe {
        sys::cuMemAlloc_v2(&mut d_rgb, 3 * PIXELS).result().unwrap();
        sys::cuMemAlloc_v2(&mut d_gray, PIXELS * size_of::<u8>()).result().unwrap();
        sys::cuMemcpyHtoD_v2(d_rgb, rgb.as_ptr() as *const c_void, 3 * PIXELS).result().unwrap();
    }
    let px = PIXELS as i32;
    let mut b = stream.launch_builder(&f);
    b.arg(&d_rgb).arg(&d_gray).arg(&px);
    unsafe { b.launch(LaunchConfig::for_num_elems(PIXELS as u32)).unwrap() };
    unsafe {
        sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, d_gray, PIXELS).result().unwrap();
        sys::cuMemFree_v2(d_gray).result().unwrap();
        sys::cuMemFree_v2(d_rgb).result().unwrap();
    }
    out
}
