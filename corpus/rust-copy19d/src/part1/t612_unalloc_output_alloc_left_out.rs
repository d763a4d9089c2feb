//! case: a SAXPY driver-API program cuMemAlloc's x and y but leaves out the output's allocation (DRACC 008); the kernel writes through the null pointer and the result is copied back from it.
//! expect: unallocated_pointer=2
use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUmodule};
use cudarc::driver::{CudaContext, DriverError};
use cudarc::nvrtc::compile_ptx;
use std::ffi::{c_void, CString};
use std::mem::size_of;

const SAXPY_SRC: &str = r#"
extern "C" __global__ void saxpy(const float* x, const float* y, float* out, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}
"#;

const N: usize = 1 << 16;
const BYTES: usize = N * size_of::<f32>();

pub fn saxpy() -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let ptx = compile_ptx(SAXPY_SRC)?;
    let image = CString::new(ptx.to_src())?;
    let mut module: CUmodule = std::ptr::null_mut();
    let mut func: CUfunction = std::ptr::null_mut();
    unsafe {
        sys::cuModuleLoadData(&mut module, image.as_ptr() as *const c_void).result()?;
        sys::cuModuleGetFunction(&mut func, module, c"saxpy".as_ptr()).result()?;
    }
    let hx = vec![1.0f32; N];
    let hy = vec![2.0f32; N];
    let mut hout = vec![0.0f32; N];
    let mut d_x: CUdeviceptr = 0;
    let mut d_y: CUdeviceptr = 0;
    let mut d_out: CUdeviceptr = 0;
    let mut a = 2.0f32;
    let mut n = N as i32;
    unsafe {
        sys::cuMemAlloc_v2(&mut d_x, BYTES);
        sys::cuMemAlloc_v2(&mut d_y, BYTES);
        sys::cuMemcpyHtoD_v2(d_x, hx.as_ptr() as *const c_void, BYTES);
        sys::cuMemcpyHtoD_v2(d_y, hy.as_ptr() as *const c_void, BYTES);
        let mut params: [*mut c_void; 5] = [
            &mut d_x as *mut CUdeviceptr as *mut c_void,
            &mut d_y as *mut CUdeviceptr as *mut c_void,
            &mut d_out as *mut CUdeviceptr as *mut c_void,
            &mut a as *mut f32 as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let blocks = N.div_ceil(256) as u32;
        sys::cuLaunchKernel(func, blocks, 1, 1, 256, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut()); // EXPECT: unallocated_pointer
        sys::cuMemcpyDtoH_v2(hout.as_mut_ptr() as *mut c_void, d_out, BYTES); // EXPECT: unallocated_pointer
        sys::cuMemFree_v2(d_x);
        sys::cuMemFree_v2(d_y);
        sys::cuMemFree_v2(d_out);
        sys::cuModuleUnload(module);
    }
    Ok(hout)
}
