//! case: gravity-inversion misfit accumulator lives in a `__device__` global of the NVRTC-compiled module; the host looks it up with cuModuleGetGlobal, reads it with a blocking cuMemcpyDtoH, and the solver's Drop "frees" it with cuMemFree although a module global is not an allocation
//! expect: mismatched_free=1

use std::ffi::{c_char, c_uint, c_void, CString};
use std::ptr::null_mut;

use cudarc::nvrtc::compile_ptx;

type CUresult = i32;
type CUdeviceptr = u64;
type CUmodule = *mut c_void;
type CUfunction = *mut c_void;
type CUstream = *mut c_void;

#[allow(non_snake_case)]
unsafe extern "C" {
    fn cuModuleLoadData(module: *mut CUmodule, image: *const c_void) -> CUresult;
    fn cuModuleUnload(module: CUmodule) -> CUresult;
    fn cuModuleGetFunction(f: *mut CUfunction, module: CUmodule, name: *const c_char) -> CUresult;
    fn cuModuleGetGlobal_v2(dptr: *mut CUdeviceptr, bytes: *mut usize, module: CUmodule, name: *const c_char) -> CUresult;
    fn cuMemcpyDtoH_v2(dst: *mut c_void, src: CUdeviceptr, bytes: usize) -> CUresult;
    fn cuMemsetD32_v2(dst: CUdeviceptr, value: c_uint, n: usize) -> CUresult;
    fn cuMemFree_v2(dptr: CUdeviceptr) -> CUresult;
    fn cuLaunchKernel(
        f: CUfunction, gx: c_uint, gy: c_uint, gz: c_uint, bx: c_uint, by: c_uint, bz: c_uint,
        shmem: c_uint, stream: CUstream, params: *mut *mut c_void, extra: *mut *mut c_void,
    ) -> CUresult;
    fn cuCtxSynchronize() -> CUresult;
}

const GRAV_SRC: &str = r#"
__device__ float g_misfit;
extern "C" __global__ void forward_misfit(const float* density, const float* kernel_mat, const float* observed,
                                          int stations, int cells) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= stations) return;
    float g = 0.0f;
    for (int c = 0; c < cells; ++c) g += kernel_mat[s * cells + c] * density[c];
    float r = g - observed[s];
    atomicAdd(&g_misfit, r * r);
}
"#;

#[derive(Debug)]
pub enum GravError {
    Nvrtc(String),
    Cuda(CUresult, &'static str),
}

fn ck(r: CUresult, what: &'static str) -> Result<(), GravError> {
    if r == 0 { Ok(()) } else { Err(GravError::Cuda(r, what)) }
}

pub struct MisfitEvaluator {
    module: CUmodule,
    forward: CUfunction,
    misfit: CUdeviceptr,
}

impl MisfitEvaluator {
    pub fn load() -> Result<Self, GravError> {
        let ptx = compile_ptx(GRAV_SRC).map_err(|e| GravError::Nvrtc(e.to_string()))?;
        let image = CString::new(ptx.to_src()).map_err(|e| GravError::Nvrtc(e.to_string()))?;
        let mut module = null_mut();
        let mut forward = null_mut();
        let mut misfit: CUdeviceptr = 0;
        let mut bytes = 0usize;
        unsafe {
            ck(cuModuleLoadData(&mut module, image.as_ptr().cast()), "load")?;
            ck(cuModuleGetFunction(&mut forward, module, c"forward_misfit".as_ptr()), "function")?;
            ck(cuModuleGetGlobal_v2(&mut misfit, &mut bytes, module, c"g_misfit".as_ptr()), "global")?;
        }
        debug_assert_eq!(bytes, 4);
        Ok(Self { module, forward, misfit })
    }

    pub fn evaluate(&self, density: CUdeviceptr, kmat: CUdeviceptr, observed: CUdeviceptr, stations: i32, cells: i32) -> Result<f32, GravError> {
        let (mut d, mut k, mut o, mut s, mut c) = (density, kmat, observed, stations, cells);
        let mut params = [
            (&mut d as *mut CUdeviceptr).cast::<c_void>(),
            (&mut k as *mut CUdeviceptr).cast(),
            (&mut o as *mut CUdeviceptr).cast(),
            (&mut s as *mut i32).cast(),
            (&mut c as *mut i32).cast(),
        ];
        let mut out = 0.0f32;
        unsafe {
            ck(cuMemsetD32_v2(self.misfit, 0, 1), "reset")?;
            ck(
                cuLaunchKernel(self.forward, (stations as u32).div_ceil(128), 1, 1, 128, 1, 1, 0, null_mut(), params.as_mut_ptr(), null_mut()),
                "forward",
            )?;
            ck(cuCtxSynchronize(), "sync")?;
            ck(cuMemcpyDtoH_v2((&mut out as *mut f32).cast(), self.misfit, 4), "read misfit")?;
        }
        Ok(0.5 * out)
    }
}

impl Drop for MisfitEvaluator {
    fn drop(&mut self) {
        unsafe {
            cuCtxSynchronize();
            cuMemFree_v2(self.misfit); // EXPECT: mismatched_free
            cuModuleUnload(self.module);
        }
    }
}
