//! case: an image blur cudaMalloc's input and output, launches the blur (cuLaunchKernel) into the output, then cudaFree's the output; the copy back reads the input buffer by mistake.
//! expect: unread_kernel_output=1
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys::{cudaDeviceSynchronize, cudaFree, cudaMalloc, cudaMemcpy, cudaMemcpyKind};
use std::ffi::c_void;

const BLUR_SRC: &str = r#"
extern "C" __global__ void box_blur_h(const unsigned char* src, unsigned char* dst, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x >= w || y >= h) return;
    int l = x > 0 ? x - 1 : x, r = x < w - 1 ? x + 1 : x;
    dst[y * w + x] = (src[y * w + l] + src[y * w + x] + src[y * w + r]) / 3;
}
"#;

const W: usize = 1024;
const H: usize = 768;

pub fn blur(image: &[u8; W * H]) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let f = ctx.load_module(compile_ptx(BLUR_SRC)?)?.load_function("box_blur_h")?;
    let mut result = vec![0u8; W * H];
    let mut d_src: *mut c_void = std::ptr::null_mut();
    let mut d_dst: *mut c_void = std::ptr::null_mut();
    let (mut w, mut h) = (W as i32, H as i32);
    unsafe {
        cudaMalloc(&mut d_src, W * H);
        cudaMalloc(&mut d_dst, W * H);
        cudaMemcpy(d_src, image.as_ptr() as *const c_void, W * H, cudaMemcpyKind::cudaMemcpyHostToDevice);
        let mut p_src = d_src as CUdeviceptr;
        let mut p_dst = d_dst as CUdeviceptr;
        let mut params: [*mut c_void; 4] = [
            &mut p_src as *mut CUdeviceptr as *mut c_void,
            &mut p_dst as *mut CUdeviceptr as *mut c_void,
            &mut w as *mut i32 as *mut c_void,
            &mut h as *mut i32 as *mut c_void,
        ];
        sys::cuLaunchKernel(f.cu_function(), (W / 128) as u32, H as u32, 1, 128, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut());
        cudaDeviceSynchronize();
        cudaMemcpy(result.as_mut_ptr() as *mut c_void, d_src, W * H, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        cudaFree(d_src);
        cudaFree(d_dst); // EXPECT: unread_kernel_output
    }
    Ok(result)
}
