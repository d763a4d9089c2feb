//! case: a 3x3 convolution on the legacy default stream; its result is read with a blocking `cuMemcpyDtoH_v2` before the layer (and its weights) is dropped
//! expect: none

use std::error::Error;
use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext, CudaFunction, DriverError};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void conv3x3(const float* img, const float* w, float* out, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    float acc = 0.0f;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            int xx = min(max(x + dx, 0), width - 1);
            int yy = min(max(y + dy, 0), height - 1);
            acc += w[(dy + 1) * 3 + (dx + 1)] * img[yy * width + xx];
        }
    out[y * width + x] = acc;
}
"#;

pub struct Conv3x3 {
    weights: sys::CUdeviceptr,
    img: sys::CUdeviceptr,
    out: sys::CUdeviceptr,
    width: usize,
    height: usize,
    func: CudaFunction,
}

impl Conv3x3 {
    pub fn new(ctx: &Arc<CudaContext>, w: &[f32; 9], width: usize, height: usize) -> Result<Self, Box<dyn Error>> {
        let func = ctx.load_module(compile_ptx(SRC)?)?.load_function("conv3x3")?;
        let mut c = Self { weights: 0, img: 0, out: 0, width, height, func };
        let px = width * height * 4;
        unsafe {
            sys::cuMemAlloc_v2(&mut c.weights, 9 * 4).result()?;
            sys::cuMemAlloc_v2(&mut c.img, px).result()?;
            sys::cuMemAlloc_v2(&mut c.out, px).result()?;
            sys::cuMemcpyHtoD_v2(c.weights, w.as_ptr() as *const c_void, 9 * 4).result()?;
        }
        Ok(c)
    }

    pub fn forward(&mut self, image: &[f32]) -> Result<(), DriverError> {
        assert_eq!(image.len(), self.width * self.height);
        unsafe { sys::cuMemcpyHtoD_v2(self.img, image.as_ptr() as *const c_void, image.len() * 4).result()? };
        let (mut i, mut w, mut o) = (self.img, self.weights, self.out);
        let (mut wd, mut ht) = (self.width as i32, self.height as i32);
        let mut args: [*mut c_void; 5] = [
            &mut i as *mut _ as *mut c_void,
            &mut w as *mut _ as *mut c_void,
            &mut o as *mut _ as *mut c_void,
            &mut wd as *mut _ as *mut c_void,
            &mut ht as *mut _ as *mut c_void,
        ];
        unsafe {
            sys::cuLaunchKernel(
                self.func.cu_function(),
                (self.width as u32).div_ceil(16),
                (self.height as u32).div_ceil(16),
                1,
                16,
                16,
                1,
                0,
                std::ptr::null_mut(), // legacy default stream
                args.as_mut_ptr(),
                std::ptr::null_mut(),
            )
            .result()
        }
    }

    /// Blocking copy on the legacy stream: returns once the kernel and the copy are done.
    pub fn read_output(&self, dst: &mut [f32]) -> Result<(), DriverError> {
        assert_eq!(dst.len(), self.width * self.height);
        unsafe { sys::cuMemcpyDtoH_v2(dst.as_mut_ptr() as *mut c_void, self.out, dst.len() * 4).result() }
    }
}

impl Drop for Conv3x3 {
    fn drop(&mut self) {
        for p in [self.out, self.img, self.weights] {
            if p != 0 {
                unsafe {
                    let _ = sys::cuMemFree_v2(p);
                }
            }
        }
    }
}

pub fn edge_filter(image: &[f32], width: usize, height: usize) -> Result<Vec<f32>, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let laplace = [0.0, 1.0, 0.0, 1.0, -4.0, 1.0, 0.0, 1.0, 0.0];
    let mut conv = Conv3x3::new(&ctx, &laplace, width, height)?;
    conv.forward(image)?;
    let mut out = vec![0.0f32; width * height];
    conv.read_output(&mut out)?;
    drop(conv);
    Ok(out)
}
