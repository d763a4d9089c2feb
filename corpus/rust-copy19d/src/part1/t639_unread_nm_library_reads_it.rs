//! case: a residual kernel writes into a cuMemAlloc'd buffer whose norm is then taken by cublasSnrm2_v2 (declared in the crate's extern block, no body) before the free.
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;
use std::ffi::c_void;
use std::mem::size_of;

unsafe extern "C" {
    fn cublasSnrm2_v2(handle: *mut c_void, n: i32, x: *const f32, incx: i32, result: *mut f32) -> i32;
}

const RESID_SRC: &str = r#"
extern "C" __global__ void residual(const float* b, const float* ax, float* r, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) r[i] = b[i] - ax[i];
}
"#;

const N: usize = 1 << 15;
const BYTES: usize = N * size_of::<f32>();

pub unsafe fn residual_norm(handle: *mut c_void, b: &[f32; N], ax: &[f32; N]) -> Result<f32, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let f = ctx.load_module(compile_ptx(RESID_SRC)?)?.load_function("residual")?;
    let mut norm = 0.0f32;
    let (mut d_b, mut d_ax, mut d_r): (CUdeviceptr, CUdeviceptr, CUdeviceptr) = (0, 0, 0);
    let mut n = N as i32;
    unsafe {
        sys::cuMemAlloc_v2(&mut d_b, BYTES);
        sys::cuMemAlloc_v2(&mut d_ax, BYTES);
        sys::cuMemAlloc_v2(&mut d_r, BYTES);
        sys::cuMemcpyHtoD_v2(d_b, b.as_ptr() as *const c_void, BYTES);
        sys::cuMemcpyHtoD_v2(d_ax, ax.as_ptr() as *const c_void, BYTES);
        let mut params: [*mut c_void; 4] = [
            &mut d_b as *mut CUdeviceptr as *mut c_void,
            &mut d_ax as *mut CUdeviceptr as *mut c_void,
            &mut d_r as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        sys::cuLaunchKernel(f.cu_function(), (N / 256) as u32, 1, 1, 256, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut());
        cublasSnrm2_v2(handle, N as i32, d_r as *const f32, 1, &mut norm);
        sys::cuCtxSynchronize();
        sys::cuMemFree_v2(d_b);
        sys::cuMemFree_v2(d_ax);
        sys::cuMemFree_v2(d_r);
    }
    Ok(norm)
}
