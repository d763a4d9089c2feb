//! case: a vector-add driver-API program cuMemAlloc's a, b and c, uploads only a (b's copy was left out, DRACC 010), and launches a kernel that only loads b.
//! expect: uninitialized_device_read=1
use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUmodule};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;
use std::ffi::{c_void, CString};
use std::mem::size_of;

const ADD_SRC: &str = r#"
extern "C" __global__ void vec_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"#;

const N: usize = 1 << 20;
const BYTES: usize = N * size_of::<f32>();

pub fn vec_add(a: &[f32], b: &[f32]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let image = CString::new(compile_ptx(ADD_SRC)?.to_src())?;
    let mut module: CUmodule = std::ptr::null_mut();
    let mut func: CUfunction = std::ptr::null_mut();
    unsafe {
        sys::cuModuleLoadData(&mut module, image.as_ptr() as *const c_void).result()?;
        sys::cuModuleGetFunction(&mut func, module, c"vec_add".as_ptr()).result()?;
    }
    let _unused_b = &b[..N];
    let mut c = vec![0.0f32; N];
    let (mut d_a, mut d_b, mut d_c): (CUdeviceptr, CUdeviceptr, CUdeviceptr) = (0, 0, 0);
    let mut n = N as i32;
    unsafe {
        sys::cuMemAlloc_v2(&mut d_a, BYTES);
        sys::cuMemAlloc_v2(&mut d_b, BYTES);
        sys::cuMemAlloc_v2(&mut d_c, BYTES);
        sys::cuMemcpyHtoD_v2(d_a, a[..N].as_ptr() as *const c_void, BYTES);
        let mut params: [*mut c_void; 4] = [
            &mut d_a as *mut CUdeviceptr as *mut c_void,
            &mut d_b as *mut CUdeviceptr as *mut c_void,
            &mut d_c as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        sys::cuLaunchKernel(func, (N / 256) as u32, 1, 1, 256, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut()); // EXPECT: uninitialized_device_read
        sys::cuMemcpyDtoH_v2(c.as_mut_ptr() as *mut c_void, d_c, BYTES);
        sys::cuMemFree_v2(d_a);
        sys::cuMemFree_v2(d_b);
        sys::cuMemFree_v2(d_c);
        sys::cuModuleUnload(module);
    }
    Ok(c)
}
