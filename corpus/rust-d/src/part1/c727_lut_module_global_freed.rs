//! case: a color-grading pass keeps its 3D LUT in a `__device__` array of the module, located with cuModuleGetGlobal (cudarc's driver::result) and filled with a blocking copy; its Drop frees the global's address with cuMemFree as if it were an allocation
//! expect: mismatched_free=1

use std::ffi::CString;
use std::sync::Arc;

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{CUdeviceptr, CUfunction, CUmodule};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

pub const LUT_DIM: usize = 17;

const GRADE_CU: &str = r#"
__device__ float3 lut[17 * 17 * 17];
extern "C" __global__ void grade(uchar4* pixels, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uchar4 p = pixels[i];
    int r = p.x * 16 / 255, g = p.y * 16 / 255, b = p.z * 16 / 255;   // nearest, no trilinear
    float3 c = lut[(b * 17 + g) * 17 + r];
    pixels[i] = make_uchar4((unsigned char)(c.x * 255.f), (unsigned char)(c.y * 255.f),
                            (unsigned char)(c.z * 255.f), p.w);
}
"#;

pub struct ColorGrade {
    _ctx: Arc<CudaContext>,
    module: CUmodule,
    grade: CUfunction,
    lut: CUdeviceptr,
    lut_bytes: usize,
}

impl ColorGrade {
    pub fn new(ctx: Arc<CudaContext>, table: &[[f32; 3]]) -> Result<Self, Box<dyn std::error::Error>> {
        assert_eq!(table.len(), LUT_DIM * LUT_DIM * LUT_DIM);
        let ptx = CString::new(compile_ptx(GRADE_CU)?.to_src())?;
        ctx.bind_to_thread()?;
        let module = unsafe { result::module::load_data(ptx.as_ptr().cast())? };
        let grade = unsafe { result::module::get_function(module, CString::new("grade")?)? };
        let (lut, lut_bytes) = unsafe { result::module::get_global(module, CString::new("lut")?)? };
        let flat: Vec<f32> = table.iter().flatten().copied().collect();
        unsafe { result::memcpy_htod_sync(lut, &flat)? };
        Ok(Self { _ctx: ctx, module, grade, lut, lut_bytes })
    }

    pub fn function(&self) -> CUfunction {
        self.grade
    }

    pub fn lut_bytes(&self) -> usize {
        self.lut_bytes
    }
}

impl Drop for ColorGrade {
    fn drop(&mut self) {
        unsafe {
            let _ = result::ctx::synchronize();
            let _ = result::free_sync(self.lut); // EXPECT: mismatched_free
            let _ = result::module::unload(self.module);
        }
    }
}

pub fn regrade(cg: &ColorGrade, table: &[[f32; 3]]) -> Result<(), DriverError> {
    let flat: Vec<f32> = table.iter().flat_map(|c| c.iter().copied()).collect();
    unsafe { result::memcpy_htod_sync(cg.lut, &flat[..flat.len().min(cg.lut_bytes / 4)]) }
}
