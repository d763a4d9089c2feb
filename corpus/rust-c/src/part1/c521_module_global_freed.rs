//! case: a post-processing module exposes its lookup table as a `__device__` global; the loader gets its address with `cuModuleGetGlobal` (through `result::module::get_global`) and its cleanup frees that address with `cuMemFree` as if it were an allocation
//! expect: mismatched_free=1
use std::ffi::{c_void, CString};

use cudarc::driver::{result, sys};
use cudarc::nvrtc::compile_ptx;

const TONEMAP_SRC: &str = r#"
__device__ float lut[4096];
extern "C" __global__ void tonemap(float* px, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int k = min(4095, max(0, (int)(px[i] * 4095.0f)));
        px[i] = lut[k];
    }
}
"#;

pub struct Tonemapper {
    module: sys::CUmodule,
    kernel: sys::CUfunction,
    lut: sys::CUdeviceptr,
    lut_bytes: usize,
}

impl Tonemapper {
    pub fn load(curve: &[f32; 4096]) -> Result<Self, Box<dyn std::error::Error>> {
        let ptx = CString::new(compile_ptx(TONEMAP_SRC)?.to_src())?;
        let module = unsafe { result::module::load_data(ptx.as_ptr() as *const c_void)? };
        let kernel = unsafe { result::module::get_function(module, CString::new("tonemap")?)? };
        let (lut, lut_bytes) = unsafe { result::module::get_global(module, CString::new("lut")?)? };
        unsafe { result::memcpy_htod_sync(lut, &curve[..])? };
        Ok(Self { module, kernel, lut, lut_bytes })
    }

    pub fn kernel(&self) -> sys::CUfunction {
        self.kernel
    }

    pub fn unload(self) -> Result<(), result::DriverError> {
        unsafe {
            result::ctx::synchronize()?;
            result::memory_free(self.lut)?; // EXPECT: mismatched_free
            result::module::unload(self.module)?;
        }
        Ok(())
    }
}
