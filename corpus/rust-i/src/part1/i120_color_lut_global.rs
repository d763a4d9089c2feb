//! case: film color grader keeps its 33^3 RGB LUT in a `__device__` global of an NVRTC-compiled module, located with cuModuleGetGlobal_v2 and filled with a blocking cuMemcpyHtoD_v2; the grader's Drop then calls cuMemFree_v2 on that global as if it were an allocation
//! expect: mismatched_free=1

use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::{sys, DriverError};
use cudarc::nvrtc::compile_ptx;

const LUT_DIM: usize = 33;

const GRADE_SRC: &str = r#"
#define LUT_DIM 33
__device__ float3 g_lut[LUT_DIM * LUT_DIM * LUT_DIM];
extern "C" __global__ void apply_lut(uchar4* px, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uchar4 p = px[i];
    int r = p.x * (LUT_DIM - 1) / 255, g = p.y * (LUT_DIM - 1) / 255, b = p.z * (LUT_DIM - 1) / 255;
    float3 c = g_lut[(b * LUT_DIM + g) * LUT_DIM + r];
    px[i] = make_uchar4((unsigned char)(c.x * 255.f), (unsigned char)(c.y * 255.f), (unsigned char)(c.z * 255.f), p.w);
}
"#;

pub struct ColorGrader {
    module: sys::CUmodule,
    apply: sys::CUfunction,
    lut_global: sys::CUdeviceptr,
    lut_bytes: usize,
}

impl ColorGrader {
    pub fn new(lut: &[[f32; 3]]) -> Result<Self, Box<dyn std::error::Error>> {
        assert_eq!(lut.len(), LUT_DIM.pow(3));
        let ptx = compile_ptx(GRADE_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let mut g = ColorGrader { module: null_mut(), apply: null_mut(), lut_global: 0, lut_bytes: 0 };
        unsafe {
            sys::cuModuleLoadData(&mut g.module, image.as_ptr().cast()).result()?;
            sys::cuModuleGetFunction(&mut g.apply, g.module, c"apply_lut".as_ptr()).result()?;
            sys::cuModuleGetGlobal_v2(&mut g.lut_global, &mut g.lut_bytes, g.module, c"g_lut".as_ptr()).result()?;
            assert_eq!(g.lut_bytes, std::mem::size_of_val(lut));
            sys::cuMemcpyHtoD_v2(g.lut_global, lut.as_ptr() as *const c_void, g.lut_bytes).result()?;
        }
        Ok(g)
    }

    /// Grades an RGBA image in device memory on `stream`.
    pub fn grade(&self, pixels: sys::CUdeviceptr, n: u32, stream: sys::CUstream) -> Result<(), DriverError> {
        let mut px = pixels;
        let mut n = n;
        let mut params = [(&mut px) as *mut _ as *mut c_void, (&mut n) as *mut u32 as *mut c_void];
        unsafe { sys::cuLaunchKernel(self.apply, n.div_ceil(256), 1, 1, 256, 1, 1, 0, stream, params.as_mut_ptr(), null_mut()).result() }
    }
}

impl Drop for ColorGrader {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            let _ = sys::cuMemFree_v2(self.lut_global); // EXPECT: mismatched_free
            let _ = sys::cuModuleUnload(self.module);
        }
    }
}
