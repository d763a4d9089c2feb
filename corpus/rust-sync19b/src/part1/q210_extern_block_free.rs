//! case: a crate's own `extern "C"` driver bindings; `saxpy` frees `x` with `cuMemFree_v2` right after `cuLaunchKernel` and only then copies `y` back
//! expect: relies_on_implicit_sync=1

use std::error::Error;
use std::ffi::{c_char, c_int, c_uint, c_void, CString};
use std::fmt;
use std::ptr;

use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

type CUdeviceptr = u64;
type CUresult = c_int;
type CUmodule = *mut c_void;
type CUfunction = *mut c_void;
type CUstream = *mut c_void;

#[link(name = "cuda")]
unsafe extern "C" {
    fn cuMemAlloc_v2(dptr: *mut CUdeviceptr, bytesize: usize) -> CUresult;
    fn cuMemFree_v2(dptr: CUdeviceptr) -> CUresult;
    fn cuMemcpyHtoD_v2(dst: CUdeviceptr, src: *const c_void, bytes: usize) -> CUresult;
    fn cuMemcpyDtoH_v2(dst: *mut c_void, src: CUdeviceptr, bytes: usize) -> CUresult;
    fn cuModuleLoadData(module: *mut CUmodule, image: *const c_void) -> CUresult;
    fn cuModuleGetFunction(f: *mut CUfunction, module: CUmodule, name: *const c_char) -> CUresult;
    fn cuModuleUnload(module: CUmodule) -> CUresult;
    fn cuLaunchKernel(
        f: CUfunction,
        gx: c_uint,
        gy: c_uint,
        gz: c_uint,
        bx: c_uint,
        by: c_uint,
        bz: c_uint,
        shared: c_uint,
        stream: CUstream,
        params: *mut *mut c_void,
        extra: *mut *mut c_void,
    ) -> CUresult;
}

const SRC: &str = r#"
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"#;

#[derive(Debug)]
pub struct CuError(CUresult);

impl fmt::Display for CuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CUDA driver error {}", self.0)
    }
}

impl Error for CuError {}

fn check(rc: CUresult) -> Result<(), CuError> {
    if rc == 0 { Ok(()) } else { Err(CuError(rc)) }
}

struct DevPtr(CUdeviceptr);

impl DevPtr {
    fn alloc(bytes: usize) -> Result<Self, CuError> {
        let mut p = 0;
        check(unsafe { cuMemAlloc_v2(&mut p, bytes) })?;
        Ok(Self(p))
    }

    /// Frees now and reports the driver's status.
    fn free(mut self) -> Result<(), CuError> {
        let p = std::mem::replace(&mut self.0, 0);
        check(unsafe { cuMemFree_v2(p) })
    }
}

impl Drop for DevPtr {
    fn drop(&mut self) {
        if self.0 != 0 {
            unsafe {
                cuMemFree_v2(self.0);
            }
        }
    }
}

struct Module(CUmodule);

impl Drop for Module {
    fn drop(&mut self) {
        unsafe {
            cuModuleUnload(self.0);
        }
    }
}

pub fn saxpy(a: f32, x: &[f32], y: &mut [f32]) -> Result<(), Box<dyn Error>> {
    assert_eq!(x.len(), y.len());
    let _ctx = CudaContext::new(0)?; // makes the primary context current
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let mut m: CUmodule = ptr::null_mut();
    check(unsafe { cuModuleLoadData(&mut m, ptx.as_ptr() as *const c_void) })?;
    let module = Module(m);
    let mut f: CUfunction = ptr::null_mut();
    check(unsafe { cuModuleGetFunction(&mut f, module.0, c"saxpy".as_ptr()) })?;

    let bytes = std::mem::size_of_val(x);
    let d_x = DevPtr::alloc(bytes)?;
    let d_y = DevPtr::alloc(bytes)?;
    check(unsafe { cuMemcpyHtoD_v2(d_x.0, x.as_ptr() as *const c_void, bytes) })?;
    check(unsafe { cuMemcpyHtoD_v2(d_y.0, y.as_ptr() as *const c_void, bytes) })?;

    let (mut a_v, mut xp, mut yp, mut n) = (a, d_x.0, d_y.0, x.len() as c_int);
    let mut params: [*mut c_void; 4] = [
        &mut a_v as *mut _ as *mut c_void,
        &mut xp as *mut _ as *mut c_void,
        &mut yp as *mut _ as *mut c_void,
        &mut n as *mut _ as *mut c_void,
    ];
    let grid = (x.len() as c_uint).div_ceil(256);
    check(unsafe { cuLaunchKernel(f, grid, 1, 1, 256, 1, 1, 0, ptr::null_mut(), params.as_mut_ptr(), ptr::null_mut()) })?;
    d_x.free()?; // EXPECT: relies_on_implicit_sync

    check(unsafe { cuMemcpyDtoH_v2(y.as_mut_ptr() as *mut c_void, d_y.0, bytes) })?;
    Ok(())
}
