//! case: thumbnail service (cudarc driver sys layer) that keeps everything on the legacy default stream: the image goes up with the blocking cuMemcpyHtoD_v2 from a Vec, the resize kernel runs on the null stream, and the blocking cuMemcpyDtoH_v2 behind it fills the output Vec that is encoded right away (near-miss: no async copy, one stream)
//! expect: none

use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUmodule, CUresult, CUstream};
use cudarc::nvrtc::compile_ptx;
use std::ffi::{c_void, CString};

const RESIZE_SRC: &str = r#"
extern "C" __global__ void box_downscale(const unsigned char* src, unsigned sw, unsigned sh,
                                         unsigned char* dst, unsigned dw, unsigned dh) {
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dw || y >= dh) return;
    unsigned fx = sw / dw, fy = sh / dh, acc = 0;
    for (unsigned j = 0; j < fy; ++j)
        for (unsigned i = 0; i < fx; ++i) acc += src[(y * fy + j) * sw + x * fx + i];
    dst[y * dw + x] = (unsigned char)(acc / (fx * fy));
}
"#;

fn ok(r: CUresult) -> Result<(), CUresult> {
    if r == CUresult::CUDA_SUCCESS { Ok(()) } else { Err(r) }
}

pub struct Thumbnailer {
    module: CUmodule,
    kernel: CUfunction,
}

pub struct GrayImage {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<u8>,
}

impl Thumbnailer {
    pub fn new() -> Result<Self, Box<dyn std::error::Error>> {
        let image = CString::new(compile_ptx(RESIZE_SRC)?.to_src())?;
        let mut module: CUmodule = std::ptr::null_mut();
        let mut kernel: CUfunction = std::ptr::null_mut();
        unsafe {
            ok(sys::cuModuleLoadData(&mut module, image.as_ptr() as *const c_void)).map_err(|e| format!("{e:?}"))?;
            ok(sys::cuModuleGetFunction(&mut kernel, module, c"box_downscale".as_ptr())).map_err(|e| format!("{e:?}"))?;
        }
        Ok(Thumbnailer { module, kernel })
    }

    pub fn thumbnail(&self, img: &GrayImage, dw: u32, dh: u32) -> Result<GrayImage, CUresult> {
        let src_bytes = img.pixels.len();
        let dst_bytes = (dw * dh) as usize;
        let mut d_src: CUdeviceptr = 0;
        let mut d_dst: CUdeviceptr = 0;
        let mut out = vec![0u8; dst_bytes];
        let legacy: CUstream = std::ptr::null_mut();
        unsafe {
            ok(sys::cuMemAlloc_v2(&mut d_src, src_bytes))?;
            ok(sys::cuMemAlloc_v2(&mut d_dst, dst_bytes))?;
            ok(sys::cuMemcpyHtoD_v2(d_src, img.pixels.as_ptr() as *const c_void, src_bytes))?;
            let (mut s, mut sw, mut sh, mut d, mut w, mut h) = (d_src, img.width, img.height, d_dst, dw, dh);
            let mut params: [*mut c_void; 6] = [
                &mut s as *mut _ as *mut c_void,
                &mut sw as *mut _ as *mut c_void,
                &mut sh as *mut _ as *mut c_void,
                &mut d as *mut _ as *mut c_void,
                &mut w as *mut _ as *mut c_void,
                &mut h as *mut _ as *mut c_void,
            ];
            ok(sys::cuLaunchKernel(self.kernel, dw.div_ceil(16), dh.div_ceil(16), 1, 16, 16, 1, 0, legacy, params.as_mut_ptr(), std::ptr::null_mut()))?;
            ok(sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, d_dst, dst_bytes))?;
            sys::cuMemFree_v2(d_src);
            sys::cuMemFree_v2(d_dst);
        }
        let mean = out.iter().map(|&p| p as u64).sum::<u64>() / dst_bytes.max(1) as u64;
        log_thumbnail(dw, dh, mean);
        Ok(GrayImage { width: dw, height: dh, pixels: out })
    }
}

fn log_thumbnail(w: u32, h: u32, mean: u64) {
    eprintln!("thumbnail {w}x{h} mean luma {mean}");
}

impl Drop for Thumbnailer {
    fn drop(&mut self) {
        unsafe {
            sys::cuModuleUnload(self.module);
        }
    }
}
