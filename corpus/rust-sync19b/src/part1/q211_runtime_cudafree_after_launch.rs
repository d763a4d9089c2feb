//! case: runtime-API image pass: the input frame is released with `cudaFree` straight after `cudaLaunchKernel`, the stream is synchronized only afterwards
//! expect: relies_on_implicit_sync=1

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr;

use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::result::RuntimeError;
use cudarc::runtime::sys::{self, cudaMemcpyKind, dim3};

const SRC: &str = r#"
extern "C" __global__ void box_blur3(const unsigned char* src, unsigned char* dst, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int acc = 0, cnt = 0;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            int xx = x + dx, yy = y + dy;
            if (xx >= 0 && xx < w && yy >= 0 && yy < h) { acc += src[yy * w + xx]; ++cnt; }
        }
    dst[y * w + x] = (unsigned char)(acc / cnt);
}
"#;

struct Frame {
    ptr: *mut c_void,
}

impl Frame {
    fn alloc(bytes: usize) -> Result<Self, RuntimeError> {
        let mut p = ptr::null_mut();
        unsafe { sys::cudaMalloc(&mut p, bytes).result()? };
        Ok(Self { ptr: p })
    }

    /// Gives up ownership without freeing.
    fn into_raw(self) -> *mut c_void {
        let p = self.ptr;
        std::mem::forget(self);
        p
    }
}

impl Drop for Frame {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cudaFree(self.ptr);
        }
    }
}

pub struct Blur {
    lib: sys::cudaLibrary_t,
    kernel: sys::cudaKernel_t,
    stream: sys::cudaStream_t,
}

impl Blur {
    pub fn new() -> Result<Self, Box<dyn Error>> {
        let image = CString::new(compile_ptx(SRC)?.to_src())?;
        let mut lib = ptr::null_mut();
        unsafe {
            sys::cudaLibraryLoadData(&mut lib, image.as_ptr() as *const c_void, ptr::null_mut(), ptr::null_mut(), 0, ptr::null_mut(), ptr::null_mut(), 0)
                .result()?;
        }
        let mut blur = Self { lib, kernel: ptr::null_mut(), stream: ptr::null_mut() };
        unsafe {
            sys::cudaLibraryGetKernel(&mut blur.kernel, blur.lib, c"box_blur3".as_ptr()).result()?;
            sys::cudaStreamCreate(&mut blur.stream).result()?;
        }
        Ok(blur)
    }

    pub fn run(&self, pixels: &[u8], w: usize, h: usize) -> Result<Vec<u8>, Box<dyn Error>> {
        assert_eq!(pixels.len(), w * h);
        let src = Frame::alloc(pixels.len())?;
        let dst = Frame::alloc(pixels.len())?;
        unsafe {
            sys::cudaMemcpy(src.ptr, pixels.as_ptr() as *const c_void, pixels.len(), cudaMemcpyKind::cudaMemcpyHostToDevice).result()?;
        }

        let (mut s, mut d, mut wi, mut hi) = (src.ptr, dst.ptr, w as i32, h as i32);
        let mut args: [*mut c_void; 4] = [
            &mut s as *mut _ as *mut c_void,
            &mut d as *mut _ as *mut c_void,
            &mut wi as *mut _ as *mut c_void,
            &mut hi as *mut _ as *mut c_void,
        ];
        let grid = dim3 { x: (w as u32).div_ceil(16), y: (h as u32).div_ceil(16), z: 1 };
        let block = dim3 { x: 16, y: 16, z: 1 };
        unsafe {
            sys::cudaLaunchKernel(self.kernel as *const c_void, grid, block, args.as_mut_ptr(), 0, self.stream).result()?;
        }
        let raw = src.into_raw();
        unsafe { sys::cudaFree(raw).result()? }; // EXPECT: relies_on_implicit_sync

        unsafe { sys::cudaStreamSynchronize(self.stream).result()? };
        let mut out = vec![0u8; pixels.len()];
        unsafe {
            sys::cudaMemcpy(out.as_mut_ptr() as *mut c_void, dst.ptr, out.len(), cudaMemcpyKind::cudaMemcpyDeviceToHost).result()?;
        }
        Ok(out)
    }
}

impl Drop for Blur {
    fn drop(&mut self) {
        unsafe {
            if !self.stream.is_null() {
                let _ = sys::cudaStreamDestroy(self.stream);
            }
            let _ = sys::cudaLibraryUnload(self.lib);
        }
    }
}
