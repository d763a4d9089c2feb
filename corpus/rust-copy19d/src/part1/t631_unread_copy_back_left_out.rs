//! case: a matrix-multiply driver-API program launches the kernel into d_c and cuMemFree's it without copying it back (DRACC 012); the host returns its own stale array.
//! expect: unread_kernel_output=1
use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUmodule};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;
use std::ffi::{c_void, CString};
use std::mem::size_of;

const MM_SRC: &str = r#"
extern "C" __global__ void matmul(const float* a, const float* b, float* c, int n) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n && col < n) {
        float acc = 0.0f;
        for (int k = 0; k < n; ++k) acc += a[row * n + k] * b[k * n + col];
        c[row * n + col] = acc;
    }
}
"#;

const N: usize = 256;
const BYTES: usize = N * N * size_of::<f32>();

pub fn matmul(a: &[f32], b: &[f32]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let image = CString::new(compile_ptx(MM_SRC)?.to_src())?;
    let mut module: CUmodule = std::ptr::null_mut();
    let mut func: CUfunction = std::ptr::null_mut();
    unsafe {
        sys::cuModuleLoadData(&mut module, image.as_ptr() as *const c_void).result()?;
        sys::cuModuleGetFunction(&mut func, module, c"matmul".as_ptr()).result()?;
    }
    let c = vec![0.0f32; N * N];
    let (mut d_a, mut d_b, mut d_c): (CUdeviceptr, CUdeviceptr, CUdeviceptr) = (0, 0, 0);
    let mut n = N as i32;
    unsafe {
        sys::cuMemAlloc_v2(&mut d_a, BYTES);
        sys::cuMemAlloc_v2(&mut d_b, BYTES);
        sys::cuMemAlloc_v2(&mut d_c, BYTES);
        sys::cuMemcpyHtoD_v2(d_a, a[..N * N].as_ptr() as *const c_void, BYTES);
        sys::cuMemcpyHtoD_v2(d_b, b[..N * N].as_ptr() as *const c_void, BYTES);
        let mut params: [*mut c_void; 4] = [
            &mut d_a as *mut CUdeviceptr as *mut c_void,
            &mut d_b as *mut CUdeviceptr as *mut c_void,
            &mut d_c as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        sys::cuLaunchKernel(func, (N / 16) as u32, (N / 16) as u32, 1, 16, 16, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut());
        sys::cuCtxSynchronize();
        sys::cuMemFree_v2(d_a);
        sys::cuMemFree_v2(d_b);
        sys::cuMemFree_v2(d_c); // EXPECT: unread_kernel_output
        sys::cuModuleUnload(module);
    }
    Ok(c)
}
